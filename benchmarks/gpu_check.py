"""Run the core computations on cuda (or the device EMBLAB_DEVICE names) and print their times and results.

Checks that each result on the device equals the cpu result. Prints which device it ran on; on a
machine without cuda it says so and runs on cpu. Run: .venv/bin/python benchmarks/gpu_check.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core.device import choose_device  # noqa: E402
from core.positional import (  # noqa: E402
    PEConfig,
    dot_by_offset,
    pe_window,
    position_similarity,
    shift_error,
    sinusoidal_encoding,
)


def timed(name: str, fn, device: torch.device, repeat: int = 5):
    fn()
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeat):
        out = fn()
    if device.type == "cuda":
        torch.cuda.synchronize()
    print(f"  {name:<52} {(time.perf_counter() - start) / repeat * 1000:9.2f} ms")
    return out


def main() -> None:
    choice = choose_device()
    device = choice.device
    print(f"device: {device} ({torch.cuda.get_device_name() if device.type == 'cuda' else 'no cuda here'})")
    if choice.warning:
        print(f"  {choice.warning}")
    cfg = PEConfig(4096, 100_000)
    table = timed(
        "whole table 100,000 x 4,096 (float32)", lambda: sinusoidal_encoding(100_000, 4096, device=device), device
    )
    window = timed(
        "window 1,000 x 4,096 at position 99,000", lambda: pe_window(cfg, 99_000, 100_000, device=device), device
    )
    timed("cosine similarity of 1,000 rows", lambda: position_similarity(window, "cosine"), device)
    timed(
        "dot by offset, 2 references x 1,000 offsets",
        lambda: dot_by_offset(cfg, [0, 50_000], 1000, device=device),
        device,
    )
    err = timed("shift check k=5 over 500 rows", lambda: shift_error(cfg, 5, 0, 500, device=device), device)
    cpu_rows = pe_window(cfg, 99_000, 100_000)
    print(
        f"  max |device - cpu| on the window: {(window.cpu() - cpu_rows).abs().max().item():.2e}; shift error {err:.2e}"
    )
    print(f"  whole table: {table.numel() * 4 / 2**30:.2f} GiB on {table.device}")


if __name__ == "__main__":
    main()
