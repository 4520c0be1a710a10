"""figures.minilm through fig.to_dict(): the heads' grid, the heads moved, lines over the layers, the PCA paths."""

import numpy as np

from figures.minilm import NEXT, PREVIOUS, head_grid_figure, lines_figure, moved_figure, trajectory_figure
from tests.figures.plotly_json import array


def profile() -> np.ndarray:
    p = np.full((2, 3, 5), 0.1)  # 2 layers, 3 heads, offsets -2..2
    p[0, 1, 1] = 0.8  # a previous-token head
    p[1, 2, 3] = 0.4  # a next-token head
    return p


def test_the_grid_draws_one_curve_per_cell_on_one_scale_and_one_click_target_per_head():
    fig = head_grid_figure(profile(), {(0, 1): -1, (1, 2): 1}, (1, 0), "t").to_dict()
    zero, curves, clicks = fig["data"]
    x, y = array(curves["x"]).reshape(6, 6), array(curves["y"]).reshape(6, 6)  # 6 cells: 5 offsets and a gap
    assert np.isnan(x[:, -1]).all() and np.isnan(y[:, -1]).all()  # each curve ended by a gap
    cell = y[1, :5]  # layer 0, head 1: its peak at offset -1 reaches the top of its cell
    assert cell.argmin() == 1 and np.isclose(cell.min(), 0.9 - 0.8) and ((0 <= cell) & (cell <= 1)).all()
    assert np.allclose(y[0, :5], 0.9 - 0.8 * 0.1 / 0.8) and np.allclose(y[3, :5], 1.9 - 0.8 * 0.1 / 0.8)  # one scale
    assert np.allclose(x[2, [0, 4]], [2.08, 2.92])  # head 2's cell, offsets -2 and +2
    assert array(clicks["customdata"]).tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    assert array(clicks["x"]).tolist() == [0.5, 1.5, 2.5] * 2 and array(clicks["y"]).tolist() == [0.5] * 3 + [1.5] * 3
    assert "offset −1: 0.80" in clicks["text"][1]
    assert np.allclose(array(zero["x"])[:2], [0.5, 0.5]) and np.isnan(array(zero["x"])[2])  # offset 0, faint
    shapes = fig["layout"]["shapes"]
    tinted = [(s["x0"], s["y0"], s["fillcolor"]) for s in shapes if s.get("fillcolor")]
    assert tinted == [(1, 0, PREVIOUS), (2, 1, NEXT)]
    framed = shapes[-1]
    assert (framed["x0"], framed["y0"], framed["line"]["width"]) == (0, 1, 3)  # the selected head
    assert fig["layout"]["yaxis"]["range"] == [2, 0] and fig["layout"]["clickmode"] == "event+select"


def test_the_heads_moved_share_one_scale_from_zero():
    a, b = np.zeros((2, 3)), np.arange(6.0).reshape(2, 3) / 10
    fig = moved_figure({"none": a, "shuffled": b}, "t").to_dict()
    first, second = fig["data"]
    assert first["zmin"] == second["zmin"] == 0 and first["zmax"] == second["zmax"] == 0.5
    assert np.allclose(array(second["z"]), b) and first["showscale"] and not second["showscale"]
    assert list(second["y"]) == [1, 2] and list(second["x"]) == [1, 2, 3]  # layers and heads from 1
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["none", "shuffled"]


def test_lines_and_paths_keep_their_names_and_stages():
    fig = lines_figure(["input", "layer 1"], {"a · b": np.array([0.9, 0.5])}, "t", "cosine").to_dict()
    (line,) = fig["data"]
    assert (
        line["name"] == "a · b"
        and list(line["x"]) == ["input", "layer 1"]
        and np.allclose(array(line["y"]), [0.9, 0.5])
    )
    coords = np.arange(12.0).reshape(2, 3, 2)
    fig = trajectory_figure(coords, ["s1", "s2"], ["input", "layer 1", "layer 2"], "t").to_dict()
    assert [t["name"] for t in fig["data"]] == ["s1", "s2"]
    assert np.allclose(array(fig["data"][1]["x"]), coords[1, :, 0]) and list(fig["data"][0]["text"]) == [
        "input",
        "layer 1",
        "layer 2",
    ]
