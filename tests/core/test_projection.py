"""PCA against scikit-learn called directly; neighbours and analogies against brute-force numpy."""

import numpy as np
import pytest
from sklearn.decomposition import PCA

from core.glove import load_glove
from core.projection import analogy, difference_axes, nearest, pca
from tests.fixtures import FIXTURES


@pytest.fixture(scope="module")
def wv():
    return load_glove(FIXTURES.joinpath("tiny_glove.4d.txt").read_bytes(), name="tiny")


@pytest.fixture(scope="module")
def glove():
    return load_glove()


def test_pca_equals_sklearn_up_to_the_fixed_sign():
    x = np.random.default_rng(0).normal(size=(30, 8))
    ours = pca(x, 3)
    ref = PCA(3, svd_solver="full").fit(x)
    np.testing.assert_allclose(ours.explained_variance_ratio, ref.explained_variance_ratio_)
    signs = np.sign((ours.coords * ref.transform(x)).sum(0))
    np.testing.assert_allclose(ours.coords, ref.transform(x) * signs, atol=1e-10)
    assert (ours.components[np.arange(3), np.abs(ours.components).argmax(1)] > 0).all()


def test_pca_fitted_on_a_background_projects_other_points():
    rng = np.random.default_rng(1)
    background, x = rng.normal(size=(100, 5)), rng.normal(size=(4, 5))
    ref = PCA(2, svd_solver="full").fit(background)
    ours = pca(x, 2, fit_on=background)
    np.testing.assert_allclose(np.abs(ours.coords), np.abs(ref.transform(x)), atol=1e-10)


def brute_force(matrix: np.ndarray, q: np.ndarray, k: int, exclude: list[int], metric: str) -> list[int]:
    if metric == "cosine":
        scores = matrix @ q / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(q) + 1e-30)
    else:
        scores = -np.linalg.norm(matrix - q, axis=1)
    scores[exclude] = -np.inf
    return list(np.argsort(-scores, kind="stable")[:k])


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_neighbours_equal_brute_force_on_real_glove(glove, metric):
    matrix = glove.vectors.numpy()[:20_000]
    sub = type(glove)(glove.itos[:20_000], glove.vectors[:20_000], "top 20k")
    q = sub.stoi["frog"]
    ours = [w for w, _ in nearest(sub, sub.vectors[q], 10, metric=metric, exclude=[q])]
    assert ours == [sub.itos[i] for i in brute_force(matrix, matrix[q].astype(np.float64), 10, [q], metric)]


def test_analogy_on_real_glove_finds_queen(glove):
    words = [w for w, _ in analogy(glove, "man", "woman", "king")]
    assert words[0] == "queen"
    assert not {"man", "woman", "king"} & set(words)


def test_analogy_equals_brute_force_3cosadd(wv):
    unit = wv.vectors.numpy() / np.linalg.norm(wv.vectors.numpy(), axis=1, keepdims=True)
    a, b, c = (wv.stoi[w] for w in ("boy", "girl", "prince"))
    expected = brute_force(unit, unit[b] - unit[a] + unit[c], 3, [a, b, c], "cosine")
    assert [w for w, _ in analogy(wv, "boy", "girl", "prince", 3)] == [wv.itos[i] for i in expected]
    assert wv.itos[expected[0]] == "princess"


def test_difference_axes_project_on_normalised_differences(wv):
    coords = difference_axes(wv, ["queen", "man"], ("man", "woman"), ("boy", "king"))
    x_axis = np.array([0, 2, 0, 0]) / 2
    y_axis = np.array([1.5, 0, 0, 0.2]) / np.linalg.norm([1.5, 0, 0, 0.2])
    np.testing.assert_allclose(coords[0], [np.dot([1, 1, 0, 0.2], x_axis), np.dot([1, 1, 0, 0.2], y_axis)], rtol=1e-6)
    np.testing.assert_allclose(coords[1], [np.dot([0, -1, 0, 0.1], x_axis), np.dot([0, -1, 0, 0.1], y_axis)], rtol=1e-6)
