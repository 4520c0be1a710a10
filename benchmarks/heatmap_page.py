"""A second reference for rerun timing: one slider and the PE page's default heatmap (100 x 128), nothing else,
drawn by st.plotly_chart: what a chart costs when the server sends its cells on every move of a Streamlit slider."""

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core import positional as pe  # noqa: E402
from core.positional import PEConfig  # noqa: E402
from figures.positional import pe_heatmap_figure  # noqa: E402

start = st.slider("First position", 0, 1000, key="start")
st.plotly_chart(pe_heatmap_figure(pe.pe_window(PEConfig(), start, start + 100, 0, 128).numpy(), start, 0))
