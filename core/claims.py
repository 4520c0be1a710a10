"""What a figure's numbers say, as facts a sentence can state: which way a series goes, which entry leads, which pair
is closest, what T5's buckets do at a length. The pages pick their sentences from these, so a notice never states a
trend, a winner or a direction that the figure beside it contradicts (issue 41).

Pure functions of plain numbers: no torch, no streamlit. Values equal within `tolerance` count as equal, so a sentence
never calls a difference the figure's rounding cannot show a rise or a winner.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)

TOLERANCE = 0.005  # a change below this is "about the same": the notices print 3 decimals, or whole percents


@dataclass(frozen=True)
class Trend:
    """How a series goes from its first x to its last.

    direction: "rises" (last above first by at least the tolerance), "falls", or "flat".
    best_x: the x of the highest value (the first such x when several tie).
    peak: the highest value lies strictly inside (neither end) and above both ends by at least the tolerance.
    """

    direction: str
    first_x: float
    first: float
    last_x: float
    last: float
    best_x: float
    best: float
    peak: bool


def trend(series: Mapping[int, float] | Mapping[float, float], tolerance: float = TOLERANCE) -> Trend:
    """The direction from the first point to the last (x in the mapping's order), and where the highest value is.

    Args:
        series: {x: value}, at least one point, finite values.
    """
    if not series:
        raise ValueError("A trend needs at least one point.")
    xs, values = list(series), list(series.values())
    if not all(math.isfinite(v) for v in values):
        raise ValueError("A trend needs finite values.")
    change = values[-1] - values[0]
    direction = "flat" if abs(change) < tolerance else "rises" if change > 0 else "falls"
    best = max(range(len(values)), key=values.__getitem__)
    peak = 0 < best < len(values) - 1 and values[best] - max(values[0], values[-1]) >= tolerance
    return Trend(direction, xs[0], values[0], xs[-1], values[-1], xs[best], values[best], peak)


def leaders(scores: Mapping[K, float], tolerance: float = TOLERANCE) -> tuple[K, ...]:
    """The entries within `tolerance` of the highest score, highest first (a tie names them all). NaN never leads.

    Args:
        scores: {name: score}; () when no score is a number.
    """
    finite = {name: s for name, s in scores.items() if not math.isnan(s)}
    if not finite:
        return ()
    top = max(finite.values())
    return tuple(sorted((n for n, s in finite.items() if top - s < tolerance), key=lambda n: -finite[n]))


def highest(values: Mapping[K, float]) -> tuple[K, float]:
    """The entry with the highest value (the first in the mapping's order on a tie) and its value."""
    if not values:
        raise ValueError("highest needs at least one value.")
    key = max(values, key=values.__getitem__)
    return key, values[key]


@dataclass(frozen=True)
class Extremes:
    """The closest and the farthest pair (highest and lowest cosine) at one stage."""

    closest: tuple[int, int]
    closest_value: float
    farthest: tuple[int, int]
    farthest_value: float


def extremes(values: Mapping[tuple[int, int], float]) -> Extremes:
    """The pair with the highest value and the pair with the lowest (the first in the mapping's order on a tie).

    Args:
        values: {(a, b): cosine}, at least one pair.
    """
    if not values:
        raise ValueError("Extremes need at least one pair.")
    closest = max(values, key=values.__getitem__)
    farthest = min(values, key=values.__getitem__)
    return Extremes(closest, values[closest], farthest, values[farthest])


def mean_by_stage(curves: Mapping[tuple[int, int], Sequence[float] | np.ndarray]) -> list[float]:
    """The mean over pairs at each stage (every curve the same length)."""
    rows = list(curves.values())
    return [float(sum(row[s] for row in rows)) / len(rows) for s in range(len(rows[0]))]


def region_means(accuracy: Sequence[float], split: int) -> tuple[float, float]:
    """The mean accuracy before position `split` and from it on, NaN positions left out (NaN for a region with none).

    Args:
        accuracy: (length,) accuracy per position, NaN where the task scores nothing.
        split: the trained length: positions 0..split-1 are inside it.
    """

    def mean(part: Sequence[float]) -> float:
        seen = [a for a in part if not math.isnan(a)]
        return sum(seen) / len(seen) if seen else math.nan

    return mean(accuracy[:split]), mean(accuracy[split:])


@dataclass(frozen=True)
class BucketReach:
    """What T5's buckets do for the distances of one length, against the trained length's.

    farthest: the longest distance at this length (length - 1); its bucket.
    buckets_used: how many different buckets the distances 0..farthest fall in.
    unseen: how many of them no distance of the trained length fell in.
    shared_from: the first distance whose bucket it shares with a shorter distance (None: every distance its own).
    clips_from: the first distance of the last bucket; reaches_last: whether this length reaches it.
    """

    farthest: int
    bucket: int
    buckets_used: int
    unseen: int
    shared_from: int | None
    clips_from: int
    reaches_last: bool


def bucket_reach(buckets: Sequence[int], trained_len: int, length: int) -> BucketReach:
    """T5's buckets at `length` tokens after training on `trained_len`.

    Args:
        buckets: the bucket of each distance 0, 1, 2, ... (keys before the query), at least max(length,
            trained_len) of them and as far as the last bucket's first distance.
    """
    if len(buckets) < max(length, trained_len):
        raise ValueError("buckets must cover every distance of both lengths.")
    far = length - 1
    used = buckets[: far + 1]
    seen = set(buckets[:trained_len])
    shared = next((d for d in range(1, far + 1) if used[d] == used[d - 1]), None)
    last = max(buckets)
    clips_from = buckets.index(last)
    return BucketReach(far, used[far], len(set(used)), len(set(used) - seen), shared, clips_from, far >= clips_from)


@dataclass(frozen=True)
class Moments:
    """Each row's mean and (biased) variance, summed up: the largest |mean|, the least and the largest variance."""

    largest_mean: float
    least_var: float
    largest_var: float


def row_moments(rows: Sequence[Sequence[float]]) -> Moments:
    """The mean and variance of each row across its values (LayerNorm's, with 1/n), summed up over the rows.

    Args:
        rows: (n, d) numbers, n and d at least 1.
    """
    means, variances = [], []
    for row in rows:
        values = [float(v) for v in row]
        mean = sum(values) / len(values)
        means.append(mean)
        variances.append(sum((v - mean) ** 2 for v in values) / len(values))
    return Moments(max(abs(m) for m in means), min(variances), max(variances))


def spread(points: np.ndarray) -> float:
    """The root-mean-square distance of (n, dims) points from their centre: how big a layout or a cluster is drawn."""
    return float(np.sqrt(((points - points.mean(axis=0)) ** 2).sum(axis=1).mean()))


def size_ratio(points: np.ndarray, labels: np.ndarray) -> float:
    """How many times as spread cluster 1 is drawn as cluster 0 (core.neighbours.demo_clusters("sizes"): 10 in the
    data)."""
    return spread(points[labels == 1]) / spread(points[labels == 0])


def gap_ratio(points: np.ndarray, labels: np.ndarray) -> float:
    """How many times the gap between clusters 1 and 2 is drawn as wide as the gap between clusters 0 and 1, centre
    to centre (core.neighbours.demo_clusters("gaps"): 10 in the data)."""
    c0, c1, c2 = (points[labels == i].mean(axis=0) for i in range(3))
    return float(np.linalg.norm(c2 - c1) / np.linalg.norm(c1 - c0))


def column_pair(column: int, d_model: int, layout: str) -> int:
    """The sin/cos pair (its frequency index i) a column of the PE table belongs to: columns 2i and 2i+1 when
    "interleaved"; i and i + ceil(d/2) when "concatenated" (core.positional.sinusoidal_encoding's layouts)."""
    if layout == "interleaved":
        return column // 2
    n_sin = (d_model + 1) // 2
    return column if column < n_sin else column - n_sin


def axis_ends(frm: str, to: str) -> tuple[str, str]:
    """The words at the low and the high end of the axis v_to - v_from: a word's coordinate grows toward `to`."""
    return frm, to
