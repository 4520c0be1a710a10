"""figures.words through fig.to_dict(): labelled words at their coordinates, analogy arrows between them."""

import numpy as np

from figures.words import word_scatter_figure
from tests.figures.plotly_json import array

WORDS = ["man", "woman", "king", "queen"]
XY = np.array([[0.0, 0.0], [1.0, 0.2], [0.1, 2.0], [1.1, 2.2]])
XYZ = np.column_stack([XY, [0.5, -0.5, 1.5, 0.0]])
ARROWS = [("man", "woman"), ("king", "queen")]


def test_2d_words_are_labelled_points_at_their_coordinates():
    fig = word_scatter_figure(XY, WORDS, axis_titles=("PC 1", "PC 2", "PC 3"), title="PCA").to_dict()
    (points,) = fig["data"]
    assert (points["type"], points["mode"], points["textposition"]) == ("scatter", "markers+text", "top center")
    np.testing.assert_array_equal(array(points["x"]), XY[:, 0])
    np.testing.assert_array_equal(array(points["y"]), XY[:, 1])
    assert points["text"] == WORDS
    assert points["hovertemplate"] == "%{text}<br>(%{x:.3f}, %{y:.3f})<extra></extra>"
    layout = fig["layout"]
    assert layout["title"]["text"] == "PCA" and layout["showlegend"] is False
    assert (layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]) == ("PC 1", "PC 2")
    assert layout["yaxis"]["scaleanchor"] == "x"  # equal units: directions and lengths are not distorted
    assert not layout.get("annotations")


def test_2d_arrows_run_from_the_first_word_to_the_second_in_data_coordinates():
    layout = word_scatter_figure(XY, WORDS, arrows=ARROWS).to_dict()["layout"]
    heads_tails = [((a["ax"], a["ay"]), (a["x"], a["y"])) for a in layout["annotations"]]
    assert heads_tails == [((0.0, 0.0), (1.0, 0.2)), ((0.1, 2.0), (1.1, 2.2))]  # tail at a, head at b
    assert all((a["xref"], a["yref"], a["axref"], a["ayref"]) == ("x", "y", "x", "y") for a in layout["annotations"])
    assert all(a["showarrow"] and a["arrowhead"] == 3 for a in layout["annotations"])
    assert [a["arrowcolor"] for a in layout["annotations"]] == ["#d62728", "#1f77b4"]  # one colour per arrow


def test_every_arrow_is_drawn_however_many_there_are():
    n = 20
    words = [f"w{k}" for k in range(n + 1)]
    xy = np.random.default_rng(0).normal(size=(n + 1, 2))
    arrows = [(words[k], words[k + 1]) for k in range(n)]
    layout = word_scatter_figure(xy, words, arrows=arrows).to_dict()["layout"]
    assert len(layout["annotations"]) == n
    assert len({a["arrowcolor"] for a in layout["annotations"]}) == 4


def test_3d_words_and_arrows_are_traces_in_a_scene():
    fig = word_scatter_figure(XYZ, WORDS, arrows=ARROWS, axis_titles=("x", "y", "z"), title="3D").to_dict()
    points, *lines = fig["data"]
    assert (points["type"], points["mode"], points["name"]) == ("scatter3d", "markers+text", "words")
    np.testing.assert_array_equal(np.stack([array(points[a]) for a in "xyz"], 1), XYZ)
    assert points["text"] == WORDS
    assert [(t["type"], t["mode"], t["name"]) for t in lines] == [
        ("scatter3d", "lines", "man → woman"),
        ("scatter3d", "lines", "king → queen"),
    ]
    for line, (a, b) in zip(lines, ARROWS, strict=True):
        ends = np.stack([array(line[axis]) for axis in "xyz"], 1)
        np.testing.assert_array_equal(ends, XYZ[[WORDS.index(a), WORDS.index(b)]])
    scene = fig["layout"]["scene"]
    assert [scene[f"{a}axis"]["title"]["text"] for a in "xyz"] == ["x", "y", "z"]
    assert fig["layout"]["title"]["text"] == "3D" and "xaxis" not in fig["layout"]
