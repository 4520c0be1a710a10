"""The cloud: rows and counts, neighbours against brute-force numpy, deterministic projections, bad settings."""

import numpy as np
import pytest

from core import cloud
from core.cloud import CloudConfig
from core.glove import load_glove
from figures.cloud import cloud_figure


@pytest.fixture(scope="module")
def glove():
    return load_glove()


def test_cloud_rows_are_the_most_frequent_then_the_extra_words_outside_them(glove):
    rows, added = cloud.cloud_rows(glove, 500, ["the", "queen", "zygote", "queen", "notaword"])
    assert rows[:500] == list(range(500))
    assert added == 2 and [glove.itos[r] for r in rows[500:]] == ["queen", "zygote"]  # "the" is row 0 already


def test_a_cloud_larger_than_the_vocabulary_is_the_whole_vocabulary():
    tiny = load_glove(b"a 1 0\nb 0 1\nc 1 1\n", name="tiny")
    assert cloud.cloud_rows(tiny, 500, ["c"]) == ([0, 1, 2], 0)


def test_neighbours_are_brute_force_cosine_over_the_whole_vocabulary(glove):
    x = glove.vectors.numpy().astype(np.float64)
    unit = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    sims = unit @ unit[glove.stoi["queen"]]
    sims[glove.stoi["queen"]] = -np.inf
    best = np.argsort(-sims)[:10]
    ours = cloud.neighbours(glove, "queen", 10)
    assert [w for w, _ in ours] == [glove.itos[i] for i in best]
    np.testing.assert_allclose([s for _, s in ours], sims[best], atol=1e-5)
    assert max(glove.stoi[w] for w, _ in ours) > 5000  # found outside any cloud of frequent words


@pytest.mark.parametrize("method", ["t-SNE", "UMAP"])
def test_projections_are_deterministic_for_a_seed_and_report_progress(method):
    x = np.random.default_rng(0).normal(size=(120, 10))
    cfg = CloudConfig(method, 2, perplexity=10, iterations=260, n_neighbors=5, seed=3)
    steps = []
    first = cloud.project(x, cfg, lambda step, _: steps.append(step))
    np.testing.assert_array_equal(first, cloud.project(x, cfg))
    assert first.shape == (120, 2) and first.dtype == np.float32
    assert steps[-1] == cfg.steps(120) and steps == sorted(steps)
    other = cloud.project(x, CloudConfig(method, 2, perplexity=10, iterations=260, n_neighbors=5, seed=4))
    assert not np.array_equal(first, other)


def test_pca_in_3d_matches_the_pca_of_the_projection_module():
    x = np.random.default_rng(1).normal(size=(50, 6))
    from core.projection import pca

    np.testing.assert_allclose(cloud.project(x, CloudConfig("PCA", 3)), pca(x, 3).coords, atol=1e-5)


@pytest.mark.parametrize(
    ("cfg", "n", "words"),
    [
        (CloudConfig("t-SNE", perplexity=200), 500, "below a third of the points"),
        (CloudConfig("t-SNE", iterations=200), 500, "more than 250 iterations"),
        (CloudConfig("UMAP", n_neighbors=600), 500, "fewer than the points"),
        (CloudConfig("UMAP", min_dist=2), 500, "between 0 and 1"),
        (CloudConfig("PCA", 3), 3, "more than 3 points"),
        (CloudConfig("LDA"), 500, "one of PCA"),
    ],
)
def test_invalid_settings_are_named(cfg, n, words):
    assert words in str(cloud.check(cfg, n))
    with pytest.raises(ValueError, match=words):
        cloud.project(np.zeros((n, 4)), cfg)


def test_suggestions_for_a_misspelling(glove):
    assert cloud.suggest(glove, "qeen")[0] == "queen"
    assert cloud.suggest(glove, "  ") == []


def test_groups_parse_resolve_and_report(glove):
    parsed = cloud.parse_groups("fruit: apple, Pear plum\n\nno colon here\ncolours: red blorptz")
    assert parsed == {"fruit": ["apple", "Pear", "plum"], "": ["no", "colon", "here"], "colours": ["red", "blorptz"]}
    groups = cloud.resolve_groups(glove, parsed)
    assert groups.words == {"fruit": ["apple", "pear", "plum"], "colours": ["red"]}
    assert groups.unknown == ["blorptz"] and groups.malformed == ["no", "colon", "here"]
    assert all(w in glove.stoi for ws in cloud.GROUPS.values() for w in ws)


def test_the_figure_draws_every_point_once_and_isolate_only_the_neighbourhood():
    coords = np.random.default_rng(0).normal(size=(40, 2)).astype(np.float32)
    words = [f"w{i}" for i in range(40)]
    roles = dict(chosen=[1, 2, 3], groups={"g": [3, 4, 5]}, found=2, neighbours=[5, 6])
    fig = cloud_figure(coords, words, **roles)
    assert sum(len(t.hovertext) for t in fig.data) == 40
    assert sorted(w for t in fig.data for w in t.hovertext) == sorted(words)
    by_name = {t.meta: list(t.hovertext) for t in fig.data}
    assert by_name["found"] == ["w2"] and by_name["neighbours"] == ["w5", "w6"] and by_name["g"] == ["w4"]
    assert fig.data[0].type == "scattergl"
    isolated = cloud_figure(coords, words, **roles, isolate=True)
    assert sorted(w for t in isolated.data for w in t.hovertext) == ["w2", "w5", "w6"]
    assert cloud_figure(np.zeros((40, 3), np.float32), words).data[0].type == "scatter3d"


def test_umaps_exact_neighbours_match_scikit_learns_brute_force_search():
    from sklearn.neighbors import NearestNeighbors

    x = np.random.default_rng(2).normal(size=(700, 12))
    indices, distances = cloud.exact_neighbours(x, 9, block=256)  # blocks that do not divide the rows
    ref_dist, ref_idx = NearestNeighbors(n_neighbors=9, algorithm="brute").fit(x).kneighbors(x)
    assert indices.dtype == np.int32 and distances.dtype == np.float32 and indices.shape == (700, 9)
    np.testing.assert_array_equal(indices[:, 0], np.arange(700))  # each point first, as UMAP expects
    np.testing.assert_array_equal(indices, ref_idx)
    np.testing.assert_allclose(distances, ref_dist, atol=1e-4)
