"""How honest a projection is: which of each word's nearest neighbours survive it.

kept(i) = |N_k(x_i) & N_k(y_i)| / k, with N_k(x_i) the k nearest rows by cosine in the original space and N_k(y_i)
the k nearest by euclidean distance in the projection, the point itself left out of both. Trustworthiness (Venna
and Kaski 2001, core.trustworthiness) also penalises projected neighbours that were far away in the original.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch

from core import trustworthiness
from core.cloud import CloudConfig, Progress, exact_neighbours, project
from core.problems import Problem
from core.trustworthiness import OnProgress
from core.vectors import unit_rows

K = 10  # neighbours per point compared, at first
MAX_K = 100
CURVE_KS = (5, 10, 30, 100)  # the ks at which both measures are compared across methods
SWEEP = (5.0, 30.0, 100.0)

Snapshot = Callable[[int, np.ndarray], None]  # (iteration, (n, dims) layout so far)


@dataclass(frozen=True, eq=False)
class Preservation:
    """kept: (n,) how many of each point's k original neighbours are among its k projected ones (0..k)."""

    k: int
    kept: np.ndarray

    @property
    def share(self) -> np.ndarray:
        """(n,) kept / k, per point."""
        return self.kept / self.k

    @property
    def mean(self) -> float:
        """The mean share over every point."""
        return float(self.kept.mean() / self.k)


def check_k(k: int, n_points: int) -> Problem | None:
    """Why k neighbours cannot be asked of n_points, or None."""
    if not 1 <= k <= min(MAX_K, n_points - 1):
        return Problem("knn_k", most=min(MAX_K, n_points - 1), value=k)
    return None


def cosine_neighbours(x: np.ndarray, k: int, *, block: int = 1024) -> np.ndarray:
    """Each row's k nearest other rows by cosine, exact: unit rows, one (block, n) product at a time, top k.

    One buffer is reused for every block, and cosine needs no squared norms: about twice as fast as
    core.cloud.exact_neighbours on unit rows and faster than scikit-learn's brute-force cosine search
    (benchmarks/neighbours.py prints both).

    Args:
        x: (n, dim)
    Returns:
        (n, k) int64 indices, most similar first, the row itself left out.
    """
    unit = unit_rows(torch.from_numpy(np.asarray(x, np.float32)))  # (n, dim); subnormal rows too
    n = len(unit)
    out = torch.empty(n, k, dtype=torch.long)
    buffer = torch.empty(min(block, n), n)
    columns = unit.T.contiguous()  # (dim, n)
    for start in range(0, n, block):
        rows = unit[start : start + block]  # (b, dim)
        sims = torch.mm(rows, columns, out=buffer[: len(rows)])  # (b, n)
        sims[torch.arange(len(rows)), torch.arange(start, start + len(rows))] = -torch.inf  # not itself
        out[start : start + len(rows)] = sims.topk(k, dim=1).indices
    return out.numpy()


def neighbour_indices(x: np.ndarray, k: int, metric: str = "euclidean") -> np.ndarray:
    """Each row's k nearest other rows, exact, nearest first.

    Args:
        x: (n, dim); metric: "cosine" (cosine_neighbours, for the original space) or "euclidean" (for a
            projection: scikit-learn's NearestNeighbors, a k-d tree in 2D or 3D; core.cloud.exact_neighbours above).
    Returns:
        (n, k) int indices, the row itself left out.
    """
    if metric == "cosine":
        return cosine_neighbours(x, k)
    if metric != "euclidean":
        raise ValueError(f"metric must be 'cosine' or 'euclidean'; it is {metric!r}.")
    x = np.asarray(x, np.float32)
    if x.shape[1] <= 3:
        from sklearn.neighbors import NearestNeighbors

        return NearestNeighbors(n_neighbors=k).fit(x).kneighbors(return_distance=False)  # without the point itself
    return exact_neighbours(x, k + 1)[0][:, 1:]  # column 0 is the row itself


def preservation(original: np.ndarray, projected: np.ndarray, k: int = K) -> Preservation:
    """How many of each point's k nearest neighbours (cosine, original space) stay among its k nearest in the
    projection (euclidean).

    Args:
        original: (n, dim) vectors; projected: (n, 2 or 3) their coordinates.
    """
    problem = check_k(k, len(original))
    if problem:
        raise problem
    before = neighbour_indices(original, k, "cosine")  # (n, k)
    after = neighbour_indices(projected, k, "euclidean")  # (n, k)
    kept = (before[:, :, None] == after[:, None, :]).any(axis=2).sum(axis=1)  # (n,)
    return Preservation(k, kept)


@dataclass(frozen=True, eq=False)
class Curve:
    """Trustworthiness T(k) and the mean share of neighbours kept, at each k of a projection's curve."""

    trust: dict[int, float]
    kept: dict[int, float]


def curve_ks(n_points: int, ks: Sequence[int] = CURVE_KS) -> tuple[int, ...]:
    """The ks a cloud of n_points can be measured at: trustworthiness needs k below half the points."""
    return tuple(k for k in ks if trustworthiness.check_k(k, n_points) is None)


