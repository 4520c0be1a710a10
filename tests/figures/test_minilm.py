"""figures.minilm through fig.to_dict(): the heads' grid, the heads moved, lines over the layers, the PCA paths."""

import numpy as np

from figures.minilm import (
    LINE_PX,
    LINE_UNITS,
    NARROW_UNITS,
    NEXT,
    PREVIOUS,
    ROW_PX,
    ROWS_MOST_PX,
    attention_figure,
    head_grid_figure,
    lines_figure,
    moved_figure,
    title_lines,
    trajectory_figure,
)
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
    # the stages printed along the first path only (the paths start together: their labels would overprint), and
    # named in every point's hover
    assert [t["mode"] for t in fig["data"]] == ["lines+markers+text", "lines+markers"]
    assert list(fig["data"][1]["text"]) == ["input", "layer 1", "layer 2"]


def test_one_heads_map_grows_with_its_sentence_so_that_every_row_keeps_its_label():
    def height(n: int, maps: int = 1) -> int:
        tokens = ["ab"] * n
        fig = attention_figure({f"m{i}": np.eye(n) for i in range(maps)}, tokens, "t", columns=4).to_dict()
        if maps == 1:  # its name is the figure's title: no panel title
            assert not fig["layout"].get("annotations")
        return fig["layout"]["height"] - fig["layout"]["margin"]["t"] - 10 - 6 * len(f"{n - 1}:ab")

    assert height(5) == 280 and height(25) == 25 * ROW_PX and height(200) == ROWS_MOST_PX
    assert height(25, maps=4) == 280  # side by side, each panel as narrow as the column allows
    fig = attention_figure({"a": np.eye(2)}, ["x", "y"], "t").to_dict()
    (heat,) = fig["data"]
    assert (
        heat["zmin"] == 0
        and heat["colorscale"][0][1] != heat["colorscale"][-1][1]
        and list(heat["x"]) == ["0:x", "1:y"]
    )


LONG_EN = (
    "How far each head's attention moved from the learned run: Jensen-Shannon divergence in bits, mean over queries"
)
LONG_ZH = "每个头的注意力相对于学习位置的结果移动了多少：Jensen-Shannon 散度（比特），对查询取平均"


def test_a_long_title_is_broken_into_lines_a_narrow_chart_can_show_and_the_margin_makes_room():
    # plotly never wraps a title: one wider than the chart was cut at its right edge (a window 1000 px wide, presenter
    # mode): the moved figure's title by 290 px
    assert title_lines(LONG_EN) == [
        "How far each head's attention moved from the learned run:",
        "Jensen-Shannon divergence in bits, mean over queries",
    ]
    assert title_lines(LONG_ZH) == [
        "每个头的注意力相对于学习位置的结果移动了多少：",
        "Jensen-Shannon 散度（比特），对查询取平均",
    ]
    assert title_lines("（PCA 降到 2 维，在这些点上拟合）", 10)[1][0] not in "，）"  # no line opens on a closing mark
    assert title_lines("short") == ["short"] and title_lines("") == [""]
    assert title_lines("x" * 100 + " y") == ["x" * 100, "y"]  # a longer word alone on its line
    for text in (LONG_EN, LONG_ZH, "a " * 200):
        assert "".join(title_lines(text)).replace(" ", "") == text.replace(" ", "")  # nothing lost
        assert all(len(line) <= LINE_UNITS for line in title_lines(text))
    builders = [
        lambda title: head_grid_figure(profile(), {}, (0, 0), title),
        lambda title: moved_figure({"a": np.zeros((2, 3))}, title),
        lambda title: lines_figure(["input"], {"a": np.ones(1)}, title),
        lambda title: trajectory_figure(np.zeros((1, 2, 2)), ["s"], ["input", "layer 1"], title),
        lambda title: attention_figure({"a": np.eye(2)}, ["x", "y"], title),
        lambda title: attention_figure({"a": np.eye(2), "b": np.eye(2)}, ["x", "y"], title, columns=2),
    ]
    for build in builders:
        # the heads' grid is a st.plotly_chart, sent as it is to a phone: its title fits a phone's chart
        lines = len(title_lines(LONG_EN, NARROW_UNITS if build is builders[0] else LINE_UNITS))
        short, long = build("short").to_dict()["layout"], build(LONG_EN).to_dict()["layout"]
        assert long["title"]["text"].count("<br>") == lines - 1 and "<br>" not in short["title"]["text"]
        assert long["margin"]["t"] - short["margin"]["t"] == LINE_PX * (lines - 1) == long["height"] - short["height"]
