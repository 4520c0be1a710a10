"""The embedding-space page in AppTest: every control, the stated point count, the search drawn over the cloud, the
bad inputs, t-SNE and the sweep in the background (the honesty measures: test_embedding_space_honesty.py)."""

import json
import threading

import numpy as np
import pytest

from core import neighbours
from core.cloud import CloudConfig
from lessons.embedding_space import found as finding
from tests.app import decode, open_link, wait_for_job
from tests.app.embedding_space_view import (
    PAGE,
    chart,
    curve_panels,
    drawn,
    overlay,
    progress_texts,
    run_until_done,
    sent,
    stated,
)
from ui.vectors import bundled_vectors


@pytest.fixture
def at(open_page):
    return open_page(PAGE)


def test_defaults_draw_exactly_the_points_the_page_states(at):
    assert not at.exception and not at.error and not at.warning
    words = drawn(at)
    assert len(words) == len(set(words)) == stated(at) == 5000 + 10  # brasilia ... are outside the 5,000
    assert {t["type"] for t in chart(at)["data"]} == {"scattergl"}
    assert {t["meta"] for t in chart(at)["data"]} >= {"animals", "countries", "capitals", "numbers", "chosen"}


def test_size_words_groups_and_dimensions_move(at):
    at.select_slider(key="es_size").set_value(500).run()
    at.text_input(key="es_words").set_value("cat, dog, zygote, blorptz").run()
    assert "blorptz" in at.warning[0].value
    assert "zygote" in drawn(at) and len(drawn(at)) == stated(at)
    at.multiselect(key="es_groups").set_value(["family"]).run()
    at.text_area(key="es_own_groups").set_value("fruit: apple pear\nno colon").run()
    names = {t["meta"] for t in chart(at)["data"]}
    assert {"family", "fruit"} <= names and "animals" not in names
    assert "a name and a colon" in at.warning[-1].value
    at.radio(key="es_dims").set_value("3D").run()
    assert {t["type"] for t in chart(at)["data"]} == {"scatter3d"}
    assert len(drawn(at)) == stated(at)
    at.number_input(key="es_seed").set_value(7).run()
    assert not at.exception


def test_find_queen_highlights_it_lists_its_neighbours_and_isolates_them(at):
    cloud = sent(at)["figure"]
    at.text_input(key="es_find").set_value("Queen").run()
    found = next(t for t in overlay(at) if t["meta"] == "found")
    assert found["hovertext"] == ["queen"] and found["text"] == ["queen"]  # highlighted and labelled
    neighbours = list(at.table[0].value.index)
    assert neighbours[:2] == ["princess", "lady"] and len(neighbours) == 10
    near = next(t for t in overlay(at) if t["meta"] == "neighbours")
    assert near["hovertext"] == near["text"] == neighbours  # coronation, consort: outside the cloud, projected
    assert sent(at)["figure"] == cloud and len(drawn(at)) == stated(at) == 5010  # a find leaves the cloud as it was
    at.slider(key="es_k").set_value(5).run()
    at.toggle(key="es_isolate").set_value(True).run()
    assert sorted(drawn(at)) == sorted(["queen", *list(at.table[0].value.index)])
    assert len(drawn(at)) == 6


def test_a_found_word_and_its_neighbours_are_drawn_after_every_label(open_page):
    """Issue 41, 4b: at 20,000 words the groups' labels covered the found word and its neighbours (WebGL draws a
    trace's labels over the points of every trace before it) until Isolate was on."""
    at = open_page(PAGE)
    at.select_slider(key="es_size").set_value(20_000).run()
    cloud = sent(at)["figure"]
    assert not any("text" in t for t in chart(at)["data"])  # the cloud's labels are the overlay's, drawn last
    labels = {t["meta"]: t["text"] for t in overlay(at)}
    assert labels["labels:animals"][:2] == ["cat", "dog"] and "labels:chosen" in labels
    at.text_input(key="es_find").set_value("france").run()
    assert [t["meta"] for t in overlay(at)] == ["neighbours", "found"]  # no label drawn after (over) them
    assert sent(at)["figure"] == cloud  # a find still leaves the cloud's figure as it was
    at.text_input(key="es_find").set_value("").run()
    assert {t["meta"] for t in overlay(at)} == set(labels)


