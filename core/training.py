"""Train a tiny attention model whose only source of order is its position module, live on the device.

The task cannot be solved from content alone: attention without positions treats the input as a set.
    copy-back: output the token k places back (y[i] = x[i - k]; the first k positions are not scored)
    reverse:   output the sequence backwards (y[i] = x[L - 1 - i])
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from core.positional import sinusoidal_encoding
from core.problems import Problem

TASKS = ("copy-back", "reverse")
POSITIONS = ("learned", "sinusoidal", "none")
MAX_TRAIN_LEN = 128
MAX_D_MODEL = 256
MAX_STEPS = 5000
IGNORE = -100  # targets that are not scored


@dataclass(frozen=True)
class TrainConfig:
    """One training run. Raises Problem with what to change."""

    position: str = "learned"
    task: str = "copy-back"
    shift: int = 3
    vocab: int = 16
    d_model: int = 64
    train_len: int = 16
    steps: int = 200
    lr: float = 3e-3
    batch: int = 64
    seed: int = 0

    def __post_init__(self) -> None:
        if self.position not in POSITIONS:
            raise Problem("train_position", choices=", ".join(POSITIONS), value=repr(self.position))
        if self.task not in TASKS:
            raise Problem("train_task", choices=", ".join(TASKS), value=repr(self.task))
        if not 2 <= self.train_len <= MAX_TRAIN_LEN:
            raise Problem("train_len", most=MAX_TRAIN_LEN, value=self.train_len)
        if self.task == "copy-back" and not 1 <= self.shift < self.train_len:
            raise Problem("train_shift", most=self.train_len - 1, value=self.shift)
        if not 1 <= self.steps <= MAX_STEPS:
            raise Problem("train_steps", most=MAX_STEPS, value=self.steps)
        if not (math.isfinite(self.lr) and 0 < self.lr <= 1):
            raise Problem("train_lr", value=self.lr)
        if not 8 <= self.d_model <= MAX_D_MODEL or self.d_model % 2:
            raise Problem("train_d_model", most=MAX_D_MODEL, value=self.d_model)
        if not 2 <= self.vocab <= 1000:
            raise Problem("train_vocab", value=self.vocab)


def make_batch(
    cfg: TrainConfig, length: int, batch: int, generator: torch.Generator, device=None
) -> tuple[Tensor, Tensor]:
    """Random token sequences and their targets.

    Returns:
        x, y: (batch, length) token ids; y is IGNORE where the task has no answer.
    """
    x = torch.randint(0, cfg.vocab, (batch, length), generator=generator).to(device)
    if cfg.task == "reverse":
        return x, x.flip(1)
    y = torch.full_like(x, IGNORE)
    y[:, cfg.shift :] = x[:, : length - cfg.shift]  # y[i] = x[i - k]
    return x, y


class TinyAttention(nn.Module):
    """Token embedding + position -> one self-attention block (no mask) -> MLP -> logits."""

    def __init__(self, cfg: TrainConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab, cfg.d_model)
        self.pos = nn.Embedding(cfg.train_len, cfg.d_model) if cfg.position == "learned" else None
        self.attn = nn.MultiheadAttention(cfg.d_model, num_heads=1, batch_first=True)
        self.norm = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(cfg.d_model, 4 * cfg.d_model), nn.GELU(), nn.Linear(4 * cfg.d_model, cfg.d_model)
        )
        self.out = nn.Linear(cfg.d_model, cfg.vocab)

    @property
    def max_len(self) -> int | None:
        """Longest input the position module can embed: a learned table has train_len rows; others have no limit."""
        return self.cfg.train_len if self.pos is not None else None

    def positions(self, length: int, device) -> Tensor:
        """(length, d_model) position vectors; zeros for the no-position control."""
        if self.pos is not None:  # "learned"
            return self.pos(torch.arange(length, device=device))
        if self.cfg.position == "sinusoidal":
            return sinusoidal_encoding(length, self.cfg.d_model, device=device)
        return torch.zeros(length, self.cfg.d_model, device=device)

    def forward(self, x: Tensor) -> Tensor:
        """x: (batch, length) ids, length <= max_len -> (batch, length, vocab) logits."""
        h = self.tok(x) + self.positions(x.size(1), x.device)  # (batch, length, d_model)
        h = h + self.attn(h, h, h, need_weights=False)[0]
        h = h + self.mlp(self.norm(h))
        return self.out(h)


@dataclass(frozen=True, eq=False)
class TrainResult:
    """A trained model and what it learned."""

    cfg: TrainConfig
    model: TinyAttention
    losses: list[float]
    final_accuracy: float  # on fresh sequences of the trained length, scored positions only
    accuracy_per_position: list[float]  # (train_len,); NaN where the task scores nothing
    initial_table: Tensor | None  # (train_len, d_model) learned table before training; None otherwise
    table: Tensor | None  # (train_len, d_model) after training
    seconds: float


@torch.no_grad()
def accuracy_by_position(model: TinyAttention, length: int, *, samples: int = 512, seed: int = 1234) -> list[float]:
    """Accuracy at each position of fresh sequences of `length`.

    A learned table has no rows past its max_len: the input is cut there (as real models truncate), and the
    positions past it score 0. NaN where the task scores nothing.
    """
    cfg = model.cfg
    device = next(model.parameters()).device
    x, y = make_batch(cfg, length, samples, torch.Generator().manual_seed(seed), device)
    seen = length if model.max_len is None else min(length, model.max_len)
    was_training = model.training
    model.eval()
    pred = model(x[:, :seen]).argmax(-1)  # (samples, seen)
    model.train(was_training)
    out = []
    for i in range(length):
        scored = y[:, i] != IGNORE
        if not scored.any():
            out.append(float("nan"))
        elif i >= seen:
            out.append(0.0)
        else:
            out.append((pred[scored, i] == y[scored, i]).float().mean().item())
    return out


def train(cfg: TrainConfig, on_step: Callable[[int, float], None] | None = None, *, device=None) -> TrainResult:
    """Train with Adam on fresh random batches; deterministic for cfg.seed.

    Args:
        on_step: called as on_step(step, loss) after every step (the page moves a progress bar with it).
    """
    torch.manual_seed(cfg.seed)
    generator = torch.Generator().manual_seed(cfg.seed)
    model = TinyAttention(cfg).to(device)
    initial = model.pos.weight.detach().clone().cpu() if model.pos is not None else None
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    losses = []
    start = time.perf_counter()
    for step in range(1, cfg.steps + 1):
        x, y = make_batch(cfg, cfg.train_len, cfg.batch, generator, device)
        logits = model(x)  # (batch, train_len, vocab)
        loss = nn.functional.cross_entropy(logits.reshape(-1, cfg.vocab), y.reshape(-1), ignore_index=IGNORE)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if on_step:
            on_step(step, losses[-1])
    seconds = time.perf_counter() - start
    per_position = accuracy_by_position(model, cfg.train_len)
    scored = [a for a in per_position if not math.isnan(a)]
    return TrainResult(
        cfg,
        model,
        losses,
        sum(scored) / len(scored),
        per_position,
        initial,
        model.pos.weight.detach().clone().cpu() if model.pos is not None else None,
        seconds,
    )
