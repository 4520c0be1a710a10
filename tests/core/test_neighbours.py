"""Neighbour preservation against a brute-force numpy count; trustworthiness as scikit-learn returns it; the sweep."""

import numpy as np
import pytest
from sklearn.manifold import trustworthiness as sk_trustworthiness

from core.cloud import CloudConfig, project
from core.neighbours import (
    MAX_TRUST_POINTS,
    check_sweep,
    layouts_every,
    neighbour_indices,
    perplexity_sweep,
    preservation,
    trustworthiness,
)
from core.problems import Problem
from core.projection import pca

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


def test_trustworthiness_is_scikit_learns():
    assert trustworthiness(X, Y, 5) == sk_trustworthiness(X, Y, n_neighbors=5, metric="cosine")


def test_trustworthiness_refuses_what_it_cannot_or_should_not_compute():
    with pytest.raises(Problem) as raised:
        trustworthiness(X, Y, 40)  # k must stay below half the points
    assert raised.value.key == "trust_k"
    big = np.zeros((MAX_TRUST_POINTS + 1, 2))
    with pytest.raises(Problem) as raised:
        trustworthiness(big, big, 5)
    assert raised.value.key == "trust_too_many"


@pytest.mark.parametrize("k", [0, 80, 101])
def test_bad_k_says_what_to_change(k):
    with pytest.raises(Problem) as raised:
        preservation(X, Y, k)
    assert raised.value.key == "knn_k"


@pytest.mark.parametrize("perplexity", [80, 500])
def test_perplexity_at_or_above_the_number_of_points_is_refused(perplexity):
    problem = check_sweep(CloudConfig(), [5, perplexity], len(X))
    assert problem is not None and problem.key == "tsne_perplexity"
    with pytest.raises(Problem):
        perplexity_sweep(X, CloudConfig(iterations=260), [5, perplexity])


def test_perplexity_sweep_is_one_tsne_per_perplexity_with_the_same_seed():
    cfg = CloudConfig(method="t-SNE", iterations=260, seed=1)
    steps = []
    layouts = perplexity_sweep(X, cfg, [5, 10], progress=lambda step, _: steps.append(step))
    assert len(layouts) == 2 and all(layout.shape == (80, 2) for layout in layouts)
    assert np.array_equal(layouts[1], project(X, CloudConfig(method="t-SNE", iterations=260, seed=1, perplexity=10)))
    assert max(steps) == 2 * 260


def test_intermediate_layouts_every_n_iterations():
    kept, snapshot = layouts_every(50)
    final = project(X, CloudConfig(method="t-SNE", perplexity=10, iterations=300), snapshot=snapshot)
    assert [i for i, _ in kept] == [50, 100, 150, 200, 250, 300]
    assert all(layout.shape == final.shape for _, layout in kept)
    assert not np.array_equal(kept[0][1], kept[-1][1])  # it moved