def test_isolating_a_word_with_nothing_in_the_cloud_says_so_and_draws_the_cloud(at, monkeypatch):
    """Issue 41, 4b: Isolate with "parsi" (t-SNE: neither it nor its neighbours in the cloud) drew 0 points and kept
    the previous axis ranges."""
    place = finding.place

    def tsne_place(wv, rows, cfg, coords, asked):  # as t-SNE places words outside its cloud: nowhere
        return place(wv, rows, CloudConfig("t-SNE", cfg.dims), coords, asked)

    monkeypatch.setattr(finding, "place", tsne_place)
    at.select_slider(key="es_size").set_value(500).run()
    at.text_input(key="es_find").set_value("parsi").run()
    at.toggle(key="es_isolate").set_value(True).run()
    assert not at.exception
    notices = [i.value for i in at.info]
    assert any("Nothing to isolate: neither parsi nor its neighbours are among the cloud's words" in n for n in notices)
    assert len(drawn(at)) == stated(at) > 500  # the whole cloud, its axes fitted to it, not 0 points


def test_found_words_outside_the_cloud_are_placed_by_its_pca():
    at = open_link(PAGE, {"es_size": "500", "es_words": "", "es_groups": "", "es_find": "queen"})
    wv = bundled_vectors()
    x = wv.vectors[:500].numpy().astype(np.float64)  # the cloud: the 500 most frequent words alone
    _, _, vt = np.linalg.svd(x - x.mean(axis=0), full_matrices=False)
    axes = vt[:2] * np.sign(vt[np.arange(2), np.abs(vt[:2]).argmax(axis=1)])[:, None]  # signs as core.projection
    for trace in overlay(at):
        rows = [wv.stoi[w] for w in trace["hovertext"]]
        expected = (wv.vectors[rows].numpy() - x.mean(axis=0)) @ axes.T
        got = np.stack([decode(trace["x"]), decode(trace["y"])], axis=1)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    assert stated(at) == len(drawn(at)) == 500
    assert any("placed by the PCA fitted on the cloud" in c.value for c in at.caption)


def test_an_unknown_word_gets_closest_spellings_and_the_cloud_stays(at):
    at.text_input(key="es_find").set_value("qeen").run()
    assert "Did you mean queen" in at.warning[0].value
    assert len(drawn(at)) == stated(at)


def test_invalid_tsne_settings_say_what_to_change_and_keep_a_plot(at):
    at.select_slider(key="es_size").set_value(500).run()
    at.radio(key="es_method").set_value("t-SNE").run()
    at.number_input(key="es_perplexity").set_value(400).run()
    assert "below a third of the points" in at.error[0].value
    assert len(drawn(at)) == stated(at)  # PCA meanwhile
    at.radio(key="es_method").set_value("UMAP").run()
    at.number_input(key="es_n_neighbors").set_value(5000).run()
    assert "fewer than the points" in at.error[0].value
    at.number_input(key="es_n_neighbors").set_value(10).run()
    at.select_slider(key="es_min_dist").set_value(0.5).run()
    assert not at.error and at.button(key="es_run").label.startswith("Run UMAP")


