"""PCA against scikit-learn called directly; neighbours and analogies against brute-force numpy."""

import numpy as np
import pytest
import torch
from sklearn.decomposition import PCA

from core.glove import load_glove
from core.problems import Problem
from core.projection import analogy, difference_axes, nearest, pca
from core.vectors import WordVectors
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


def _vectors(rows: dict[str, list[float]]) -> WordVectors:
    return WordVectors(list(rows), torch.tensor(list(rows.values())), "hostile")


@pytest.mark.parametrize(
    ("x", "fit_on", "dims", "says"),
    [
        (np.ones((1, 4)), None, 2, "to fit on; there is 1 vector of 4 dimensions"),
        (np.eye(5, 1), None, 2, "there are 5 vectors of 1 dimensions"),
        (np.eye(5, 2), np.eye(5, 2), 3, "A 3D PCA needs at least 3 vectors"),
        (np.eye(3, 4), np.ones((5, 4)), 2, "All 5 vectors PCA is fitted on are the same"),
    ],
)
def test_pca_with_too_little_to_fit_on_says_so(x, fit_on, dims, says):
    with pytest.raises(Problem, match=says):
        pca(x, dims, fit_on=fit_on)


def test_pca_on_exactly_as_many_vectors_as_components_works():
    proj = pca(np.array([[0.0, 1.0, 2.0], [3.0, 1.0, 0.0]]), 2)
    assert proj.coords.shape == (2, 2) and np.isfinite(proj.explained_variance_ratio).all()


def test_cosine_against_a_zero_vector_is_refused_and_euclidean_still_works():
    wv = _vectors({"<pad>": [0.0, 0.0], "a": [1.0, 0.0], "b": [0.0, 2.0]})
    with pytest.raises(Problem, match="all zeros"):
        nearest(wv, wv.vectors[0], 2, exclude=[0])
    assert [w for w, _ in nearest(wv, wv.vectors[0], 2, metric="euclidean", exclude=[0])] == ["a", "b"]
    assert sorted(nearest(wv, wv.vectors[1], 5, exclude=[1])) == [("<pad>", 0.0), ("b", 0.0)]  # k above the words


def test_an_unknown_metric_is_a_problem(wv):
    with pytest.raises(Problem, match="metric must be one of cosine, euclidean"):
        nearest(wv, wv.vectors[0], 2, metric="manhattan")


def test_an_analogy_needs_a_fourth_word():
    three = _vectors({"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0]})
    with pytest.raises(Problem, match="only 3 words"):
        analogy(three, "a", "b", "c")
    four = _vectors({"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0], "d": [0.5, 2.0]})
    assert [w for w, _ in analogy(four, "a", "b", "c")] == ["d"]


@pytest.mark.parametrize(
    ("x_pair", "y_pair", "says"),
    [
        (("king", "king"), ("man", "woman"), "The x axis, king − king, has length 0"),
        (("man", "woman"), ("twin", "king"), "The y axis, king − twin, has length 0"),  # same vector, other word
    ],
)
def test_an_axis_of_length_zero_is_refused(x_pair, y_pair, says):
    wv = _vectors({"man": [0.0, -1.0], "woman": [0.0, 1.0], "king": [1.0, -1.0], "twin": [1.0, -1.0]})
    with pytest.raises(Problem, match=says):
        difference_axes(wv, ["man"], x_pair, y_pair)
