"""Neighbour preservation against a brute-force numpy count; both measures as k grows against core.preservation and
core.trustworthiness; the sweep."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.cloud import CloudConfig, project
from core.neighbours import (
    CURVE_KS,
    check_sweep,
    cosine_neighbours,
    curve_ks,
    demo_clusters,
    honesty_curve,
    layouts_every,
    neighbour_indices,
    perplexity_sweep,
    preservation,
    warm_up,
)
from core.problems import Problem
from core.projection import pca
from core.trustworthiness import trustworthiness

RNG = np.random.default_rng(0)
X = RNG.normal(size=(80, 12))
Y = pca(X, 2).coords


def brute_force_kept(original: np.ndarray, projected: np.ndarray, k: int) -> np.ndarray:
    """Every pair's cosine and euclidean distance in float64, sorted, the point itself left out."""
    unit = original / np.linalg.norm(original, axis=1, keepdims=True)
    cos_d = 1 - unit @ unit.T
    euc_d = np.linalg.norm(projected[:, None, :] - projected[None, :, :], axis=2)
    np.fill_diagonal(cos_d, np.inf)
    np.fill_diagonal(euc_d, np.inf)
    kept = []
    for i in range(len(original)):
        kept.append(len(set(np.argsort(cos_d[i])[:k]) & set(np.argsort(euc_d[i])[:k])))
    return np.array(kept)


@pytest.mark.parametrize("k", [1, 5, 10])
def test_preservation_equals_a_brute_force_count(k):
    result = preservation(X, Y, k)
    expected = brute_force_kept(X, Y, k)
    assert np.array_equal(result.kept, expected)
    assert result.mean == pytest.approx(expected.mean() / k)
    assert np.allclose(result.share, expected / k)


def test_a_projection_that_keeps_everything_keeps_every_neighbour():
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    assert preservation(X, unit, 5).mean == 1.0  # euclidean order on unit rows is cosine order


def test_neighbour_indices_leave_the_point_out():
    near = neighbour_indices(Y, 3)
    assert near.shape == (80, 3) and not (near == np.arange(80)[:, None]).any()


def test_cosine_neighbours_across_blocks_equal_a_numpy_sort():
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    sims = unit @ unit.T
    np.fill_diagonal(sims, -np.inf)
    expected = np.argsort(-sims, axis=1)[:, :4]
    assert np.array_equal(cosine_neighbours(X, 4, block=7), expected)  # 12 blocks, the last one short


def test_euclidean_neighbours_in_many_dimensions_equal_a_numpy_sort():
    d = np.linalg.norm(X[:, None, :] - X[None, :, :], axis=2)
    np.fill_diagonal(d, np.inf)
    assert np.array_equal(neighbour_indices(X, 3), np.argsort(d, axis=1)[:, :3])


def test_the_curve_is_both_measures_at_each_k():
    x, y = X[:60], Y[:60]  # k = 30 needs more than 60 points: left out by curve_ks
    ks = curve_ks(len(x))
    assert ks == (5, 10) and curve_ks(201) == CURVE_KS
    steps = []
    curve = honesty_curve(x, y, ks, on_progress=lambda done, n: steps.append((done, n)))
    for k in ks:
        assert curve.kept[k] == pytest.approx(preservation(x, y, k).mean, abs=1e-12)
        assert curve.trust[k] == trustworthiness(x, y, k)
    assert steps[-1] == (60, 60)


@settings(max_examples=30)
@given(n=st.integers(12, 120), dim=st.integers(3, 20), seed=st.integers(0, 2**32 - 1))
def test_neighbours_kept_from_ranks_equal_preservation_where_nothing_ties(n, dim, seed):
    x = np.random.default_rng(seed).normal(size=(n, dim))  # no two distances tie
    y = pca(x, 2).coords
    ks = tuple(k for k in (1, 2, 5, 10) if 2 * k < n)
    curve = honesty_curve(x, y, ks)
    assert curve.kept == pytest.approx({k: preservation(x, y, k).mean for k in ks}, abs=1e-12)


def test_the_curve_refuses_a_k_trustworthiness_cannot_take_and_other_points():
    with pytest.raises(Problem) as raised:
        honesty_curve(X, Y, (5, 40))  # k must stay below half the points
    assert raised.value.key == "trust_k"
    with pytest.raises(ValueError, match="same"):
        honesty_curve(X, Y[:-1], (5,))


def test_warm_up_runs_both_measures():
    warm_up()  # what scripts/warm_up.py may call before a server serves


@pytest.mark.parametrize("k", [0, 80, 101])
def test_bad_k_says_what_to_change(k):
    with pytest.raises(Problem) as raised:
        preservation(X, Y, k)
    assert raised.value.key == "knn_k"


@pytest.mark.parametrize("perplexity", [0, float("nan")])
def test_a_perplexity_no_cloud_accepts_is_refused(perplexity):
    problem = check_sweep(CloudConfig(), [perplexity], len(X))
    assert problem is not None and problem.key == "tsne_perplexity_positive"


@pytest.mark.parametrize("perplexity", [80, 500])
def test_perplexity_at_or_above_the_number_of_points_is_refused(perplexity):
    problem = check_sweep(CloudConfig(), [5, perplexity], len(X))
    assert problem is not None and problem.key == "tsne_perplexity"
    with pytest.raises(Problem):
        perplexity_sweep(X, CloudConfig(iterations=260), [5, perplexity])


def test_perplexity_sweep_is_one_tsne_per_perplexity_with_the_same_seed():
    cfg = CloudConfig(method="t-SNE", iterations=260, seed=1)
    steps = []
    layouts = perplexity_sweep(X[:40], cfg, [5, 10], progress=lambda step, _: steps.append(step))
    assert len(layouts) == 2 and all(layout.shape == (40, 2) for layout in layouts)
    assert not np.array_equal(layouts[0], layouts[1])
    assert max(steps) == 2 * 260 and steps == sorted(steps)  # one bar over both runs


def test_intermediate_layouts_every_n_iterations():
    kept, snapshot = layouts_every(50)
    cfg = CloudConfig(method="t-SNE", perplexity=10, iterations=300, seed=1)
    final = project(X[:40], cfg, snapshot=snapshot)
    assert [i for i, _ in kept] == [50, 100, 150, 200, 250, 300]
    assert all(layout.shape == final.shape for _, layout in kept)
    assert not np.array_equal(kept[0][1], kept[-1][1])  # it moved
    assert np.array_equal(project(X[:40], cfg), final)  # watching does not change the result


def test_demo_clusters_have_the_sizes_and_gaps_they_promise():
    x, labels = demo_clusters("sizes", n_per_cluster=50, dim=20)
    assert x.shape == (100, 20) and np.array_equal(labels, np.repeat([0, 1], 50))
    spread = [np.linalg.norm(x[labels == i] - x[labels == i].mean(0), axis=1).mean() for i in (0, 1)]
    assert 7 < spread[1] / spread[0] < 13  # one cluster 10 times as spread
    x, labels = demo_clusters("gaps", n_per_cluster=50, dim=20)
    centres = [x[labels == i].mean(0) for i in range(3)]
    near, far = np.linalg.norm(centres[1] - centres[0]), np.linalg.norm(centres[2] - centres[1])
    assert 8 < far / near < 12  # the third cluster 10 times as far
    with pytest.raises(ValueError):
        demo_clusters("rings")
