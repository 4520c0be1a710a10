"""figures.training through fig.to_dict(): named lines, log axes, markers and reference lines, a PCA path."""

import math

import numpy as np
import pytest

from figures.training import lines_figure, positions_pca_figure
from tests.figures.plotly_json import array, dtype


def test_one_line_per_named_curve_from_x0():
    curves = {"learned": np.linspace(2, 0.1, 30), "sinusoidal": np.linspace(2, 0.3, 30)}
    fig = lines_figure(curves, "Loss", "step", "cross-entropy", x0=1).to_dict()
    assert [(t["type"], t["mode"], t["name"]) for t in fig["data"]] == [
        ("scatter", "lines", "learned"),
        ("scatter", "lines", "sinusoidal"),
    ]
    for trace, values in zip(fig["data"], curves.values(), strict=True):
        assert dtype(trace["y"]) == "f4" and (trace["x0"], trace["dx"]) == (1, 1) and "x" not in trace
        np.testing.assert_allclose(array(trace["y"]), values, rtol=1e-6)
    layout = fig["layout"]
    assert layout["title"]["text"] == "Loss"
    assert (layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]) == ("step", "cross-entropy")
    assert layout["xaxis"]["type"] == "linear" == layout["yaxis"]["type"]
    assert not layout.get("shapes") and not layout.get("annotations")


def test_given_x_and_log_axes():
    sizes = [64, 128, 256, 512]
    fig = lines_figure({"‖v‖": [8, 11.3, 16, 22.6]}, "Norms", "d_model", "‖v‖", x=sizes, log_x=True, log_y=True)
    (trace,) = fig.to_dict()["data"]
    np.testing.assert_array_equal(array(trace["x"]), sizes)
    assert "x0" not in trace
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_the_marker_is_a_dashed_full_height_line_labelled_above_the_plot():
    layout = lines_figure({"a": [1, 2, 3]}, "t", "x", "y", marker_x=8, marker_label="trained length").to_dict()[
        "layout"
    ]
    (shape,) = layout["shapes"]
    assert (shape["type"], shape["x0"], shape["x1"], shape["line"]["dash"]) == ("line", 8, 8, "dash")
    assert (shape["y0"], shape["y1"], shape["yref"]) == (0, 1, "paper")  # the whole height, whatever the data
    (label,) = layout["annotations"]
    assert (label["x"], label["y"], label["yref"], label["text"]) == (8, 1, "paper", "trained length")
    assert label["showarrow"] is False and label["yanchor"] == "bottom"


@pytest.mark.parametrize("log_y", [False, True])
def test_reference_lines_span_the_width_and_their_labels_sit_at_their_level(log_y):
    levels = {"chance": 0.1, "perfect": 1.0}
    layout = lines_figure({"a": [0.2, 0.5]}, "t", "x", "y", hlines=levels, log_y=log_y).to_dict()["layout"]
    assert [(s["x0"], s["x1"], s["xref"], s["y0"], s["y1"], s["line"]["dash"]) for s in layout["shapes"]] == [
        (0, 1, "paper", 0.1, 0.1, "dot"),
        (0, 1, "paper", 1.0, 1.0, "dot"),
    ]
    # on a log axis plotly places annotations in log10 units and shapes in data units
    expected = [math.log10(v) if log_y else v for v in levels.values()]
    assert [a["y"] for a in layout["annotations"]] == pytest.approx(expected)
    assert [a["text"] for a in layout["annotations"]] == list(levels)
    assert all(a["xref"] == "paper" and a["x"] == 0 and a["xanchor"] == "left" for a in layout["annotations"])


def test_positions_pca_is_a_path_coloured_by_position():
    coords = np.cumsum(np.random.default_rng(0).normal(size=(9, 2)), axis=0)
    fig = positions_pca_figure(coords, "MiniLM", colour_title="position").to_dict()
    (path,) = fig["data"]
    assert (path["type"], path["mode"]) == ("scatter", "markers+lines")
    np.testing.assert_array_equal(array(path["x"]), coords[:, 0])
    np.testing.assert_array_equal(array(path["y"]), coords[:, 1])
    np.testing.assert_array_equal(array(path["marker"]["color"]), np.arange(9))
    assert path["marker"]["colorbar"]["title"]["text"] == "position"
    assert path["text"] == [str(p) for p in range(9)]
    assert path["hovertemplate"] == "position %{text}<extra></extra>"
    layout = fig["layout"]
    assert layout["title"]["text"] == "MiniLM"
    assert (layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]) == ("PC 1", "PC 2")
