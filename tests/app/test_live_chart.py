"""ui.live_chart: the figure reaches the component whole, and a rerun's new figure keeps the same element; the
table window's bounds, and what a window sent from the browser may set."""

import json

from streamlit.testing.v1 import AppTest

from ui.live_chart import PLOTLY_CHUNK, TableWindow, asked_window, block_bounds, shown_bounds


def slider_and_chart():
    import plotly.graph_objects as go
    import streamlit as st

    from ui.live_chart import figure_json, live_chart

    n = st.slider("points", 1, 10, 3)
    figure = go.Figure(go.Scatter(y=list(range(n))))
    live_chart(figure, key="chart")
    live_chart(figure_json(figure), key="cached")  # the text a page caches draws the same chart


def test_streamlit_ships_the_plotly_chunk_the_component_imports():
    assert PLOTLY_CHUNK is not None and PLOTLY_CHUNK.is_file()
    assert "window.Plotly=" in PLOTLY_CHUNK.read_text()  # importing the chunk is what defines window.Plotly


def test_a_new_figure_updates_the_same_element():
    at = AppTest.from_function(slider_and_chart).run()
    chart, _ = at.get("bidi_component")
    data = json.loads(chart.proto.json)
    figure = json.loads(data["figure"])
    assert figure["data"][0]["y"] == [0, 1, 2] and data["plotly_chunk"] == PLOTLY_CHUNK.name
    assert figure["layout"]["template"]["layout"]["plot_bgcolor"] == "white"  # plotly_white
    at.slider[0].set_value(5).run()
    moved, _ = at.get("bidi_component")
    assert json.loads(json.loads(moved.proto.json)["figure"])["data"][0]["y"] == [0, 1, 2, 3, 4]
    assert moved.proto.id == chart.proto.id  # same element: the browser redraws it in place


def test_the_json_a_page_caches_sends_what_the_figure_sends():
    at = AppTest.from_function(slider_and_chart).run()
    chart, cached = at.get("bidi_component")
    assert json.loads(cached.proto.json) == json.loads(chart.proto.json)


WINDOW = TableWindow(keys=("r0", "rows", "c0", "cols"), spans=([10, 50, 100], [8, 1024]), max_cells=131_072)


def test_a_window_shows_its_span_up_to_the_table_and_fewer_rows_when_wide():
    assert shown_bounds((0, 0), (100, 1024), (100, 128), WINDOW.max_cells) == (0, 100, 0, 128)
    assert shown_bounds((90, 120), (50, 8), (100, 128), WINDOW.max_cells) == (90, 100, 120, 128)
    assert shown_bounds((5, 0), (1000, 1024), (100_000, 4096), WINDOW.max_cells) == (5, 133, 0, 1024)  # 128 rows


def test_a_small_table_is_sent_whole_and_a_large_one_a_window_at_a_time():
    assert block_bounds((100, 128), (10, 60, 8, 16)) == (0, 100, 0, 128)
    assert block_bounds((512, 128), (10, 60, 8, 16)) == (0, 512, 0, 128)  # 65,536 cells: still whole
    assert block_bounds((100_000, 128), (10, 60, 8, 16)) == (10, 60, 8, 16)


def test_a_window_from_the_browser_is_kept_only_when_well_formed():
    assert asked_window({"start": [3, 4], "span": [50, 8]}, WINDOW) == dict(r0=3, rows=50, c0=4, cols=8)
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
        assert asked_window(bad, WINDOW) is None, bad
