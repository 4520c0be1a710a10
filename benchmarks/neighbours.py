"""How honest a projection is, and what it costs: core.neighbours on the bundled GloVe's most frequent words.

For --sizes words (5,000 and 20,000; 50,000 too when asked), k = 10, a 2D PCA projection (core.projection.pca, fitted
on the same words):
1. core.neighbours.preservation: each word's 10 nearest by cosine in 50D (exact, torch blocks:
   core.neighbours.cosine_neighbours) and by euclidean distance in 2D (exact, scikit-learn's k-d tree), then the
   overlap. Median of --repeats runs, after one warm-up. Beside it, up to --sklearn-most points (20,000), the same
   two searches with scikit-learn's NearestNeighbors (brute-force cosine in 50D, a k-d tree in 2D), which must find
   the same neighbours.
2. core.neighbours.honesty_curve: trustworthiness and neighbours kept at k = 5, 10, 30, 100 in one pass
   (core.trustworthiness; benchmarks/trustworthiness.py compares that with scikit-learn's), and this process's peak
   memory so far.
One thread per torch op (OMP_NUM_THREADS=1), as scripts/run.sh and the image run the server.
Run: flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/neighbours.py [--sizes 5000 20000 50000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one CPU thread per torch op, as the server runs

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core.glove import load_glove  # noqa: E402
from core.neighbours import CURVE_KS, honesty_curve, neighbour_indices, preservation  # noqa: E402
from core.projection import pca  # noqa: E402

K = 10


T = TypeVar("T")


def timed(fn: Callable[[], T], repeats: int) -> tuple[float, T]:
    """Median seconds of `repeats` calls after a warm-up call, and the last result."""
    result = fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def sklearn_kept(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    from sklearn.neighbors import NearestNeighbors

    before = NearestNeighbors(n_neighbors=K, metric="cosine", algorithm="brute").fit(x).kneighbors()[1]
    after = NearestNeighbors(n_neighbors=K).fit(y).kneighbors()[1]
    return (before[:, :, None] == after[:, None, :]).any(axis=2).sum(axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sklearn-most", type=int, default=20_000)
    args = parser.parse_args()
    wv = load_glove()
    print(f"{wv.name}, k = {K}, 2D PCA, torch threads {torch.get_num_threads()}")
    for n in args.sizes:
        x = wv.vectors[:n].numpy()
        y = pca(x, 2).coords
        ours, result = timed(partial(preservation, x, y, K), args.repeats)
        before, _ = timed(partial(neighbour_indices, x, K, "cosine"), args.repeats)
        after, _ = timed(partial(neighbour_indices, y, K), args.repeats)
        print(
            f"{n:>6,} words: of which {before * 1000:.1f} ms the 50D cosine search (torch blocks), "
            f"{after * 1000:.1f} ms the 2D search (scikit-learn k-d tree)"
        )
        if n <= args.sklearn_most:
            theirs, kept = timed(partial(sklearn_kept, x, y), args.repeats)
            print(
                f"{n:>6,} words: preservation {ours * 1000:8.1f} ms (core, torch blocks), "
                f"{theirs * 1000:8.1f} ms (scikit-learn NearestNeighbors); mean share kept {result.mean:.3f} "
                f"(scikit-learn's neighbours: {kept.mean() / K:.3f}; per-point counts equal on "
                f"{(kept == result.kept).mean():.1%} of words)"
            )
        else:
            print(f"{n:>6,} words: preservation {ours * 1000:8.1f} ms (core, torch blocks); share {result.mean:.3f}")
        seconds, curve = timed(partial(honesty_curve, x, y, CURVE_KS), 1)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux
        print(
            f"{n:>6,} words: honesty_curve at k = {CURVE_KS} in {seconds:.2f} s: trustworthiness "
            f"{', '.join(f'{v:.3f}' for v in curve.trust.values())}, kept "
            f"{', '.join(f'{v:.3f}' for v in curve.kept.values())}; this process's peak memory so far {peak:.2f} GiB"
        )


if __name__ == "__main__":
    main()
