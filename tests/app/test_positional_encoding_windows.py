"""The PE page's windows on its tables (lessons.positional_encoding.tables, drawn by ui.live_chart): the window's
bounds, what the browser is sent to look them up, and the window in the link."""

import json

from streamlit.testing.v1 import AppTest

from lessons.positional_encoding.settings import WindowConfig
from lessons.positional_encoding.tables import extents, shown_bounds, window_fit
from ui.live_chart import PLOTLY_CHUNK

WINDOW = WindowConfig(
    keys=("rows", "r0", "cols", "c0"),
    labels=("Rows", "First row", "Columns", "First column"),
    spans=((10, 50, 100), (8, 1024)),
    defaults=(50, 8),
)
WIDE = 131_072


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
    rows_alone = WindowConfig(keys=("rows", "r0"), labels=("Rows", "First row"), spans=((10, 50),), defaults=(10,))
    assert extents(rows_alone, (30, 4)) == [[[10, 4, 20, 0]], [[30, 4, 0, 0]]]
    tied = WindowConfig(keys=("rows", "r0"), labels=("Rows", "First row"), spans=((10, 50),), defaults=(10,), tied=True)
    assert extents(tied, (30, 30)) == [[[10, 10, 20, 20]], [[30, 30, 0, 0]]]


def window_page():
    import numpy as np
    import plotly.graph_objects as go
    import streamlit as st

    from lessons.positional_encoding.tables import place, window_link
    from tests.app.test_positional_encoding_windows import WINDOW
    from ui import live_chart

    window_link(WINDOW)
    table = np.arange(60 * 20, dtype=np.float32).reshape(60, 20)
    placed = place(WINDOW, table.shape)
    r0, r1, c0, c1 = placed.block
    empty = go.Figure(go.Heatmap(z=np.zeros((0, 0))))
    live_chart.draw(empty, placed.window, ((r0, c0), table[r0:r1, c0:c1]), "chart", WINDOW.keys)
    st.write(placed.shown)


def test_the_chart_is_sent_its_figure_without_values_the_block_and_the_window_and_the_link_keeps_it():
    at = AppTest.from_function(window_page, default_timeout=60)  # its first run imports torch (the tables)
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
