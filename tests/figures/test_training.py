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
    assert list(fig.layout.xaxis.tickvals) == sizes  # ticked at the sizes drawn, not plotly's digits between powers


def test_the_marker_is_a_dashed_full_height_line_labelled_above_the_plot():
    layout = lines_figure({"a": [1, 2, 3]}, "t", "x", "y", marker_x=8, marker_label="trained length").to_dict()[
        "layout"
    ]
    (shape,) = layout["shapes"]
    assert (shape["type"], shape["x0"], shape["x1"], shape["line"]["dash"]) == ("line", 8, 8, "dash")
    assert (shape["y0"], shape["y1"], shape["yref"]) == (0, 1, "paper")  # the whole height, whatever the data
    (label,) = layout["annotations"]
    assert (label["x"], label["y"], label["yref"], label["text"]) == (8, 1, "paper", "trained length")
    assert label["showarrow"] is False and label["yanchor"] == "top"  # inside the plot, under the title (issue 51)


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
    assert dtype(path["x"]) == "f4" == dtype(path["y"])  # what the chart draws, no more
    np.testing.assert_allclose(array(path["x"]), coords[:, 0], rtol=1e-6)
    np.testing.assert_allclose(array(path["y"]), coords[:, 1], rtol=1e-6)
    np.testing.assert_array_equal(array(path["marker"]["color"]), np.arange(9))
    assert path["marker"]["colorbar"]["title"]["text"] == "position"
    assert "text" not in path and path["hovertemplate"] == "position %{marker.color}<extra></extra>"
    layout = fig["layout"]
    assert layout["title"]["text"] == "MiniLM"
    assert (layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]) == ("PC 1", "PC 2")


def test_a_small_heatmap_is_sent_as_it_is():
    from figures.positional import similarity_figure
    from figures.training import drawn_heatmap

    small = similarity_figure(np.eye(64, dtype=np.float32), 0, "cosine")
    assert drawn_heatmap(small) is small


@pytest.mark.parametrize("shape", [(512, 384), (512, 512), (301, 7), (1000, 257), (193, 192)])
def test_a_large_heatmap_is_sent_as_the_chart_draws_it(shape):
    """Averaged over blocks down to the drawn cells, one colour level a byte, each cell at its block's centre; the
    colour bar reads the values (issue 42: the learned-vs-sinusoidal page sent 5.6 MB of figures on open)."""
    from figures.positional import pe_heatmap_figure
    from figures.training import DRAWN_CELLS, EXACT_BYTES, LEVELS, drawn_heatmap

    rng = np.random.default_rng(0)
    table = rng.standard_normal(shape).astype(np.float32)
    fig = pe_heatmap_figure(table, pos_start=0, zmax=2.0)
    small = drawn_heatmap(fig, exact_bytes=0 if shape[1] < 10 else EXACT_BYTES)
    (trace,) = small.to_dict()["data"]
    z = array(trace["z"])
    assert dtype(trace["z"]) == "u1" and z.shape[0] <= DRAWN_CELLS[0] and z.shape[1] <= DRAWN_CELLS[1]
    fr, fc = -(-shape[0] // z.shape[0]), -(-shape[1] // z.shape[1])
    assert (trace["dy"], trace["dx"]) == (fr, fc) and (trace["y0"], trace["x0"]) == ((fr - 1) / 2, (fc - 1) / 2)
    # the first cell is the mean of its block, to within a colour level
    first = np.clip(table[:fr, :fc].mean(), -2, 2)
    assert abs(z[0, 0] / (LEVELS - 1) * 4 - 2 - first) <= 4 / (LEVELS - 1)
    assert (trace["zmin"], trace["zmax"]) == (0, LEVELS - 1) and trace["meta"]["values"] == [-2, 2]
    assert trace["colorbar"]["ticktext"] == ["-2", "-1", "0", "1", "2"]
    assert small.layout.yaxis.autorange == "reversed" and len(small.to_json()) < 150_000
