"""A second reference for rerun timing: one slider and the PE page's default heatmap (100 x 128), nothing else.

By default the slider is a Streamlit widget and the server sends the chart's cells on every move, drawn by
st.plotly_chart. With ?chart=window the same heatmap is a window on a table of 500 positions moved in the browser
(ui.window.window_chart, as on the PE page): the browser holds the whole table and redraws the window itself.
"""

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core import positional as pe  # noqa: E402
from core.positional import PEConfig  # noqa: E402
from figures.positional import pe_heatmap_figure  # noqa: E402
from ui.window import WindowConfig, window_chart, window_link  # noqa: E402

TABLE = (500, 128)  # 64,000 cells: sent to the browser whole (ui.live_chart.BLOCK_CELLS)
WINDOW = WindowConfig(keys=("span", "start"), spans=((100,),), defaults=(100,))

if st.query_params.get("chart") == "window":
    window_link(WINDOW)
    window_chart(
        WINDOW,
        ("Positions shown", "First position"),
        TABLE,
        pe_heatmap_figure,
        "chart",
        cells=lambda r0, r1, c0, c1: pe.pe_window(PEConfig(max_len=TABLE[0]), r0, r1, c0, c1).numpy(),
    )
else:
    start = st.slider("First position", 0, TABLE[0] - 100, key="start")
    st.plotly_chart(pe_heatmap_figure(pe.pe_window(PEConfig(), start, start + 100, 0, 128).numpy(), start, 0))
