"""The cloud: rows and counts, neighbours against brute-force numpy, deterministic projections, bad settings."""

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import cloud
from core.cloud import CloudConfig
from core.glove import load_glove
from core.problems import Problem
from figures.cloud import cloud_figure
from tests.core.test_problems import zh_problems

TINY_40 = load_glove("".join(f"w{i} {i % 7} {i % 5 + 1}\n" for i in range(40)).encode(), name="forty")


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


@settings(max_examples=60)
@given(
    groups=st.dictionaries(st.sampled_from("ABC"), st.lists(st.integers(0, 39), unique=True), max_size=3),
    chosen=st.lists(st.integers(0, 39), unique=True, max_size=5),
    size=st.integers(0, 45),
    most=st.integers(0, 50),
)
def test_capped_groups_keep_the_chosen_words_and_fill_what_room_is_left(groups, chosen, size, most):
    """The cloud (cloud_rows: the frequent words, then every extra word) holds at most `most` words, unless the
    frequent ones and the chosen words alone pass it; nothing left out could have fitted (issue 40, item 7)."""
    wv = TINY_40
    resolved = cloud.Groups({name: [wv.itos[i] for i in rows] for name, rows in groups.items() if rows}, [], [])
    words = [wv.itos[i] for i in chosen]
    capped, past = cloud.cap_groups(wv, resolved, size, words, most)
    kept = [w for ws in capped.words.values() for w in ws]
    rows, _ = cloud.cloud_rows(wv, size, words + kept)
    frequent = min(size, len(wv))
    assert set(past).isdisjoint(kept) and set(past).isdisjoint(words)
    assert sorted(set(kept) | set(past)) == sorted({w for ws in resolved.words.values() for w in ws})
    assert all(wv.stoi[w] >= frequent for w in past)  # only words outside the frequent ones are left out
    floor = len(cloud.cloud_rows(wv, size, words)[0])  # the frequent and the chosen words, always kept
    assert len(rows) <= max(most, floor)
    assert not past or len(rows) == max(most, floor)  # a word left out only when the cloud is full


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


def test_a_tsne_in_a_child_process_is_the_same_layout_and_sends_its_progress_and_layouts_back():
    """Issue 55: maps ran in threads of the server, holding the GIL against its event loop; now in a child process
    (core.jobs.in_child), which must give what project() gives here, steps and intermediate layouts included."""
    from core.jobs import JobRunner, in_child

    x = np.random.default_rng(0).normal(size=(60, 10))
    cfg = CloudConfig("t-SNE", 2, perplexity=10, iterations=260, seed=3)
    layouts: list[tuple[int, np.ndarray]] = []
    runner = JobRunner()
    job = runner.submit("map", in_child(cloud.project_in_steps, x, cfg, snapshot=lambda *s: layouts.append(s)), 260)
    assert job.finished.wait(300) and job.error is None, job.error
    mine = []
    np.testing.assert_array_equal(job.result, cloud.project(x, cfg, snapshot=lambda *s: mine.append(s)))
    assert job.step == cfg.steps(60) and [i for i, _ in layouts] == [i for i, _ in mine]
    np.testing.assert_array_equal(layouts[-1][1], mine[-1][1])
    runner.shutdown()


def test_pca_in_3d_matches_the_pca_of_the_projection_module():
    x = np.random.default_rng(1).normal(size=(50, 6))
    from core.projection import pca

    np.testing.assert_allclose(cloud.project(x, CloudConfig("PCA", 3)), pca(x, 3).coords, atol=1e-5)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"method": "LDA"}, "one of PCA"),
        ({"dims": 4}, "2 or 3 dimensions"),
        ({"perplexity": 0.0}, "Perplexity must be above 0"),
        ({"perplexity": float("nan")}, "Perplexity must be above 0"),
        ({"iterations": 250}, "more than 250 iterations"),
        ({"learning_rate": -1.0}, "learning rate must be positive"),
        ({"learning_rate": float("nan")}, "learning rate must be positive"),
        ({"n_neighbors": 1}, "at least 2"),
        ({"min_dist": 2.0}, "between 0 and 1"),
        ({"min_dist": -0.1}, "between 0 and 1"),
    ],
)
def test_settings_no_cloud_accepts_are_refused_when_made(kwargs, words):
    with pytest.raises(Problem, match=words) as caught:
        CloudConfig(**kwargs)
    assert caught.value.key in zh_problems()  # translatable


@pytest.mark.parametrize(
    ("cfg", "shape", "words"),
    [
        (CloudConfig("t-SNE", perplexity=200), (500, 4), "below a third of the points"),
        (CloudConfig("UMAP", n_neighbors=600), (500, 4), "fewer than the points"),
        (CloudConfig("PCA", 3), (3, 4), "more than 3 points"),
        (CloudConfig("PCA", 3), (10, 2), "at least 3 dimensions; these have 2"),
        (CloudConfig("t-SNE", 2), (10, 1), "at least 2 dimensions; these have 1"),
        (CloudConfig("UMAP", 2), (0, 4), "the cloud has 0"),
    ],
)
def test_settings_that_do_not_suit_the_cloud_are_named(cfg, shape, words):
    assert words in str(cfg.problem_with(*shape))
    with pytest.raises(Problem, match=words):
        cloud.project(np.ones(shape), cfg)


def test_settings_that_suit_the_cloud_have_no_problem():
    assert CloudConfig("t-SNE", perplexity=3).problem_with(10, 2) is None
    assert CloudConfig("UMAP", n_neighbors=9).problem_with(10, 2) is None
    assert CloudConfig("PCA", 3).problem_with(4, 3) is None


@pytest.mark.parametrize("method", ["PCA", "t-SNE", "UMAP"])
def test_the_smallest_cloud_each_method_accepts_projects_to_finite_coordinates(method):
    """The fewest points the settings allow (perplexity 1 needs 4 points; UMAP's neighbours 2 need 3)."""
    x = np.random.default_rng(0).normal(size=(4, 3))
    cfg = CloudConfig(method, 2, perplexity=1.0, iterations=300, n_neighbors=2)
    assert cfg.problem_with(*x.shape) is None
    coords = cloud.project(x, cfg)
    assert coords.shape == (4, 2) and np.isfinite(coords).all()


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

    def with_roles(isolate: bool = False) -> go.Figure:
        return cloud_figure(
            coords, words, chosen=[1, 2, 3], groups={"g": [3, 4, 5]}, found=2, neighbours=[5, 6], isolate=isolate
        )

    fig = with_roles()
    assert sum(len(t.hovertext) for t in fig.data) == 40
    assert sorted(w for t in fig.data for w in t.hovertext) == sorted(words)
    by_name = {t.meta: list(t.hovertext) for t in fig.data}
    assert by_name["found"] == ["w2"] and by_name["neighbours"] == ["w5", "w6"] and by_name["g"] == ["w4"]
    assert fig.data[0].type == "scattergl"
    isolated = with_roles(isolate=True)
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
