"""Trustworthiness (Venna and Kaski 2001), exact, one block of rows at a time: memory grows with n, not n^2.

    T(k) = 1 - 2 / (n k (2n - 3k - 1)) * sum_i sum_{j in P_k(i)} max(0, r(i, j) - k)

P_k(i): the k nearest points to i in the projection (euclidean); r(i, j): j's rank among i's cosine distances in
the original space, 1 for the nearest. scikit-learn's `sklearn.manifold.trustworthiness` holds every pair's
distance, argsort and rank at once; here a block of rows' similarities is computed, the ranks of those points'
projected neighbours are counted from it (r(i, j) = 1 + how many points are closer), and the block is dropped.

Ties, which scikit-learn orders by an unstable sort, follow one convention:
- r(i, j) = 1 + the number of other points strictly closer to i than j: points at the same distance share the
  best rank (decided on float64 cosine similarities);
- rows with equal unit vectors (duplicates) are at distance 0 from one another, exactly;
- a zero row is at cosine distance 1 from every row, other zero rows included (scikit-learn's convention, and
  core.neighbours.cosine_neighbours'): from a zero row every point ranks 1;
- P_k(i) takes the nearest first, equal distances by the lower index.
Where no two distances tie, the result equals scikit-learn's `trustworthiness(..., metric="cosine")`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
import torch

from core.problems import Problem

K = 10  # neighbours per point, at first
BLOCK_BYTES = 32 * 2**20  # the (rows, distinct directions) float64 similarities held at once

OnProgress = Callable[[int, int], None]  # (points done, points in all)


def check_k(k: int, n_points: int) -> Problem | None:
    """Why T(k) cannot be computed for n_points (the formula needs 1 <= k < n / 2, as scikit-learn does), or None."""
    if not 1 <= k < n_points / 2:
        return Problem("trust_k", most=max(0, (n_points - 1) // 2), value=k)
    return None


def venna_kaski(ranks: np.ndarray, k: int) -> float:
    """T(k) from each point's projected neighbours' ranks in the original space, as scikit-learn computes it.

    Args:
        ranks: (n, >= k) int ranks of each point's projected neighbours, nearest in the projection first.
    """
    n = len(ranks)
    penalty = np.maximum(ranks[:, :k] - k, 0).sum()  # only neighbours that were not among the k nearest cost
    return float(1.0 - penalty * (2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0))))


def projected_neighbours(projected: np.ndarray, k: int, *, block_bytes: int = BLOCK_BYTES) -> np.ndarray:
    """Each point's k nearest other points by euclidean distance, nearest first, equal distances by lower index.

    scikit-learn's k-d tree finds k + 1 candidates; where the k-th and the (k + 1)-th are as far, the tree's choice
    among equals is arbitrary, and those rows are searched again by brute force.

    Args:
        projected: (n, dims), k < n.
    Returns:
        (n, k) int64 indices.
    """
    from sklearn.neighbors import NearestNeighbors

    y = np.asarray(projected, np.float64)  # (n, dims)
    near = NearestNeighbors(n_neighbors=k + 1, algorithm="kd_tree").fit(y).kneighbors(return_distance=False)
    near = _by_distance_then_index(y, np.arange(len(y)), near)  # (n, k + 1)
    d2 = _squared(y, np.arange(len(y)), near)
    tied = np.flatnonzero(d2[:, k - 1] == d2[:, k])
    rows = max(1, block_bytes // (8 * len(y) * (y.shape[1] + 2)))
    for start in range(0, len(tied), rows):
        at = tied[start : start + rows]
        near[at, :k] = _brute_force_neighbours(y, at, k)
    return near[:, :k]


def _squared(y: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """(r, c) squared euclidean distances from y[rows] to y[columns] (r, c), summed over dims in order."""
    return ((y[columns] - y[rows, None, :]) ** 2).sum(axis=2)


def _by_distance_then_index(y: np.ndarray, rows: np.ndarray, near: np.ndarray) -> np.ndarray:
    """near's columns reordered per row by squared distance from y[rows], then by index."""
    order = np.lexsort((near, _squared(y, rows, near)), axis=1)
    return np.take_along_axis(near, order, axis=1)


