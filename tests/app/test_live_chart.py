"""ui.live_chart, the chart component: the plotly chunk it loads, the block of a table it is sent, and what a window
sent from the browser may set. The PE page's windows on its tables (the window arithmetic, the link) are
tests/app/test_positional_encoding_windows.py's."""

from functools import partial

import numpy as np
import pytest

from figures.input_layer import stage_figures
from figures.tokens import merge_marker, merges_figure
from lessons.text_to_tokens import views
from ui import live_chart
from ui.live_chart import PLOTLY_CHUNK, _figures_call, asked_window, block_bounds

KEYS, SPANS = ("rows", "r0", "cols", "c0"), ((10, 50, 100), (8, 1024))


def test_streamlit_ships_the_plotly_chunk_the_component_imports():
    assert PLOTLY_CHUNK is not None and PLOTLY_CHUNK.is_file()
    assert "window.Plotly=" in PLOTLY_CHUNK.read_text()  # importing the chunk is what defines window.Plotly


def test_a_small_table_is_sent_whole_and_a_large_one_a_window_at_a_time():
    assert block_bounds((100, 128), (10, 60, 8, 16)) == (0, 100, 0, 128)
    assert block_bounds((512, 128), (10, 60, 8, 16)) == (0, 512, 0, 128)  # 65,536 cells: still whole
    assert block_bounds((100_000, 128), (10, 60, 8, 16)) == (10, 60, 8, 16)


def test_a_window_from_the_browser_is_kept_only_when_well_formed():
    asked = {"start": [3, 4], "span": [50, 8]}
    assert asked_window(asked, KEYS, SPANS) == dict(rows=50, r0=3, cols=8, c0=4)
    assert asked_window(asked, ("rows", "r0"), SPANS[:1]) == dict(rows=50, r0=3)
    for bad in (
        None,
        {},
        {"start": [3, 4]},
        {"start": "34", "span": [50, 8]},
        {"start": [3, "x"], "span": [50, 8]},
        {"start": [-1, 0], "span": [50, 8]},
        {"start": [0, 0], "span": [51, 8]},  # not one of the choices
        {"start": [0.5, 0], "span": [50, 8]},
        {"start": [True, 0], "span": [50, 8]},
    ):
        assert asked_window(bad, KEYS, SPANS) is None, bad


def test_a_chart_is_a_figures_builder_and_the_pages_data_never_a_lessons_own_function():
    """Issue 54: a page hands ui.live_chart data, not code to call back (every page's charts go through this check
    in the app tests: the input layer's stages and the real Transformer's heads were a lesson's functions)."""
    for call in (partial(merges_figure, [1, 2], [9, 4], "t", "x", "y"), partial(merge_marker, 1, 9, "this")):
        assert _figures_call(call) is call
    with pytest.raises(TypeError, match="lessons.text_to_tokens.views.millions is not a figure builder"):
        _figures_call(partial(views.millions, 5))

    def drawn_by_a_page():  # a page script's function: Streamlit runs the script as __main__
        return merges_figure([1], [1], "t", "x", "y")

    drawn_by_a_page.__module__ = "__main__"
    with pytest.raises(TypeError, match="__main__.+drawn_by_a_page is not a figure builder"):
        _figures_call(drawn_by_a_page)


def test_a_large_figure_is_built_and_sent_on_each_run_and_a_small_one_kept(monkeypatch):
    """A long sentence's heatmaps (past KEPT_CELLS values) are not kept: the kept texts are bounded by their number,
    so a class typing long texts into the input layer would have held 8 MB per text."""
    sent: list[dict] = []
    monkeypatch.setattr(live_chart, "_component", lambda data, key: sent.append(data))
    rng = np.random.default_rng()  # new values: no text kept by an earlier test
    for rows, kept in ((4, True), (live_chart.KEPT_CELLS // 8 + 1, False)):
        stages = {"token": rng.standard_normal((rows, 8), dtype=np.float32)}
        build = partial(stage_figures, stages, [f"t{i}" for i in range(rows)], "dimension")
        for _ in range(2):
            live_chart.cached_charts("il_stages", build, cells=rows * 8)
        first, second = (data["figures"][0] for data in sent[-2:])
        assert first == second and (first is second) == kept  # the same kept text, or one built each time
