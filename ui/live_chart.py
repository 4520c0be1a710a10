"""A plotly chart that a rerun redraws in place, for the charts a slider changes on every move; and a window on
a table that the browser moves itself (window_chart), for the heatmap whose window a learner scrubs through.

In Streamlit 1.67 st.plotly_chart's element id is a hash of its figure, so a new figure remounts the chart
and plotly draws it from scratch twice (before and after measuring the column's width).
streamlit/streamlit#16052 would update charts in place. Until then this component keeps one plotly <div>
across reruns and hands each new figure to Plotly.react, using the plotly.js Streamlit already ships, with
st.plotly_chart's modebar, a full-screen button in it, and the theme's colours (light or dark).
benchmarks/rerun.py measures the difference.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from ui import keep_inside

# The chart chunk of the installed Streamlit frontend: importing it in the browser loads Streamlit's plotly.js.
PLOTLY_CHUNK = next((Path(st.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"), None)
TEMPLATE = pio.templates["plotly_white"].to_plotly_json()  # the page's font and colours are added in the browser
# A table of at most this many cells goes to the browser whole (256 kB of float32, 350 kB of base64), so that
# its window moves without a rerun; a larger one is sent a window at a time.
BLOCK_CELLS = 65_536

_component = st.components.v2.component(
    "live_chart",
    js=Path(__file__).with_name("live_chart.js").read_text(),
    css=Path(__file__).with_name("live_chart.css").read_text(),
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


@dataclass(frozen=True)
class TableWindow:
    """The sliders of a window on a table: its first row and rows shown, and, for a window over the columns too,
    its first column and columns shown. A window over the rows alone shows every column.

    keys: the session-state keys of those values, in that order (two or four): the page reads them,
        set_defaults writes them into the link, and a move in the browser sets them.
    spans: the choices of rows shown (and of columns shown).
    max_cells: the most cells drawn, if any: a wide window shows fewer rows (shown_bounds).
    lines: draw each column as a line along the rows (the figure has a trace per column), not a heatmap.
    tied: a window over the rows that takes the same columns: a square on the diagonal of a square table
        (positions against positions).
    """

    keys: tuple[str, ...]
    spans: tuple[list[int], ...]
    max_cells: int | None = None
    lines: bool = False
    tied: bool = False


def shown_bounds(start: tuple[int, int], span: tuple[int, int], table: tuple[int, int], max_cells: int | None):
    """The rows [r0, r1) and columns [c0, c1) a window shows; live_chart.js computes the same in the browser."""
    (r0, c0), (rows, cols) = start, table
    c1 = min(c0 + span[1], cols)
    r1 = min(r0 + span[0], rows)
    return r0, r1 if max_cells is None else min(r1, r0 + max_cells // max(c1 - c0, 1)), c0, c1


def block_bounds(table: tuple[int, int], shown: tuple[int, int, int, int], budget: int = BLOCK_CELLS):
    """The part of the table the browser is sent: all of it when it has at most `budget` cells, else the window."""
    return (0, table[0], 0, table[1]) if table[0] * table[1] <= budget else shown


def window_chart(
    figure: str,
    table: tuple[int, int],
    window: TableWindow,
    labels: tuple[str, ...],
    key: str,
    block: Callable[[int, int, int, int], np.ndarray],
) -> tuple[tuple[int, int, int, int], np.ndarray]:
    """A chart of a window on a table, with the sliders that move it, moved in the browser.

    The window is the one in TableWindow.keys, moved back inside the table (with a notice) if it fell out.
    The browser is sent a block of the table (block_bounds): while the window stays inside it, a move redraws
    the chart at once, with no rerun. Each move also sets the window's keys (one rerun, which brings the page's
    caption, downloads and link up to date), and a window outside the block waits for the block that rerun sends.

    figure: figure_json of the chart without its values; the browser puts the window's in: into the first
        trace's z (a heatmap), or into each trace's y, column by column (lines).
    labels: the sliders' labels, in TableWindow.keys' order.
    block: the table's cells in rows [r0, r1) and columns [c0, c1), from (r0, r1, c0, c1): a page's cached
        computation.
    Returns:
        The rows and columns shown, (r0, r1, c0, c1), and their values.
    Unlike live_chart, it has no st.plotly_chart to fall back on: it needs Streamlit's plotly chunk, which
    tests/app/test_live_chart.py checks the pinned Streamlit ships.
    """
    for axis in range(len(window.keys) // 2):
        start_key, span_key = window.keys[2 * axis : 2 * axis + 2]
        keep_inside(start_key, labels[2 * axis], total=table[axis], span=st.session_state[span_key])
    r0, rows, *columns = (st.session_state[k] for k in window.keys)
    c0, cols = columns or ((r0, rows) if window.tied else (0, table[1]))
    shown = shown_bounds((r0, c0), (rows, cols), table, window.max_cells)
    b0, b1, bc0, bc1 = block_bounds(table, shown)
    values = np.ascontiguousarray(block(b0, b1, bc0, bc1), dtype="<f4")
    data = dict(
        figure=figure,
        plotly_chunk=PLOTLY_CHUNK.name,
        window=dict(
            start=[r0, c0],
            span=[rows, cols],
            table=list(table),
            spans=[list(s) for s in window.spans],
            labels=list(labels),
            max_cells=window.max_cells,
            lines=window.lines,
            tied=window.tied,
            block=dict(origin=[b0, bc0], shape=list(values.shape), bdata=base64.b64encode(values).decode()),
        ),
    )
    _component(data=data, key=key, on_window_change=functools.partial(_keep_window, key, window))
    r0, r1, c0, c1 = shown
    return shown, values[r0 - b0 : r1 - b0, c0 - bc0 : c1 - bc0]


def _keep_window(key: str, window: TableWindow) -> None:
    """The window the browser moved to, into the page's keys."""
    if values := asked_window(st.session_state[key].get("window"), window):
        st.session_state.update(values)


def asked_window(asked, window: TableWindow) -> dict[str, int] | None:
    """The keys' values for the window the browser sent ({"start": [row, col], "span": [rows, cols]}), or None
    when it is malformed or its spans are not among the choices. A start past the table's end is the page's to
    move back (ui.keep_inside)."""
    parts = [asked.get("start"), asked.get("span")] if isinstance(asked, dict) else []
    values = [v for part in parts if isinstance(part, list) and len(part) == 2 for v in part]
    if len(values) != 4 or not all(type(v) is int for v in values):
        return None
    r0, c0, rows, cols = values
    if r0 < 0 or rows not in window.spans[0]:
        return None
    if len(window.keys) == 2:  # a window over the rows alone
        return dict(zip(window.keys, (r0, rows), strict=True))
    if c0 < 0 or cols not in window.spans[1]:
        return None
    return dict(zip(window.keys, (r0, rows, c0, cols), strict=True))
