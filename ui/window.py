"""A window on a long table: a slider for its first index, kept inside the table when the table shrinks; and a
chart of a window that the browser moves itself (window_chart, drawn by ui.live_chart).

The window arithmetic lives here alone: which rows and columns a window shows and how far its first index may
go (window_fit). The browser is sent the answer for every choice of spans (extents) and only looks it up.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ui import live_chart
from ui.i18n import t
from ui.link import from_link, to_link
from ui.settings import Setting


def window_start(setting: Setting, *, total: int, span: int, where=st, **widget) -> int:
    """The declared slider `setting` for the first index of a window of `span` inside `total`; moves a window that
    fell outside.

    Args:
        widget: more arguments of the slider (its value, when it follows another setting, ...).
    Returns:
        The first index, in [0, max(total - span, 0)].
    """
    label = setting.shown_label()
    last = keep_inside(setting.key, label, total=total, span=span, where=where)
    if last == 0:
        return 0
    return setting.draw(where, min_value=0, max_value=last, **widget)


def keep_inside(key: str, label: str, *, total: int, span: int, where=st) -> int:
    """Move the window whose first index is st.session_state[key] back inside `total`, saying so, if it fell out.

    Returns:
        The last first index a window of `span` may have: max(total - span, 0).
    """
    last = last_start(total, span)
    asked = st.session_state.get(key, 0)
    if asked > last:
        where.warning(t("ui.window_moved", label=label, asked=asked, total=total, last=last))
        st.session_state[key] = last
    return last


def last_start(total: int, span: int) -> int:
    """The last first index a window of `span` may have inside `total`."""
    return max(total - span, 0)


def window_fit(span: tuple[int, int], table: tuple[int, int], max_cells: int | None) -> tuple[int, int, int, int]:
    """The rows and columns a window of `span` shows in `table`, and the last first row and column it may have.

    Its span is cut at the table's size, and to at most `max_cells` cells: a wide window shows fewer rows.
    """
    cols = min(span[1], table[1])
    rows = min(span[0], table[0])
    if max_cells is not None:
        rows = min(rows, max(max_cells // max(cols, 1), 1))
    return rows, cols, last_start(table[0], rows), last_start(table[1], cols)


def shown_bounds(start: tuple[int, int], span: tuple[int, int], table: tuple[int, int], max_cells: int | None):
    """The rows [r0, r1) and columns [c0, c1) a window shows: window_fit's rows and columns from `start`, moved
    back to where they fit."""
    rows, cols, last_row, last_col = window_fit(span, table, max_cells)
    r0, c0 = min(start[0], last_row), min(start[1], last_col)
    return r0, r0 + rows, c0, c0 + cols


@dataclass(frozen=True)
class WindowConfig:
    """The sliders of a window on a table: how many rows it shows and from which row, and, for a window over the
    columns too, how many columns and from which. A window over the rows alone shows every column, or, when
    `tied`, the same indices as its rows (a square on the diagonal of positions against positions).

    keys: the values' keys in the session (each one the setting's name in the link): rows shown, first row[,
        columns shown, first column].
    spans: the choices of rows shown (and of columns shown); the first of `defaults` is the rows' default.
    max_cells: the most cells drawn, if any: a wide window shows fewer rows (window_fit).
    lines: the chart draws each column as a line along the rows (a trace per column), not a heatmap.
    """

    keys: tuple[str, ...]
    spans: tuple[tuple[int, ...], ...]
    defaults: tuple[int, ...]
    max_cells: int | None = None
    tied: bool = False
    lines: bool = False

    def settings(self, labels: tuple[str, ...]) -> tuple[Setting, ...]:
        """The window's values as a page declares them (ui.settings), kept in the link by window_link: each span
        one of its choices, each first index a whole number.

        Args:
            labels: their sliders' labels (locale keys), in `keys`' order.
        """
        return tuple(
            Setting(key, "window", self.default(key), label, options=self.spans[i // 2] if i % 2 == 0 else (), low=0)
            for i, (key, label) in enumerate(zip(self.keys, labels, strict=True))
        )

    def default(self, key: str) -> int:
        """A key's value when the link does not give it: a span's default, or 0 for a first index."""
        i = self.keys.index(key)
        return self.defaults[i // 2] if i % 2 == 0 else 0

    def span(self, table: tuple[int, int]) -> tuple[int, int]:
        """The rows and columns asked for (before window_fit cuts them), from the session."""
        rows = st.session_state[self.keys[0]]
        if len(self.keys) == 4:
            return rows, st.session_state[self.keys[2]]
        return (rows, rows) if self.tied else (rows, table[1])


def extents(config: WindowConfig, table: tuple[int, int]) -> list[list[list[int]]]:
    """window_fit for every choice of spans, [row choice][column choice]: what the browser looks up as its
    sliders move (a window over the rows alone has one column choice)."""
    columns = config.spans[1] if len(config.spans) > 1 else (None,)
    fits = []
    for rows in config.spans[0]:
        span = [(rows, (rows if config.tied else table[1]) if cols is None else cols) for cols in columns]
        fits.append([list(window_fit(s, table, config.max_cells)) for s in span])
    return fits


def window_link(config: WindowConfig) -> None:
    """Take the window's values from the link on the session's first run and on Back or Forward, then write them
    into it (a value equal to its default is left out).

    The component sets them in a callback, so they are no widgets that Streamlit could bind to the link: they are
    kept in the link by hand, as the PE page's chapter is. A value that is not a whole number, or a span not
    among the choices, is not taken (app.py's ui.link.check_link names it); a first index past the table's end
    is moved back by window_chart, with a notice.
    """
    for axis, choices in enumerate(config.spans):
        span_key, start_key = config.keys[2 * axis : 2 * axis + 2]
        from_link(span_key, functools.partial(_whole, default=config.default(span_key), choices=choices))
        from_link(start_key, functools.partial(_whole, default=config.default(start_key)))
    _write_link(config)


def _whole(text: str | None, default: int, choices=None) -> int:
    """A whole number from the link (one of `choices`, for a span); else the default."""
    number = int(text) if text and text.isascii() and text.isdecimal() else -1
    return number if (number in choices if choices is not None else number >= 0) else default


def _write_link(config: WindowConfig) -> None:
    for key in config.keys:
        value = st.session_state[key]
        to_link(key, None if value == config.default(key) else str(value))


def window_chart(
    config: WindowConfig,
    labels: tuple[str, ...],
    table: tuple[int, int],
    figure: Callable[[np.ndarray, int, int], go.Figure],
    key: str,
    *,
    cells: Callable[[int, int, int, int], np.ndarray],
) -> tuple[int, int, int, int]:
    """A chart of a window on a table, with the sliders that move it, moved in the browser (ui.live_chart).

    The window is the one in config.keys (window_link reads it from the link), moved back inside the table (with a
    notice) if it fell out. The browser is sent a block of the table (ui.live_chart.block_bounds): while the window
    stays inside it, a move redraws the chart at once, with no rerun. Each move also sets the window's keys (a rerun
    of the fragment the chart is in, which brings the page's caption, downloads and link up to date), and a window
    outside the block waits for the block that rerun sends.

    Args:
        labels: the sliders' labels, in config.keys' order.
        table: its rows and columns.
        figure: figure(values, r0, c0), the chart of a window's values whose first cell is the table's (r0, c0):
            a builder of figures/ (or functools.partial of a module-level one with its other inputs: its titles,
            its columns' names). It is called once with no rows, and the browser puts the window's values in:
            into the first trace's z (a heatmap), or into each trace's y, column by column (config.lines). That
            figure's text is built once per server for its inputs and the language (ui.live_chart.figure_text).
        cells: cells(r0, r1, c0, c1), the table's cells in rows [r0, r1) and columns [c0, c1): a page's cached
            computation.
    Returns:
        The rows and columns shown, (r0, r1, c0, c1).
    """
    span = config.span(table)
    rows, cols, *_ = window_fit(span, table, config.max_cells)
    for axis, shown in enumerate((rows, cols)[: len(config.spans)]):
        keep_inside(config.keys[2 * axis + 1], labels[2 * axis + 1], total=table[axis], span=shown)
    _write_link(config)
    r0 = st.session_state[config.keys[1]]
    c0 = st.session_state[config.keys[3]] if len(config.keys) == 4 else r0 if config.tied else 0
    shown = shown_bounds((r0, c0), span, table, config.max_cells)
    b0, b1, bc0, bc1 = live_chart.block_bounds(table, shown)
    window = dict(
        start=[r0, c0],
        span=list(span),
        table=list(table),
        spans=[list(s) for s in config.spans],
        extents=extents(config, table),
        labels=list(labels),
        lines=config.lines,
        tied=config.tied,
    )
    empty = np.zeros((0, table[1] if config.lines else 0), np.float32)
    chart = live_chart.figure_text(functools.partial(figure, empty, 0, 0))
    block = ((b0, bc0), cells(b0, b1, bc0, bc1))
    live_chart.draw(chart, window, block, key, functools.partial(_keep_window, key, config))
    return shown


def _keep_window(key: str, config: WindowConfig) -> None:
    """The window the browser moved to, into the session (window_chart then writes it into the link)."""
    if values := live_chart.asked_window(st.session_state[key].get("window"), config.keys, config.spans):
        st.session_state.update(values)
