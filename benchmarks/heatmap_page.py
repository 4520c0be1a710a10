"""A second reference for rerun timing: one slider and the PE page's default heatmap (100 x 128), nothing else.

By default the slider is a Streamlit widget and the server sends the chart's cells on every move, drawn by
st.plotly_chart. With ?chart=window the same heatmap is a window on a table of 500 positions moved in the browser
(lessons.positional_encoding.tables.place and ui.live_chart.draw, as on the PE page): the browser holds the whole table and redraws the window itself.
"""

import sys
from pathlib import Path

import numpy as np
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core import positional as pe  # noqa: E402
from core.positional import PEConfig  # noqa: E402
from figures.positional import pe_heatmap_figure  # noqa: E402
from lessons.positional_encoding.settings import WindowConfig  # noqa: E402
from lessons.positional_encoding.tables import place, window_link  # noqa: E402
from ui import live_chart  # noqa: E402

TABLE = (500, 128)  # 64,000 cells: sent to the browser whole (ui.live_chart.BLOCK_CELLS)
WINDOW = WindowConfig(
    keys=("span", "start"), labels=("Positions shown", "First position"), spans=((100,),), defaults=(100,)
)

if st.query_params.get("chart") == "window":
    window_link(WINDOW)
    placed = place(WINDOW, TABLE)
    r0, r1, c0, c1 = placed.block
    cells = pe.pe_window(PEConfig(max_len=TABLE[0]), r0, r1, c0, c1).numpy()
    empty = pe_heatmap_figure(np.zeros((0, 0), np.float32), 0, 0)
    live_chart.draw(empty, placed.window, ((r0, c0), cells), "chart", WINDOW.keys)
else:
    start = st.slider("First position", 0, TABLE[0] - 100, key="start")
    st.plotly_chart(pe_heatmap_figure(pe.pe_window(PEConfig(), start, start + 100, 0, 128).numpy(), start, 0))
