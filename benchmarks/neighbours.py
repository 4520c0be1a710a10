"""How honest a projection is, and what it costs: core.neighbours on the bundled GloVe's most frequent words.

For 5,000 and 20,000 words, k = 10, a 2D PCA projection (core.projection.pca, fitted on the same words):
1. core.neighbours.preservation: each word's 10 nearest by cosine in 50D (exact, torch blocks:
   core.cloud.exact_neighbours) and by euclidean distance in 2D (exact, scikit-learn's k-d tree), then the overlap. Median of --repeats runs, after one warm-up.
   Beside it, the same two searches with scikit-learn's NearestNeighbors (brute-force cosine in 50D, a k-d tree
   in 2D), which must find the same neighbours.
2. scikit-learn's trustworthiness (metric cosine), which holds three (n, n) tables of 8 bytes: it is run only up to
   --trust-most points (default 10,000); above that the script prints the memory it would need instead.
One thread per torch op (OMP_NUM_THREADS=1), as scripts/run.sh and the image run the server.
Run: flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/neighbours.py [--sizes 5000 20000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one CPU thread per torch op, as the server runs

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core.glove import load_glove  # noqa: E402
from core.neighbours import neighbour_indices, preservation, trustworthiness  # noqa: E402
from core.projection import pca  # noqa: E402

K = 10


def timed(fn, repeats: int) -> tuple[float, object]:
    """Median seconds of `repeats` calls after a warm-up call, and the last result."""
    fn()
    times, result = [], None
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
    parser.add_argument("--trust-most", type=int, default=10_000)
    args = parser.parse_args()
    wv = load_glove()
    print(f"{wv.name}, k = {K}, 2D PCA, torch threads {torch.get_num_threads()}")
    for n in args.sizes:
        x = wv.vectors[:n].numpy()
        y = pca(x, 2).coords
        ours, result = timed(lambda x=x, y=y: preservation(x, y, K), args.repeats)
        before, _ = timed(lambda x=x: neighbour_indices(x, K, "cosine"), args.repeats)
        after, _ = timed(lambda y=y: neighbour_indices(y, K), args.repeats)
        theirs, kept = timed(lambda x=x, y=y: sklearn_kept(x, y), args.repeats)
        print(
            f"{n:>6,} words: of which {before * 1000:.1f} ms the 50D cosine search (torch blocks), "
            f"{after * 1000:.1f} ms the 2D search (scikit-learn k-d tree)"
        )
        print(
            f"{n:>6,} words: preservation {ours * 1000:8.1f} ms (core, torch blocks), "
            f"{theirs * 1000:8.1f} ms (scikit-learn NearestNeighbors); mean share kept {result.mean:.3f} "
            f"(scikit-learn's neighbours: {kept.mean() / K:.3f}; per-point counts equal on "
            f"{(kept == result.kept).mean():.1%} of words)"
        )
        if n <= args.trust_most:
            seconds, value = timed(lambda x=x, y=y: trustworthiness(x, y, K, most=None), 1)
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux
            print(
                f"{n:>6,} words: trustworthiness {value:.4f} in {seconds:.2f} s (scikit-learn, metric cosine); "
                f"this process's peak memory so far {peak:.1f} GiB"
            )
        else:
            print(
                f"{n:>6,} words: trustworthiness not run: scikit-learn would hold three {n:,} x {n:,} tables of "
                f"8 bytes, {24 * n * n / 2**30:.1f} GiB (--trust-most {n} runs it)"
            )


if __name__ == "__main__":
    main()
