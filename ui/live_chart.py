"""A plotly chart that a rerun redraws in place, for the charts a slider changes on every move.

In Streamlit 1.67 st.plotly_chart's element id is a hash of its figure, so a new figure remounts the chart
and plotly draws it from scratch twice (before and after measuring the column's width).
streamlit/streamlit#16052 would update charts in place. Until then this component keeps one plotly <div>
across reruns and hands each new figure to Plotly.react, using the plotly.js Streamlit already ships, with
st.plotly_chart's modebar, a full-screen button in it, and the theme's colours (light or dark).
benchmarks/rerun.py measures the difference.
"""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

# The chart chunk of the installed Streamlit frontend: importing it in the browser loads Streamlit's plotly.js.
PLOTLY_CHUNK = next((Path(st.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"), None)
TEMPLATE = pio.templates["plotly_white"].to_plotly_json()  # the page's font and colours are added in the browser

_component = st.components.v2.component(
    "live_chart",
    js=Path(__file__).with_name("live_chart.js").read_text(),
    css=".live-chart:fullscreen { background: var(--st-background-color); }",  # not the browser's black
    isolate_styles=False,
)


def figure_json(figure: go.Figure) -> str:
    """The text live_chart sends for `figure`. A page may cache it, so that a figure shown before is not built
    again (about 5 ms for the PE page's default heatmap, on an idle core)."""
    spec = figure.to_plotly_json()
    spec["layout"]["template"] = TEMPLATE
    return pio.to_json(spec, validate=False)


def live_chart(figure: go.Figure | str, key: str) -> None:
    """Draw `figure` (or figure_json's text of one); a later run's figure under the same key redraws the same chart."""
    if PLOTLY_CHUNK is None:  # a Streamlit build without that chunk: the remounting chart still works
        st.plotly_chart(pio.from_json(figure) if isinstance(figure, str) else figure, key=key)
        return
    text = figure if isinstance(figure, str) else figure_json(figure)
    _component(data=dict(figure=text, plotly_chunk=PLOTLY_CHUNK.name), key=key)