def test_tsne_runs_in_the_background_survives_leaving_the_page_and_draws(at):
    at.select_slider(key="es_size").set_value(500).run()
    at.text_input(key="es_words").set_value("king, queen").run()
    at.multiselect(key="es_groups").set_value([]).run()
    at.radio(key="es_method").set_value("t-SNE").run()
    at.select_slider(key="es_learning_rate").set_value(200).run()
    at.number_input(key="es_perplexity").set_value(20).run()
    assert not at.get("plotly_chart")
    at.button(key="es_run").click().run()
    at.switch_page("lessons/positional_encoding/positional_encoding.py").run()
    at.switch_page(PAGE).run()
    layouts = []  # the captions of the intermediate layouts drawn under the progress bar

    def intermediate(at):
        if at.get("progress") and at.get("plotly_chart"):
            layouts.append(next(c.value for c in at.caption if "redrawn as it runs" in c.value))
            assert len(drawn(at)) == 502  # every point, as in the final plot

    intermediate(at)
    wait_for_job(at, lambda at: not at.get("progress"), "t-SNE", each=intermediate)
    assert layouts, "no intermediate layout was drawn while t-SNE ran"
    assert all("of 750" in caption for caption in layouts)
    assert len(drawn(at)) == stated(at) == 502  # king and queen are not among the 500 most frequent
    assert chart(at)["layout"]["xaxis"]["title"]["text"] == "t-SNE 1"
    assert list(curve_panels(at)) == ["PCA 2D", "t-SNE 2D"]  # both drawn on this cloud: compared as k grows
    at.toggle(key="es_replay").set_value(True).run()
    frames = next(s["frames"] for s in (json.loads(c.proto.spec) for c in at.get("plotly_chart")) if "frames" in s)
    # the notice says whether the layout grew, from the first frame's spread to the last's (issue 41, item 2)
    spreads = []
    for frame in (frames[0], frames[-1]):
        xy = np.stack([decode(frame["data"][0]["x"]), decode(frame["data"][0]["y"])], axis=1)
        spreads.append(np.sqrt(((xy - xy.mean(0)) ** 2).sum(1).mean()))
    replay = next(c.value for c in at.caption if "Each frame has its own scale" in c.value)
    grew = "grew" if spreads[1] > spreads[0] + 0.005 else "shrank" if spreads[1] < spreads[0] - 0.005 else "kept"
    assert f"This run's layout {grew}" in replay and f"{spreads[0]:.3g} at iteration 50" in replay, replay
    frames = [f["name"] for f in frames]
    assert frames == [str(i) for i in range(50, 751, 50)]  # every 50 iterations, then the result


def test_a_cloud_larger_than_the_vocabulary_is_all_of_it_and_says_so(open_page, vectors_folder):
    at = open_page(PAGE)
    at.selectbox(key="es_source").select("tiny.txt").run()
    at.text_input(key="es_words").set_value("king").run()
    at.multiselect(key="es_groups").set_value([]).run()
    assert "only 15 words, fewer than the 5,000 asked" in at.warning[0].value
    assert len(drawn(at)) == stated(at) == 15
    at.radio(key="es_method").set_value("t-SNE").run()
    assert "below a third of the points (5 here" in at.error[0].value  # perplexity 30 on 15 points
    assert not at.exception


def test_a_link_opens_its_view_and_the_view_then_moves():
    # The browser writes a moved widget's value into the address (tests/browser/test_embedding_space.py).
    at = open_link(
        PAGE,
        {"es_find": "queen", "es_k": "5", "es_isolate": "true", "es_dims": "3D", "es_groups": ["family", "numbers"]},
    )
    assert not at.warning and list(at.table[0].value.index)[:2] == ["princess", "lady"]
    assert len(drawn(at)) == 6 and {t["type"] for t in chart(at)["data"]} == {"scatter3d"}
    assert at.multiselect(key="es_groups").value == ["family", "numbers"]
    at.toggle(key="es_isolate").set_value(False).run()
    assert len(drawn(at)) == stated(at) and not at.exception


def test_an_old_form_link_opens_the_same_view():
    old = open_link(PAGE, {"find": "queen", "k": "5", "method": "t-SNE", "perplexity": "20"})
    new = open_link(PAGE, {"es_find": "queen", "es_k": "5", "es_method": "t-SNE", "es_perplexity": "20"})
    assert not old.warning and list(old.table[0].value.index) == list(new.table[0].value.index)
    assert len(old.table[0].value) == 5 and old.number_input(key="es_perplexity").value == 20
    assert old.button(key="es_run").label == new.button(key="es_run").label


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("5, abc", "abc"),
        ("5, 10, 20, 30, 40", "1 to 4 perplexities"),
        ("", "1 to 4 perplexities"),
        ("5, 150", "below a third of the points (133 here"),
        ("0", "must be above 0"),
    ],
)
def test_sweep_bad_inputs_are_named(at, typed, said):
    at.text_input(key="es_sweep").set_value(typed).run()
    assert any(said in e.value for e in at.error), [e.value for e in at.error]
    assert not at.exception and "es_sweep_run" not in [b.key for b in at.button]


