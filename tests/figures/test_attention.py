"""figures.attention through fig.to_dict(): heatmaps per scheme, the four terms, score against distance."""

import numpy as np

from figures.attention import distance_figure, heatmaps_figure, terms_figure
from tests.figures.plotly_json import array

TOKENS = ["the", "cat", "the"]
A = np.array([[1.0, -np.inf, -np.inf], [0.5, -2.0, -np.inf], [0.0, 3.0, -1.0]])
B = np.arange(9.0).reshape(3, 3) - 4


def test_one_heatmap_per_scheme_with_masked_keys_blank():
    fig = heatmaps_figure({"rope": A, "alibi": B}, TOKENS, "logits", columns=2).to_dict()
    rope, alibi = fig["data"]
    z = array(rope["z"]).astype(float)
    assert np.isnan(z[np.isinf(A)]).all() and np.array_equal(z[np.isfinite(A)], A[np.isfinite(A)])
    assert np.array_equal(array(alibi["z"]), B)
    assert rope["x"] == ["0:the", "1:cat", "2:the"] == rope["y"]  # a repeated word keeps its own row
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["rope", "alibi"]
    assert fig["layout"]["title"]["text"] == "logits"
    assert rope["zmid"] == 0 and "zmin" not in rope  # each panel its own range, centred on 0
    assert not rope["showscale"] and not alibi["showscale"]


def test_panels_wrap_into_rows_of_columns():
    fig = heatmaps_figure({str(i): B for i in range(7)}, TOKENS, "t", columns=3).to_dict()
    assert len(fig["data"]) == 7
    assert fig["data"][6]["xaxis"] == "x7" and "xaxis8" not in fig["layout"]
    layout = fig["layout"]
    assert layout["yaxis7"]["domain"][1] < layout["yaxis4"]["domain"][0] < layout["yaxis4"]["domain"][1] < 1  # rows
    assert layout["xaxis7"]["domain"] == layout["xaxis"]["domain"] and layout["xaxis2"]["domain"][0] > 0.3  # columns
    assert layout["xaxis7"]["matches"] == "x" and layout["yaxis5"]["matches"] == "y"  # zoom one, zoom all
    ticks = [layout[f"xaxis{i or ''}"]["showticklabels"] for i in (0, 2, 3, 4, 5, 6, 7)]
    assert ticks == [False, False, False, False, True, True, True]  # the lowest panel of each column
    assert [bool(layout[f"yaxis{i or ''}"]["showticklabels"]) for i in (0, 2, 4, 7)] == [True, False, True, True]


def test_a_long_sentence_keeps_its_labels_for_plotly_to_thin_and_the_hover_names_every_cell():
    tokens = [f"w{i}" for i in range(60)]
    fig = heatmaps_figure({"a": np.zeros((60, 60)), "b": np.ones((60, 60))}, tokens, "t", columns=2).to_dict()
    layout = fig["layout"]
    for axis in ("xaxis", "xaxis2", "yaxis"):  # the panels' outer axes label their ticks, whatever the length
        assert layout[axis]["showticklabels"] and layout[axis]["type"] == "category"
        assert "tickvals" not in layout[axis] and "dtick" not in layout[axis]  # plotly labels every k-th, by pixels
    trace = fig["data"][0]
    assert trace["x"][59] == "59:w59" == trace["y"][59]  # position and token, for the hover
    assert "m = %{y}, n = %{x}" in trace["hovertemplate"]


def test_a_shared_scale_is_symmetric_about_zero_and_has_one_colour_bar():
    fig = heatmaps_figure({"a": A, "b": B}, TOKENS, "t", shared=True).to_dict()
    for trace in fig["data"]:
        assert (trace["zmin"], trace["zmax"]) == (-4.0, 4.0)  # the largest |value| of both, masked cells left out
    assert [t["showscale"] for t in fig["data"]] == [True, False]


def test_weights_scale_from_their_own_min_to_max_without_a_middle():
    fig = heatmaps_figure({"a": np.full((3, 3), 1 / 3)}, TOKENS, "w", shared=True, zmid=None, colorscale="Blues")
    (trace,) = fig.to_dict()["data"]
    assert trace["zmin"] == trace["zmax"] == 1 / 3 and "zmid" not in trace


def test_the_four_terms_and_their_sum_share_one_scale():
    terms = {name: B / 4 for name in ("cc", "cp", "pc", "pp")}
    fig = terms_figure(terms, B, TOKENS, "four terms").to_dict()
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["cc", "cp", "pc", "pp", "sum = logits"]
    assert len({(t["zmin"], t["zmax"]) for t in fig["data"]}) == 1
    np.testing.assert_array_equal(sum(array(t["z"]) for t in fig["data"][:4]), array(fig["data"][4]["z"]))


def test_score_against_distance_one_line_per_scheme_sorted_by_distance_with_gaps():
    distances = np.array([3, 2, 1, 0, -1])
    curves = {"rope": np.array([0.1, 0.2, 0.3, 0.4, 0.5]), "learned: t": np.array([np.nan, 1, 2, 3, 4])}
    fig = distance_figure(distances, curves, "score", revision="r").to_dict()
    rope, learned = fig["data"]
    np.testing.assert_array_equal(array(rope["x"]), [-1, 0, 1, 2, 3])
    np.testing.assert_array_equal(array(rope["y"]), [0.5, 0.4, 0.3, 0.2, 0.1])
    assert np.isnan(array(learned["y"])[-1]) and learned["connectgaps"] is False
    assert (rope["name"], learned["name"]) == ("rope", "learned: t")
    assert fig["layout"]["uirevision"] == "r" and fig["layout"]["shapes"][0]["x0"] == 0
