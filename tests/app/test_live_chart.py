"""ui.window's window chart (drawn by ui.live_chart): the window's bounds, what the browser is sent to look them up,
what a window sent from the browser may set, and the window in the link."""

import json

from streamlit.testing.v1 import AppTest

from ui.live_chart import PLOTLY_CHUNK, asked_window, block_bounds
from ui.window import WindowConfig, extents, shown_bounds, window_fit

WINDOW = WindowConfig(keys=("rows", "r0", "cols", "c0"), spans=((10, 50, 100), (8, 1024)), defaults=(50, 8))
WIDE = 131_072


def test_streamlit_ships_the_plotly_chunk_the_component_imports():
    assert PLOTLY_CHUNK is not None and PLOTLY_CHUNK.is_file()
    assert "window.Plotly=" in PLOTLY_CHUNK.read_text()  # importing the chunk is what defines window.Plotly


def test_a_window_shows_its_span_up_to_the_table_and_fewer_rows_when_wide():
    assert shown_bounds((0, 0), (100, 1024), (100, 128), WIDE) == (0, 100, 0, 128)
    assert shown_bounds((5, 0), (1000, 1024), (100_000, 4096), WIDE) == (5, 133, 0, 1024)  # 128 rows
    assert window_fit((1000, 1024), (100_000, 4096), WIDE) == (128, 1024, 99_872, 3072)  # End shows the last rows
    assert shown_bounds((90, 120), (50, 8), (100, 128), WIDE) == (50, 100, 120, 128)  # moved back to where it fits


def test_the_browser_is_sent_every_choice_of_spans_worked_out():
    fits = extents(WINDOW, (60, 20))
    assert fits == [
        [[10, 8, 50, 12], [10, 20, 50, 0]],
        [[50, 8, 10, 12], [50, 20, 10, 0]],
        [[60, 8, 0, 12], [60, 20, 0, 0]],
    ]
    rows_alone = WindowConfig(keys=("rows", "r0"), spans=((10, 50),), defaults=(10,))
    assert extents(rows_alone, (30, 4)) == [[[10, 4, 20, 0]], [[30, 4, 0, 0]]]
    tied = WindowConfig(keys=("rows", "r0"), spans=((10, 50),), defaults=(10,), tied=True)
    assert extents(tied, (30, 30)) == [[[10, 10, 20, 20]], [[30, 30, 0, 0]]]


def test_a_small_table_is_sent_whole_and_a_large_one_a_window_at_a_time():
    assert block_bounds((100, 128), (10, 60, 8, 16)) == (0, 100, 0, 128)
    assert block_bounds((512, 128), (10, 60, 8, 16)) == (0, 512, 0, 128)  # 65,536 cells: still whole
    assert block_bounds((100_000, 128), (10, 60, 8, 16)) == (10, 60, 8, 16)


def test_a_window_from_the_browser_is_kept_only_when_well_formed():
    asked = {"start": [3, 4], "span": [50, 8]}
    assert asked_window(asked, WINDOW.keys, WINDOW.spans) == dict(rows=50, r0=3, cols=8, c0=4)
    assert asked_window(asked, ("rows", "r0"), WINDOW.spans[:1]) == dict(rows=50, r0=3)
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
        assert asked_window(bad, WINDOW.keys, WINDOW.spans) is None, bad


def heatmap(values, r0: int, c0: int):
    import plotly.graph_objects as go

    return go.Figure(go.Heatmap(z=values, y0=r0, x0=c0))


def window_page():
    import numpy as np
    import streamlit as st

    from tests.app.test_live_chart import WINDOW, heatmap
    from ui.window import window_chart, window_link

    window_link(WINDOW)
    table = np.arange(60 * 20, dtype=np.float32).reshape(60, 20)
    shown = window_chart(
        WINDOW,
        ("Rows", "First row", "Columns", "First column"),
        table.shape,
        heatmap,  # a module's function: its figure is cached by it (ui.cache)
        "chart",
        cells=lambda r0, r1, c0, c1: table[r0:r1, c0:c1],
    )
    st.write(shown)


def test_the_chart_is_sent_its_figure_without_values_the_block_and_the_window_and_the_link_keeps_it():
    at = AppTest.from_function(window_page)
    at.query_params.update(r0="5", c0="x")
    at.run()
    chart = next(c for c in at.get("bidi_component") if c.proto.component_name == "live_chart")
    data = json.loads(chart.proto.json)
    assert json.loads(data["figure"])["data"][0]["z"] == [] and data["plotly_chunk"] == PLOTLY_CHUNK.name
    window = data["window"]
    assert (window["start"], window["span"], window["labels"][1]) == ([5, 0], [50, 8], "First row")
    assert window["block"]["origin"] == [0, 0] and window["block"]["shape"] == [60, 20]  # small: all of it
    assert at.session_state["c0"] == 0 and dict(at.query_params) == dict(r0="5")
    at.session_state["r0"] = 30  # what a move in the browser sets
    at.run()
    assert any("First row was 30" in w.value for w in at.warning)  # 60 rows hold a window of 50 from 10 at most
    assert dict(at.query_params) == dict(r0="10")