def test_the_sweep_runs_in_the_background_as_small_multiples(at):
    at.radio(key="es_method").set_value("t-SNE").run()
    at.select_slider(key="es_iterations").set_value(300).run()
    at.radio(key="es_sweep_data").set_value("gaps").run()
    at.text_input(key="es_sweep").set_value("5, 50").run()
    assert at.button(key="es_sweep_run").label == "Run t-SNE 2 times on 600 points"
    at.button(key="es_sweep_run").click().run()
    wait_for_job(at, lambda at: not at.get("progress"), "the sweep")
    (sweep,) = [
        spec for spec in (json.loads(c.proto.spec) for c in at.get("plotly_chart")) if "xaxis2" in spec["layout"]
    ]
    assert [a["text"] for a in sweep["layout"]["annotations"]] == ["perplexity 5", "perplexity 50"]
    assert [t["name"] for t in sweep["data"]] == ["cluster 1", "cluster 2", "cluster 3"] * 2  # a legend, not a scale
    assert [len(t["text"]) for t in sweep["data"]] == [200] * 6 and sweep["data"][0]["text"][0] == "cluster 1"
    at.radio(key="es_sweep_data").set_value("cloud").run()
    assert at.button(key="es_sweep_run").label == "Run t-SNE 2 times on 5,010 points"


def test_a_link_opens_the_sweep_on_its_data_in_either_language():
    at = open_link(PAGE, es_sweep_data="gaps", es_sweep="5, 50")
    assert at.radio(key="es_sweep_data").value == "gaps"
    assert at.button(key="es_sweep_run").label == "Run t-SNE 2 times on 600 points"
    zh = open_link(PAGE, es_sweep_data="gaps", lang="zh")
    assert zh.radio(key="es_sweep_data").value == "gaps" and not zh.exception


def test_run_tsne_pressed_while_the_sweep_runs_runs_once_the_sweep_ends(at, monkeypatch):
    """Issue 33, item 3: the press was refused, the refusal stayed after the sweep, and t-SNE never ran."""
    gate, sweep = threading.Event(), neighbours.perplexity_sweep

    def held_sweep(*args, **kwargs):  # the sweep runs until the test lets it end
        assert gate.wait(120)
        return sweep(*args, **kwargs)

    monkeypatch.setattr(neighbours, "perplexity_sweep", held_sweep)
    at.select_slider(key="es_size").set_value(500).run()  # the smallest cloud
    at.radio(key="es_method").set_value("t-SNE").run()
    at.select_slider(key="es_iterations").set_value(300).run()
    at.number_input(key="es_seed").set_value(33).run()  # settings no other test runs: nothing comes from the cache
    at.text_input(key="es_sweep").set_value("7").run()
    at.button(key="es_sweep_run").click().run()
    try:
        at.button(key="es_run").click().run()
        assert not at.warning and not at.exception
        assert "t-SNE: waits for your previous run on this page to finish, then joins the queue" in progress_texts(at)
        at.switch_page(
            "lessons/positional_encoding/positional_encoding.py"
        ).run()  # leaving and coming back changes nothing
        at.switch_page(PAGE).run()
        assert any("waits for your previous run" in text for text in progress_texts(at)) and not at.warning
    finally:
        gate.set()
    run_until_done(at)
    assert not at.exception and not at.warning and not at.get("progress")
    assert chart(at)["layout"]["xaxis"]["title"]["text"] == "t-SNE 1"  # the t-SNE cloud, drawn
    assert len(drawn(at)) == stated(at)  # every point of the small cloud


def test_tsne_draws_only_the_found_words_it_was_fitted_on_and_names_the_others():
    wv = bundled_vectors()
    coords = np.arange(1000, dtype=np.float32).reshape(500, 2)  # a 500-word cloud's t-SNE layout
    spot = finding.place(wv, list(range(500)), CloudConfig("t-SNE", 2), coords, ["the", "queen", "of"])
    assert spot.words == ["the", "of"] and spot.unplaced == ["queen"] and not spot.projected
    np.testing.assert_array_equal(spot.coords, coords[[wv.stoi["the"], wv.stoi["of"]]])
