"""The learned-vs-sinusoidal page's default demo: accuracy and time for each encoding, and steps per second.

Trains the page's default settings (copy the token 3 places back, d_model 64, length 16, 200 steps) with a
learned table, the sinusoidal table and no positions (the control), in this process, on the picked device.
Goal: both encodings >= 95% on the trained length, the control far below, all within 20 s on a 2-core machine.
Run: OMP_NUM_THREADS=1 .venv/bin/python benchmarks/train.py (one CPU thread per op, as scripts/run.sh serves the app)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core.device import pick_device  # noqa: E402
from core.training import POSITIONS, TrainConfig, accuracy_by_position, train  # noqa: E402


def main() -> None:
    device = pick_device()
    print(f"device: {device}; CPU threads per op: {torch.get_num_threads()}")
    start = time.perf_counter()
    for position in POSITIONS:
        cfg = TrainConfig(position=position)
        result = train(cfg, device=device)
        past = accuracy_by_position(result.model, 2 * cfg.train_len)[cfg.train_len :]
        print(
            f"{position:<11} accuracy {result.final_accuracy:6.1%} on length {cfg.train_len}, "
            f"{sum(past) / len(past):6.1%} on positions {cfg.train_len}-{2 * cfg.train_len - 1}; "
            f"{cfg.steps} steps in {result.seconds:.1f} s = {cfg.steps / result.seconds:.0f} steps/s"
        )
    print(f"all three: {time.perf_counter() - start:.1f} s (goal: within 20 s)")


if __name__ == "__main__":
    main()
