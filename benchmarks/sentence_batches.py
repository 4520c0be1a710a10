"""The warm-up's sentence steps, one sentence at a time (as before issue 50) against a batch at a time
(core.minilm.sentence_embeddings): the shipped collection (data/sentences.tsv) and the word-order pairs'
three MiniLM readings (data/sentence_pairs.tsv), in this one process, each way timed in turn, several rounds.

Prints wall and CPU seconds (process_time: what the process itself spent, less sensitive to other work on the
machine than the wall clock), and the largest difference between the two ways' vectors.

    .venv/bin/python benchmarks/sentence_batches.py [--rounds 3] [--batch 32]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # as the server runs (serving.env)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from core import minilm, sentences  # noqa: E402


def timed(work):
    wall, cpu = time.perf_counter(), time.process_time()
    out = work()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    model = minilm.load_minilm()
    texts, _ = sentences.read_collection()
    pairs = [s for p in sentences.read_pairs() for s in (p.first, p.second)]
    work = {
        f"collection ({len(texts)} sentences)": texts,
        f"word-order pairs ({len(pairs)} sentences x 3 readings)": pairs,
    }
    print(f"torch threads {torch.get_num_threads()}, load average {os.getloadavg()[0]:.1f}")
    for name, items in work.items():
        readings = minilm.POSITIONS if "pairs" in name else ("learned",)
        one = lambda: [sentences.minilm_vector(model, s, p) for p in readings for s in items]  # noqa: B023, E731
        encoded = [minilm.encode(model, s) for s in items]
        batched = lambda: [  # noqa: E731
            minilm.sentence_embeddings(model, encoded, positions=p, batch_size=args.batch)  # noqa: B023
            for p in readings  # noqa: B023
        ]
        for r in range(args.rounds):
            a, wall_a, cpu_a = timed(one)
            b, wall_b, cpu_b = timed(batched)
            diff = (torch.stack(a) - torch.cat(b)).abs().max().item()
            print(
                f"{name}, round {r + 1}: one at a time {wall_a:6.1f} s wall {cpu_a:6.1f} s CPU | "
                f"batches of {args.batch} {wall_b:6.1f} s wall {cpu_b:6.1f} s CPU | "
                f"CPU ratio {cpu_a / cpu_b:4.1f}x | largest difference {diff:.1e}"
            )


if __name__ == "__main__":
    main()
