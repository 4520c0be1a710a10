"""core.trustworthiness against scikit-learn where nothing ties, and against a brute-force count of its convention
(rank = 1 + how many points are strictly closer; projected neighbours by distance, then index) where much ties."""

import itertools
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.manifold import trustworthiness as sk_trustworthiness

from core.problems import Problem
from core.projection import pca
from core.trustworthiness import (
    _count_greater,
    _count_greater_torch,
    check_k,
    original_ranks,
    projected_neighbours,
    trustworthiness,
    trustworthiness_curve,
)


def gaussian(n: int, dim: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n float64 points in dim dimensions and their 2D PCA: no two distances tie."""
    x = np.random.default_rng(seed).normal(size=(n, dim))
    return x, pca(x, 2).coords


def brute_force(x: np.ndarray, y: np.ndarray, k: int) -> float:
    """Venna and Kaski's T(k) by the module's convention, pair by pair.

    Cosine similarities are correctly rounded sums (math.fsum), so rows with equal unit vectors get equal values
    whatever their position; equal directions are at distance 0, a zero row at distance 1 from every row.
    """
    n = len(x)
    norms = np.sqrt([math.fsum(v * v for v in row) for row in x])
    unit = x / np.where(norms > 0, norms, 1)[:, None]
    distance = np.array([[1 - math.fsum(a * b for a, b in zip(u, v, strict=True)) for v in unit] for u in unit])
    same = (unit[:, None, :] == unit[None, :, :]).all(axis=2) & (norms[:, None] > 0) & (norms[None, :] > 0)
    distance[same] = 0.0
    penalty = 0
    for i in range(n):
        d2 = ((y - y[i]) ** 2).sum(axis=1)
        d2[i] = np.inf
        for j in np.lexsort((np.arange(n), d2))[:k]:  # nearest first, equal distances by index
            others = np.delete(distance[i], i)
            rank = 1 + int(np.count_nonzero(others < distance[i, j]))
            penalty += max(0, rank - k)
    return 1.0 - penalty * (2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0)))


@pytest.mark.parametrize(
    ("n", "k", "dim"),
    [(3, 1, 4), (5, 2, 3), (10, 4, 6), (57, 5, 12), (300, 10, 20), (1000, 49, 30), (2000, 30, 50), (6000, 10, 50)],
)
def test_equals_scikit_learn_where_no_two_distances_tie(n, k, dim):
    x, y = gaussian(n, dim, seed=n)
    ours = trustworthiness(x, y, k)
    assert ours == pytest.approx(sk_trustworthiness(x, y, n_neighbors=k, metric="cosine"), abs=1e-9)


def test_equals_scikit_learn_for_a_3d_projection_and_float32_vectors():
    x, _ = gaussian(400, 16, seed=1)
    y = pca(x, 3).coords
    expected = sk_trustworthiness(x, y, n_neighbors=7, metric="cosine")
    assert trustworthiness(x, y, 7) == pytest.approx(expected, abs=1e-9)
    x32 = x.astype(np.float32)  # computed in float64 from the float32 values
    assert trustworthiness(x32, y, 7) == trustworthiness(x32.astype(np.float64), y, 7)
    assert trustworthiness(torch.from_numpy(x32), y, 7) == trustworthiness(x32, y, 7)


# Unit vectors with four entries of +-1/2 among six: every similarity is an exact multiple of 1/4 in any order of
# summation, so ties are ties in float64 too. Rows are one of twelve such directions times 1, 2 or 4 (the same unit
# vector), or zero.
PATTERNS = [
    np.array(signs) * np.array(mask)
    for mask in sorted({tuple(int(i in chosen) for i in range(6)) for chosen in itertools.combinations(range(6), 4)})
    for signs in itertools.product((1, -1), repeat=6)
]
DIRECTIONS = PATTERNS[::80]  # 12 of the 960
ROWS = st.one_of(st.just(None), st.tuples(st.integers(0, len(DIRECTIONS) - 1), st.sampled_from([1.0, 2.0, 4.0])))


@st.composite
def tied_clouds(draw) -> tuple[np.ndarray, np.ndarray, int]:
    """Few distinct directions (so many equal distances and duplicate rows), zero rows, a projection on a small
    integer grid (many equal distances and duplicate points), and a k that scikit-learn accepts."""
    n = draw(st.integers(3, 36))
    rows = draw(st.lists(ROWS, min_size=n, max_size=n))
    x = np.array([np.zeros(6) if row is None else DIRECTIONS[row[0]] * row[1] for row in rows], np.float64)
    y = np.array(draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=n, max_size=n)), float)
    return x, y, draw(st.integers(1, (n - 1) // 2))


@settings(max_examples=100, deadline=None)
@given(tied_clouds())
def test_ties_and_duplicate_rows_follow_the_stated_convention(cloud):
    x, y, k = cloud
    assert trustworthiness(x, y, k) == pytest.approx(brute_force(x, y, k), abs=1e-12)


def test_duplicate_rows_of_general_vectors_tie_exactly():
    """Matrix products round one column differently from an equal one elsewhere: duplicates are counted once each
    direction, so they still tie. Here a third of the rows repeat others, some doubled (the same unit vector)."""
    x, _ = gaussian(90, 8, seed=3)
    picks = np.random.default_rng(4).integers(0, 90, 45)
    x = np.concatenate([x, x[picks[:30]], 2 * x[picks[30:]]])
    y = pca(x, 2).coords + np.random.default_rng(5).normal(scale=1e-3, size=(len(x), 2))
    for k in (1, 5, 20):
        assert trustworthiness(x, y, k) == pytest.approx(brute_force(x, y, k), abs=1e-12)


def test_zero_rows_are_at_distance_one_from_every_row():
    x = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0], [-1.0, 0.2], [0.0, 0.0], [0.3, -1.0], [0.5, 0.4]])
    y = np.array([[0.0, 0.0], [0.1, 0.0], [0.3, 0.1], [2.0, 0.0], [0.2, 0.3], [5.0, 1.0], [1.0, 2.0]])
    ranks = original_ranks(x, projected_neighbours(y, 3))
    assert (ranks[[1, 4]] == 1).all()  # from a zero row every point is as far: each ranks first
    unit = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-300)
    similarity_to_first = unit @ unit[0]
    assert ranks[0, 0] == 1 + np.sum(similarity_to_first[[2, 3, 5, 6]] > 0)  # its nearest in 2D is the zero row 1
    assert trustworthiness(x, y, 3) == pytest.approx(brute_force(x, y, 3), abs=1e-12)
    assert trustworthiness(np.zeros((9, 4)), np.random.default_rng(0).normal(size=(9, 2)), 4) == 1.0


def test_blocks_and_progress_do_not_change_the_ranks():
    x, y = gaussian(101, 10, seed=7)
    neighbours = projected_neighbours(y, 6)
    whole = original_ranks(x, neighbours)
    seen = []
    blocked = original_ranks(x, neighbours, block=7, on_progress=lambda done, total: seen.append((done, total)))
    assert np.array_equal(blocked, whole)
    assert np.array_equal(original_ranks(x, neighbours, block=1), whole)
    assert seen == [(min(d, 101), 101) for d in range(7, 108, 7)]  # 15 blocks, the last one short


def test_the_curve_equals_one_call_per_k():
    x, y = gaussian(200, 12, seed=8)
    curve = trustworthiness_curve(x, y, (1, 5, 30, 99))
    assert list(curve) == [1, 5, 30, 99]
    for k, value in curve.items():
        assert value == trustworthiness(x, y, k)


def test_projected_neighbours_are_nearest_first_then_by_index():
    y = np.array([[0, 0], [1, 0], [0, 1], [-1, 0], [0, -1], [2, 0], [0, 0]], float)  # a cross and a duplicate
    near = projected_neighbours(y, 3)
    assert near[0].tolist() == [6, 1, 2]  # its duplicate at 0, then four at 1: the lowest indices
    assert near[6].tolist() == [0, 1, 2]
    assert near[5].tolist() == [1, 0, 6]  # 1 at distance 1, then 0 and 6 at 2
    grid = np.array(list(itertools.product(range(5), range(5))), float)[np.random.default_rng(1).permutation(25)]
    near = projected_neighbours(grid, 6)
    for i in range(25):
        d2 = ((grid - grid[i]) ** 2).sum(axis=1)
        d2[i] = np.inf
        assert near[i].tolist() == np.lexsort((np.arange(25), d2))[:6].tolist()


@pytest.mark.parametrize("k", [1, 4, 6])  # four thresholds per pass: one group, one exactly, one and a part
@pytest.mark.parametrize("weights", [np.ones(50, np.int64), np.random.default_rng(2).integers(1, 4, 50)])
def test_the_torch_count_equals_the_compiled_one(weights, k):
    rng = np.random.default_rng(3)
    sims = torch.from_numpy(np.round(rng.uniform(-1, 1, size=(9, 50)), 1))  # rounded: many equal values
    thresholds = sims[:, :k].clone()
    w = torch.from_numpy(weights)
    expected = ((sims[:, None, :] > thresholds[:, :, None]) * w).sum(dim=2)
    assert torch.equal(_count_greater(sims, thresholds, w), expected)
    assert torch.equal(_count_greater_torch(sims, thresholds, w), expected)


def test_the_ranks_are_the_same_where_torch_counts(monkeypatch):
    """What a gpu runs (torch's count), on the cpu: the same ranks, duplicate rows included."""
    x, _ = gaussian(60, 5, seed=9)
    x = np.concatenate([x, x[:20], np.zeros((3, 5))])
    neighbours = projected_neighbours(pca(x, 2).coords, 8)
    compiled = original_ranks(x, neighbours, block=16)
    monkeypatch.setattr("core.trustworthiness._count_greater", _count_greater_torch)
    assert np.array_equal(original_ranks(x, neighbours, block=16), compiled)


@pytest.mark.parametrize(("n", "k"), [(1, 1), (2, 1), (3, 0), (3, 2), (10, 5), (10, -1), (11, 6)])
def test_k_must_be_at_least_one_and_below_half_the_points(n, k):
    x, y = np.random.default_rng(0).normal(size=(n, 3)), np.random.default_rng(1).normal(size=(n, 2))
    assert check_k(k, n) is not None
    with pytest.raises(Problem) as raised:
        trustworthiness(x, y, k)
    assert raised.value.key == "trust_k"
    if k >= 1:
        with pytest.raises(ValueError, match="n_neighbors"):  # scikit-learn refuses the same
            sk_trustworthiness(x, y, n_neighbors=k)
    assert check_k(5, 11) is None and check_k(1, 3) is None


def test_refuses_what_is_not_one_cloud_of_finite_vectors():
    x, y = gaussian(20, 4, seed=0)
    with pytest.raises(ValueError, match="same points"):
        trustworthiness(x, y[:-1], 3)
    x[3, 1] = np.nan
    with pytest.raises(ValueError, match="finite"):
        trustworthiness(x, y, 3)
