"""The content one attention head sees: its settings, the tokens' vectors x and the projections W_q, W_k.

    q = x W_q,   k = x W_k,   W_q, W_k ~ N(0, 1 / d_model)

x is the sentence read through GloVe (unknown words: zero rows) or n_tokens vectors from N(0, 1); vectors of
another width reach d_model through a seeded random projection (fit_width). The T5 scheme's bias table (one
number per bucket) is drawn here too, so that every scheme sees the same head.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from core.device import float64_ok
from core.embeddings import split_words
from core.problems import Problem
from core.rotary import MAX_HEADS, alibi_slopes
from core.vectors import WordVectors

CONTENTS = ("glove", "random")
MAX_TOKENS = 64  # the heatmaps stay readable, one cell per token pair
MAX_D_MODEL = 1024
MAX_HEAD_DIM = 256
MAX_SHIFT = 100_000
MAX_T5_BUCKETS = 256
DEFAULT_SENTENCE = "the cat sat on the mat because it was tired"


@dataclass(frozen=True)
class AttentionConfig:
    """The content, the head and every scheme's settings. Raises ValueError (a Problem) with what to change.

    content "glove" reads `sentence` through GloVe; "random" draws `n_tokens` vectors from N(0, 1) with `seed`.
    W_q and W_k are drawn from N(0, 1 / d_model) with `seed`. `shift` is the k of the shift check; `trained_len`
    the length a model would have been trained on (the learned tables bring their own).
    """

    content: str = "glove"
    sentence: str = DEFAULT_SENTENCE
    n_tokens: int = 10
    d_model: int = 50
    head_dim: int = 16
    seed: int = 0
    causal: bool = False
    base: float = 10000.0
    alibi_heads: int = 8
    alibi_head: int = 0
    t5_buckets: int = 32
    t5_max_distance: int = 128
    t5_bidirectional: bool = True
    shift: int = 8
    trained_len: int = 16

    def __post_init__(self) -> None:
        if self.content not in CONTENTS:
            raise ValueError(f"content must be one of {CONTENTS}; it is {self.content!r}.")
        if self.content == "glove":
            n = len(split_words(self.sentence))
            if n == 0:
                raise Problem("attn_empty")
            if n > MAX_TOKENS:
                raise Problem("attn_too_long", n=n, most=MAX_TOKENS)
        elif not 1 <= self.n_tokens <= MAX_TOKENS:
            raise Problem("attn_tokens", most=MAX_TOKENS, value=self.n_tokens)
        if not 1 <= self.d_model <= MAX_D_MODEL:
            raise Problem("attn_d_model", most=MAX_D_MODEL, value=self.d_model)
        if not 2 <= self.head_dim <= MAX_HEAD_DIM or self.head_dim % 2:
            raise Problem("rope_head_dim", most=MAX_HEAD_DIM, value=self.head_dim)
        if not (math.isfinite(self.base) and self.base > 1):
            raise Problem("rope_base", value=self.base)
        if not 0 <= self.seed < 2**31:
            raise Problem("attn_seed", value=self.seed)
        if not 1 <= self.alibi_heads <= MAX_HEADS:
            raise Problem("alibi_heads", most=MAX_HEADS, value=self.alibi_heads)
        if not 0 <= self.alibi_head < self.alibi_heads:
            raise Problem("attn_alibi_head", most=self.alibi_heads - 1, value=self.alibi_head)
        if not 4 <= self.t5_buckets <= MAX_T5_BUCKETS or self.t5_buckets % 2:
            raise Problem("attn_t5_buckets", most=MAX_T5_BUCKETS, value=self.t5_buckets)
        if not self.t5_exact < self.t5_max_distance <= MAX_SHIFT:
            raise Problem("attn_t5_max_distance", least=self.t5_exact + 1, most=MAX_SHIFT, value=self.t5_max_distance)
        if not 1 <= self.shift <= MAX_SHIFT:
            raise Problem("attn_shift", most=MAX_SHIFT, value=self.shift)
        if not 1 <= self.trained_len <= MAX_SHIFT:
            raise Problem("attn_trained_len", most=MAX_SHIFT, value=self.trained_len)

    @property
    def alibi_slope(self) -> float:
        """This head's slope among alibi_heads (core.rotary.alibi_slopes)."""
        return alibi_slopes(self.alibi_heads)[self.alibi_head]

    @property
    def t5_exact(self) -> int:
        """Distances below this have a bucket each (T5's max_exact: half of the buckets of one direction)."""
        return (self.t5_buckets // 2 if self.t5_bidirectional else self.t5_buckets) // 2


@dataclass(frozen=True, eq=False)
class Head:
    """The content every scheme sees: tokens, their vectors x and the head's projections.

    Attributes:
        x: (n, d_model); w_q, w_k: (d_model, head_dim); t5_table: (t5_buckets,) one bias per bucket.
        unknown: sentence words GloVe does not have (their x rows are zero).
    """

    tokens: list[str]
    unknown: list[str]
    x: Tensor
    w_q: Tensor
    w_k: Tensor
    t5_table: Tensor


def dtype_on(device: torch.device | str | None) -> torch.dtype:
    """float64 where the device computes in it, else float32 (mps)."""
    return torch.float64 if float64_ok(torch.device(device or "cpu")) else torch.float32


def _generator(seed: int, salt: int) -> torch.Generator:
    """One stream per thing drawn, so that changing the content leaves W_q, W_k and the T5 table as they were."""
    return torch.Generator().manual_seed(seed * 16 + salt)


def fit_width(v: Tensor, d_model: int, seed: int, salt: int = 5) -> Tensor:
    """Rows of another width to d_model: unchanged when the widths agree, else times a seeded (w, d_model) matrix
    from N(0, 1 / d_model), which keeps lengths and dot products on average (Johnson-Lindenstrauss).

    Returns:
        (n, d_model)
    """
    if v.size(1) == d_model:
        return v
    return v @ _projection(v.size(1), d_model, seed, salt).to(v.device, v.dtype)  # (n, d_model)


def _projection(width: int, d_model: int, seed: int, salt: int) -> Tensor:
    """fit_width's matrix, drawn from the seed: the same for the same shape and seed (core keeps no cache: the page's
    view of a configuration is cached in ui, lessons.attention.views.view)."""
    return torch.randn(width, d_model, generator=_generator(seed, salt), dtype=torch.float64) / math.sqrt(d_model)


def make_head(cfg: AttentionConfig, wv: WordVectors | None = None, *, device=None) -> Head:
    """The tokens, x (GloVe rows, or random), W_q, W_k and the T5 bias table, in float64 where the device has it.

    Args:
        wv: the vectors for content "glove" (unknown words get zero rows); unused for "random".
    """
    dtype = dtype_on(device)
    if cfg.content == "glove":
        if wv is None:
            raise ValueError("content 'glove' needs the word vectors (wv).")
        tokens = split_words(cfg.sentence)
        unknown = [w for w in tokens if w not in wv.stoi]
        rows = [wv.vectors[wv.stoi[w]].double().cpu() if w in wv.stoi else torch.zeros(wv.dim) for w in tokens]
        x = fit_width(torch.stack(rows).double(), cfg.d_model, cfg.seed, salt=4)  # (n, d_model)
    else:
        tokens, unknown = [f"t{i}" for i in range(cfg.n_tokens)], []
        x = torch.randn(cfg.n_tokens, cfg.d_model, generator=_generator(cfg.seed, 0), dtype=torch.float64)
    w = [
        torch.randn(cfg.d_model, cfg.head_dim, generator=_generator(cfg.seed, s), dtype=torch.float64)
        / math.sqrt(cfg.d_model)
        for s in (1, 2)
    ]
    t5 = torch.randn(cfg.t5_buckets, generator=_generator(cfg.seed, 3), dtype=torch.float64)
    w_q, w_k = (m.to(device, dtype) for m in w)
    return Head(tokens, unknown, x.to(device, dtype), w_q, w_k, t5.to(device, dtype))
