"""A second reference for rerun timing: one slider and the PE page's default heatmap (100 x 128), nothing else.

The server sends the chart's cells on every move, as it must for a Streamlit slider: drawn with ui.live_chart, or
with st.plotly_chart given ?chart=plotly_chart. (The PE page's windows move in the browser: ui.window.window_chart.)
"""

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core import positional as pe  # noqa: E402
from core.positional import PEConfig  # noqa: E402
from figures.positional import pe_heatmap_figure  # noqa: E402
from ui.live_chart import live_chart  # noqa: E402

start = st.slider("First position", 0, 1000, key="start")
figure = pe_heatmap_figure(pe.pe_window(PEConfig(), start, start + 100, 0, 128).numpy(), start, 0)
if st.query_params.get("chart") == "plotly_chart":
    st.plotly_chart(figure)
else:
    live_chart(figure, key="chart")