def honesty_curve(
    original: np.ndarray,
    projected: np.ndarray,
    ks: Sequence[int] = CURVE_KS,
    *,
    device: torch.device | str | None = None,
    on_progress: OnProgress | None = None,
) -> Curve:
    """Trustworthiness and neighbours kept at each k, from one pass over the original space.

    Each point's max(ks) nearest in the projection and their ranks among its cosine distances in the original space
    (core.trustworthiness: r = 1 + how many points are closer). Of a point's k nearest in the projection, one is kept
    when its rank is at most k: fewer than k points are closer to the point in the original space. Where no two
    distances tie, kept[k] equals preservation(original, projected, k).mean.

    Args:
        original: (n, dim) vectors; projected: (n, dims) their coordinates; on_progress: on_progress(done, n).
    Raises:
        Problem("trust_k") for a k outside 1 <= k < n / 2.
    """
    if len(projected) != len(original):
        raise ValueError(f"original has {len(original)} rows and projected {len(projected)}; they must be the same.")
    for k in ks:
        if problem := trustworthiness.check_k(k, len(original)):
            raise problem
    near = trustworthiness.projected_neighbours(projected, max(ks))  # (n, max k), nearest first
    ranks = trustworthiness.original_ranks(original, near, device=device, on_progress=on_progress)  # (n, max k)
    return Curve(
        trust={k: trustworthiness.venna_kaski(ranks, k) for k in ks},
        kept={k: float((ranks[:, :k] <= k).sum() / (len(ranks) * k)) for k in ks},
    )


def warm_up(points: int = 50) -> None:
    """Both measures once on a few random points: a process loads core.trustworthiness's compiled counting loop
    (from numba's on-disk cache, compiled there on a machine's first use) before a learner's first measure does."""
    x = np.random.default_rng(0).standard_normal((points, 8))  # (points, 8)
    preservation(x, x[:, :2], 5)
    honesty_curve(x, x[:, :2], (5,))


def check_sweep(cfg: CloudConfig, perplexities: Sequence[float], n_points: int) -> Problem | None:
    """The first perplexity that cannot run t-SNE on n_points (CloudConfig's own rules), or None."""
    for p in perplexities:
        try:
            problem = replace(cfg, method="t-SNE", perplexity=float(p)).problem_with(n_points)
        except Problem as refused:  # no cloud accepts it (0, negative, nan)
            return refused
        if problem:
            return problem
    return None


def perplexity_sweep(
    x: np.ndarray,
    cfg: CloudConfig,
    perplexities: Sequence[float] = SWEEP,
    progress: Progress | None = None,
) -> list[np.ndarray]:
    """t-SNE at each perplexity with cfg's other settings (the same seed, so the same PCA start): small multiples.

    Args:
        progress: called as progress(step, 0.0) with the steps of every run counted one after the other.
    Returns:
        one (n, cfg.dims) layout per perplexity.
    """
    problem = check_sweep(cfg, perplexities, len(x))
    if problem:
        raise problem
    layouts = []
    for i, p in enumerate(perplexities):
        one = replace(cfg, method="t-SNE", perplexity=float(p))
        layouts.append(project(x, one, _offset(progress, i * one.iterations) if progress else None))
    return layouts


def sweep_in_steps(
    x: np.ndarray, cfg: CloudConfig, perplexities: Sequence[float], *, on_step: Callable[[int, int], None]
) -> list[np.ndarray]:
    """`perplexity_sweep` reporting as core.jobs.in_child's work does, on_step(step, every run's steps)."""
    total = len(perplexities) * cfg.iterations
    return perplexity_sweep(x, cfg, perplexities, progress=lambda step, _: on_step(step, total))


def _offset(progress: Progress, offset: int) -> Progress:
    """progress, with `offset` steps added: one run of a sweep reporting after the runs before it."""
    return lambda step, _: progress(offset + step, 0.0)


DEMOS = ("sizes", "gaps")


def demo_clusters(kind: str, n_per_cluster: int = 200, dim: int = 50, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian clusters whose t-SNE picture misleads (Wattenberg, Viegas and Johnson, "How to Use t-SNE
    Effectively", Distill 2016), for the perplexity sweep.

    "sizes": two clusters 30 radii apart, one 10 times as spread as the other (a unit Gaussian's radius is about
    sqrt(dim)); t-SNE draws them about the same size.
    "gaps": three unit clusters, the second 5 radii from the first, the third 50 radii beyond the second; the gaps
    t-SNE draws do not keep that ratio of 10.

    Returns:
        (n, dim) float64 points and (n,) int cluster labels.
    """
    rng = np.random.default_rng(seed)
    direction = np.zeros(dim)
    direction[0] = 1.0
    spreads: tuple[float, ...]
    centres: tuple[float, ...]
    if kind == "sizes":
        spreads, centres = (1.0, 10.0), (0.0, 30.0 * math.sqrt(dim))
    elif kind == "gaps":
        spreads, centres = (1.0, 1.0, 1.0), (0.0, 5.0 * math.sqrt(dim), 55.0 * math.sqrt(dim))
    else:
        raise ValueError(f"kind must be one of {DEMOS}; it is {kind!r}.")
    x = np.concatenate(
        [c * direction + s * rng.normal(size=(n_per_cluster, dim)) for s, c in zip(spreads, centres, strict=True)]
    )
    return x, np.repeat(np.arange(len(spreads)), n_per_cluster)


def layouts_every(every: int) -> tuple[list[tuple[int, np.ndarray]], Snapshot]:
    """A list and a snapshot callback that keeps a copy of the layout every `every` iterations into it."""
    kept: list[tuple[int, np.ndarray]] = []

    def snapshot(iteration: int, layout: np.ndarray) -> None:
        if iteration % every == 0:
            kept.append((iteration, np.array(layout, np.float32)))

    return kept, snapshot
