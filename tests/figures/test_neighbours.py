"""figures.neighbours through fig.to_dict(): neighbours kept as colour, the sweep's small multiples, t-SNE's frames."""

import numpy as np

from figures.neighbours import frames_figure, kept_figure, sweep_figure
from tests.figures.plotly_json import array

WORDS = ["cat", "dog", "king", "queen"]
XY = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]])


def test_kept_colours_each_point_from_0_to_k_and_says_so_on_hover():
    fig = kept_figure(XY, WORDS, np.array([0, 3, 10, 7]), 10, "PCA", "kept", revision="r").to_dict()
    (points,) = fig["data"]
    assert points["type"] == "scattergl"
    np.testing.assert_array_equal(array(points["marker"]["color"]), [0, 3, 10, 7])
    assert (points["marker"]["cmin"], points["marker"]["cmax"]) == (0, 10)
    assert points["text"] == ["cat: 0/10", "dog: 3/10", "king: 10/10", "queen: 7/10"]
    assert points["marker"]["colorbar"]["title"]["text"] == "kept"
    assert fig["layout"]["uirevision"] == "r"
    np.testing.assert_array_equal(array(points["y"]), XY[:, 1])


def test_kept_in_3d_is_a_3d_scatter():
    (points,) = kept_figure(np.ones((4, 3)), WORDS, np.zeros(4), 5, "t").to_dict()["data"]
    assert points["type"] == "scatter3d" and "z" in points


def test_the_sweep_is_one_panel_per_setting_without_ticks():
    layouts = {"perplexity 5": XY, "perplexity 30": XY * 2, "perplexity 100": XY * 3}
    fig = sweep_figure(layouts, WORDS, "sweep").to_dict()
    assert [a["text"] for a in fig["layout"]["annotations"]] == list(layouts)
    assert [t["xaxis"] for t in fig["data"]] == ["x", "x2", "x3"]
    np.testing.assert_array_equal(array(fig["data"][2]["x"]), XY[:, 0] * 3)
    assert fig["layout"]["xaxis2"]["showticklabels"] is False
    assert fig["layout"]["showlegend"] is False and all(t["text"] == WORDS for t in fig["data"])


def test_the_sweep_colours_clusters_as_categories_with_one_legend_entry_each():
    layouts = {"perplexity 5": XY, "perplexity 30": XY * 2}
    clusters = np.array([0, 1, 1, 2])
    fig = sweep_figure(layouts, WORDS, "sweep", groups=clusters, group_names=["c1", "c2", "c3"]).to_dict()
    # One trace per cluster and panel: a colour each, no colour scale, no colour bar.
    assert [(t["name"], t["xaxis"]) for t in fig["data"]] == [
        ("c1", "x"),
        ("c2", "x"),
        ("c3", "x"),
        ("c1", "x2"),
        ("c2", "x2"),
        ("c3", "x2"),
    ]
    assert all("colorscale" not in t["marker"] and "colorbar" not in t["marker"] for t in fig["data"])
    colours = [t["marker"]["color"] for t in fig["data"]]
    assert len(set(colours[:3])) == 3 and colours[:3] == colours[3:]  # the same cluster, the same colour
    assert [t["showlegend"] for t in fig["data"]] == [True, True, True, False, False, False]
    assert [t["legendgroup"] for t in fig["data"]] == ["c1", "c2", "c3"] * 2  # one click hides it everywhere
    assert fig["layout"]["showlegend"] is True
    # Every point once per panel, in its cluster's trace, with its own hover text and coordinates.
    assert [t["text"] for t in fig["data"][:3]] == [["cat"], ["dog", "king"], ["queen"]]
    np.testing.assert_array_equal(array(fig["data"][4]["y"]), XY[[1, 2], 1] * 2)


def test_clusters_are_numbered_from_1_by_default():
    fig = sweep_figure({"p": XY}, WORDS, "sweep", groups=np.array([0, 0, 1, 1])).to_dict()
    assert [t["name"] for t in fig["data"]] == ["1", "2"]


def test_frames_are_the_snapshots_in_order_each_with_its_own_ranges():
    small, large = XY * 0.01, XY * 100
    fig = frames_figure([(50, small), (100, large)], WORDS, "t-SNE").to_dict()
    assert [f["name"] for f in fig["frames"]] == ["50", "100"]
    np.testing.assert_allclose(array(fig["frames"][1]["data"][0]["x"]), large[:, 0])
    low, high = fig["frames"][1]["layout"]["xaxis"]["range"]
    assert low < 0 < 600 < high < 700  # the last frame's points, 5% either side
    assert fig["layout"]["xaxis"]["range"] == fig["frames"][0]["layout"]["xaxis"]["range"]
    steps = fig["layout"]["sliders"][0]["steps"]
    assert [s["label"] for s in steps] == ["50", "100"] and steps[1]["args"][0] == ["100"]
    assert fig["layout"]["sliders"][0]["currentvalue"]["prefix"] == "iteration "
