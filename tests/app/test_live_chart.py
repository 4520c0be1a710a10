"""ui.live_chart: the figure reaches the component whole, and a rerun's new figure keeps the same element."""

import json

from streamlit.testing.v1 import AppTest

from ui.live_chart import PLOTLY_CHUNK


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
