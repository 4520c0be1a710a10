"""Run the core computations the pages make on cuda (or the device EMBLAB_DEVICE names), against the cpu.

Each computation runs on the device and on the cpu, at the pages' largest settings. The script prints the time of
each (the mean of 3 runs after a warm-up, synchronised), the speed-up, and the largest difference between the two
results, so a device-placement bug or a precision loss on the device shows here before a learner sees it.
GloVe-sized work uses 400,000 random 50-d vectors, so the script needs no data package.
On a machine without cuda it says so and compares the cpu with itself.
Run: .venv/bin/python benchmarks/gpu_check.py   (training on the device: benchmarks/train.py)
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core import embeddings, projection, rotary  # noqa: E402
from core.device import choose_device  # noqa: E402
from core.evaluate import Question, evaluate_analogies  # noqa: E402
from core.positional import (  # noqa: E402
    PEConfig,
    dot_by_offset,
    pe_window,
    position_similarity,
    shift_error,
    sinusoidal_encoding,
    wavelengths,
)
from core.vectors import WordVectors  # noqa: E402

Check = Callable[[torch.device], torch.Tensor]
CFG = PEConfig(4096, 100_000)  # the PE page's largest table
YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}


@functools.cache
def random_vectors(device: torch.device, n: int = 400_000, dim: int = 50) -> WordVectors:
    """GloVe 6B 50d's shape, random rows drawn on the cpu (the same words on every device); made once per device,
    like the pages' cached vectors."""
    vectors = torch.randn(n, dim, generator=torch.Generator().manual_seed(0))
    return WordVectors([f"w{i}" for i in range(n)], vectors.to(device), "random")


def analogies(device: torch.device) -> torch.Tensor:
    """3CosAdd over the 30,000 first words for 2,000 questions; returns the predicted row per question."""
    wv = random_vectors(device)
    ids = torch.randint(0, 30_000, (2000, 4), generator=torch.Generator().manual_seed(1)).tolist()
    questions = [Question("random", *(f"w{i}" for i in row)) for row in ids]
    result = evaluate_analogies(wv, questions, restrict=30_000)
    return torch.tensor([int(word[1:]) for _, word in result["predictions"]])


def nearest(device: torch.device) -> torch.Tensor:
    """The 10 nearest of 400,000 words to one word, by cosine; returns their cosines."""
    wv = random_vectors(device)
    return torch.tensor([score for _, score in projection.nearest(wv, wv.vectors[42], 10, exclude=[42])])


def input_layer(device: torch.device) -> torch.Tensor:
    """The input-layer page's stages for a 512-token sentence at d_model 512, dropout off."""
    words = " ".join(f"word{i % 50}" for i in range(512))
    layer, _, tokens = embeddings.build_input_layer(
        [words], None, embeddings.LayerConfig(d_model=512, max_len=512), device=device
    )
    layer.eval()
    ids = torch.tensor([tokens[0].ids], device=device)
    with torch.no_grad():
        return layer(ids, torch.zeros_like(ids), stages=True)["LayerNorm"]


def scores(device: torch.device) -> torch.Tensor:
    """RoPE q . k against distance 0..4096, head_dim 128, q and k drawn on the cpu."""
    inv = rotary.rope_inv_freq(128, 10000.0, device=device)
    q, k = torch.randn(2, 128, generator=torch.Generator().manual_seed(0), dtype=torch.float64).to(inv)
    return rotary.scores_by_distance(q, k, inv, 4096)


CHECKS: dict[str, Check] = {
    "PE whole table 100,000 x 4,096": lambda d: sinusoidal_encoding(100_000, 4096, device=d),
    "PE window 1,000 x 4,096 at position 99,000": lambda d: pe_window(CFG, 99_000, 100_000, device=d),
    "PE cosine similarity of 500 rows": lambda d: position_similarity(pe_window(CFG, 0, 500, device=d), "cosine"),
    "PE dot by offset, 2 references x 1,000 offsets": lambda d: dot_by_offset(CFG, [0, 50_000], 1000, device=d),
    "PE shift check k=5 over 500 rows": lambda d: torch.tensor(shift_error(CFG, 5, 0, 500, device=d)),
    "PE wavelengths, d_model 4,096": lambda d: wavelengths(4096, device=d),
    "RoPE inv_freq, YaRN x4, head_dim 128": lambda d: rotary.rope_inv_freq(128, 1e4, YARN, seq_len=16384, device=d),
    "RoPE q.k against distance 0..4,096": scores,
    "RoPE long-term decay bound 0..4,096": lambda d: rotary.long_term_decay(128, 10000.0, 4096, device=d),
    "ALiBi bias 128 x 128": lambda d: rotary.alibi_bias(0.5, 128, device=d),
    "Input layer stages, 512 tokens x 512": input_layer,
    "padding_idx gradient": lambda d: embeddings.padding_gradients(
        embeddings.pad_batch([[1, 2, 3], [4, 5]]), 10, 3, device=d
    )[1],
    "norms against d_model 8..1,024": lambda d: torch.tensor(
        list(embeddings.norms_against_d_model([8, 64, 512, 1024], device=d).values())
    ),
    "nearest 10 of 400,000 words (cosine)": nearest,
    "analogies, 2,000 questions over 30,000 words": analogies,
}


def timed(check: Check, device: torch.device, repeat: int = 3) -> tuple[torch.Tensor, float]:
    """(result on the cpu, mean seconds per run after one warm-up)."""
    check(device)
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeat):
        out = check(device)
    if device.type == "cuda":
        torch.cuda.synchronize()
    seconds = (time.perf_counter() - start) / repeat  # before the copy to the cpu below
    return out.detach().cpu(), seconds


def main() -> None:
    choice = choose_device()
    device, cpu = choice.device, torch.device("cpu")
    name = torch.cuda.get_device_name() if device.type == "cuda" else "no cuda here: the cpu against itself"
    print(f"device: {device} ({name}); torch {torch.__version__}; {torch.get_num_threads()} cpu threads")
    if choice.warning:
        print(f"  {choice.warning}")
    print(f"  {'computation':<46} {'device':>10} {'cpu':>10} {'speed-up':>9} {'largest |device - cpu|':>24}")
    for label, check in CHECKS.items():
        on_device, t_device = timed(check, device)
        on_cpu, t_cpu = timed(check, cpu)
        if on_cpu.is_floating_point():
            same = on_device == on_cpu  # also where both are inf (ALiBi's mask)
            diff = f"{torch.where(same, 0, (on_device.double() - on_cpu.double()).abs()).max().item():.2e}"
        else:  # word ids: how many differ
            diff = f"{(on_device != on_cpu).sum().item()} of {on_cpu.numel()} differ"
        print(f"  {label:<46} {t_device * 1000:8.2f} ms {t_cpu * 1000:7.1f} ms {t_cpu / t_device:8.1f}x {diff:>24}")


if __name__ == "__main__":
    main()