def _brute_force_neighbours(y: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """(r, k) the k nearest other points to y[rows], compared with every point: the convention, exactly."""
    d2 = ((y[None, :, :] - y[rows, None, :]) ** 2).sum(axis=2)  # (r, n)
    d2[np.arange(len(rows)), rows] = np.inf  # not itself
    kth = np.partition(d2, k - 1, axis=1)[:, k - 1 : k]  # (r, 1) the k-th smallest distance
    closer = d2 < kth
    equal = d2 == kth
    take = closer | (equal & (np.cumsum(equal, axis=1) <= k - closer.sum(axis=1, keepdims=True)))  # lower indices
    near = np.nonzero(take)[1].reshape(len(rows), k)  # (r, k) exactly k per row, by index
    return _by_distance_then_index(y, rows, near)


def _directions(original: np.ndarray | torch.Tensor) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct unit rows of `original`, which of them each row is, and how many rows share each.

    Returns:
        (m, dim) float64 distinct unit vectors (a zero row stays zero), (n,) int64, (m,) int64.
    """
    x = torch.as_tensor(original).detach().to("cpu", torch.float64)  # (n, dim)
    if not torch.isfinite(x).all():
        raise ValueError("trustworthiness needs finite vectors; some are nan or infinite.")
    unit = torch.nn.functional.normalize(x, dim=1).numpy()  # a zero row stays zero
    distinct, which, count = np.unique(unit, axis=0, return_inverse=True, return_counts=True)
    return distinct, which.reshape(-1), count


def original_ranks(
    original: np.ndarray | torch.Tensor,
    neighbours: np.ndarray,
    *,
    device: torch.device | str | None = None,
    block: int | None = None,
    on_progress: OnProgress | None = None,
) -> np.ndarray:
    """r(i, j): each point's rank of its neighbours j among its cosine distances in the original space, exactly.

    One block of rows at a time: their float64 similarities to every distinct direction, each neighbour's
    similarity as the threshold, and the count of points more similar (each direction weighted by how many rows
    share it), the point itself left out.

    Args:
        original: (n, dim) vectors; neighbours: (n, k) indices (the projected neighbours); device: where the
            similarities are computed (mps has no float64: the cpu instead); block: rows per block (default: as many
            as BLOCK_BYTES of similarities hold); on_progress: called as on_progress(points done, n) after each block.
    Returns:
        (n, k) int64 ranks, 1 for the nearest.
    """
    distinct, which, count = _directions(original)
    n, m = len(which), len(distinct)
    device = torch.device(device or "cpu")
    if device.type == "mps":
        device = torch.device("cpu")
    units = torch.from_numpy(distinct).to(device)  # (m, dim)
    direction = torch.from_numpy(which).to(device)  # (n,)
    weights = torch.from_numpy(count).to(device)  # (m,)
    zero = (units == 0).all(dim=1)  # (m,) the zero row's direction, if any
    neighbour_direction = direction[torch.as_tensor(neighbours, device=device)]  # (n, k)
    block = block or max(1, min(n, BLOCK_BYTES // (8 * m)))
    buffer = torch.empty(min(block, n), m, dtype=torch.float64, device=device)
    ranks = torch.empty(neighbour_direction.shape, dtype=torch.int64, device=device)
    for start in range(0, n, block):
        own = direction[start : start + block]  # (b,) each row's direction
        sims = torch.mm(units[own], units.T, out=buffer[: len(own)])  # (b, m)
        at = torch.arange(len(own), device=device)
        sims[at, own] = torch.where(zero[own], sims[at, own], torch.inf)  # own direction: distance 0, the nearest
        thresholds = sims.gather(1, neighbour_direction[start : start + block])  # (b, k)
        closer = _count_greater(sims, thresholds, weights)  # (b, k) points more similar than each neighbour
        closer -= (sims[at, own][:, None] > thresholds).long()  # ... less the point itself
        ranks[start : start + block] = closer + 1
        if on_progress:
            on_progress(start + len(own), n)
    return ranks.cpu().numpy()


def _count_greater(sims: torch.Tensor, thresholds: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """(b, k) sum of weights[c] over the columns c with sims[r, c] > thresholds[r, j].

    On the cpu a compiled loop (numba): torch needs k passes over (b, m) comparisons for it; elsewhere torch.
    """
    if sims.device.type != "cpu":
        return _count_greater_torch(sims, thresholds, weights)
    out = np.empty(thresholds.shape, np.int64)
    _count_kernel()(sims.numpy(), thresholds.numpy(), weights.numpy(), out)
    return torch.from_numpy(out)


def _count_greater_torch(sims: torch.Tensor, thresholds: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """_count_greater in torch, one neighbour at a time: k passes over (b, m) comparisons."""
    return torch.stack([((sims > t[:, None]) * weights).sum(dim=1) for t in thresholds.T], dim=1)  # (b, k)


# Not a cached result (ui.cache caches those): code, compiled once per process (numba keeps it on disk too).
@functools.cache
def _count_kernel():
    """The compiled counting loop, compiled (or read from numba's on-disk cache) on first use.

    Four thresholds per pass over a row: each similarity is read once for four comparisons (twice as fast at
    k = 100 as one pass per threshold); without duplicate rows the weights are left out, which the compiler
    vectorises better.
    """
    import numba

    @numba.njit(cache=True, nogil=True)
    def count_greater(sims, thresholds, weights, out):
        weighted = (weights != 1).any()
        k = thresholds.shape[1]
        for r in range(sims.shape[0]):
            row = sims[r]
            for j in range(0, k, 4):
                t0, t1 = thresholds[r, j], thresholds[r, min(j + 1, k - 1)]
                t2, t3 = thresholds[r, min(j + 2, k - 1)], thresholds[r, min(j + 3, k - 1)]
                c0 = c1 = c2 = c3 = 0
                if weighted:
                    for c in range(row.shape[0]):
                        v, w = row[c], weights[c]
                        c0 += w * (v > t0)
                        c1 += w * (v > t1)
                        c2 += w * (v > t2)
                        c3 += w * (v > t3)
                else:
                    for c in range(row.shape[0]):
                        v = row[c]
                        c0 += v > t0
                        c1 += v > t1
                        c2 += v > t2
                        c3 += v > t3
                for q, total in enumerate((c0, c1, c2, c3)):
                    if j + q < k:
                        out[r, j + q] = total

    return count_greater


def trustworthiness_curve(
    original: np.ndarray | torch.Tensor,
    projected: np.ndarray,
    ks: Sequence[int],
    *,
    device: torch.device | str | None = None,
    on_progress: OnProgress | None = None,
) -> dict[int, float]:
    """T(k) for each k in ks, from one pass over the original space (the largest k's neighbours hold the others').

    Args:
        original: (n, dim) vectors; projected: (n, dims) their coordinates; on_progress: on_progress(done, n).
    Raises:
        Problem("trust_k") for a k outside 1 <= k < n / 2.
    """
    n = len(original)
    if len(projected) != n:
        raise ValueError(f"original has {n} rows and projected {len(projected)}; they must be the same points.")
    for k in ks:
        if problem := check_k(k, n):
            raise problem
    neighbours = projected_neighbours(projected, max(ks))  # (n, max k)
    ranks = original_ranks(original, neighbours, device=device, on_progress=on_progress)
    return {k: venna_kaski(ranks, k) for k in ks}


def trustworthiness(
    original: np.ndarray | torch.Tensor,
    projected: np.ndarray,
    k: int = K,
    *,
    device: torch.device | str | None = None,
    on_progress: OnProgress | None = None,
) -> float:
    """T(k): scikit-learn's trustworthiness with metric="cosine", exact, in memory that grows with n, not n^2.

    Args:
        original: (n, dim) vectors; projected: (n, dims) their coordinates; on_progress: on_progress(done, n).
    """
    return trustworthiness_curve(original, projected, (k,), device=device, on_progress=on_progress)[k]
