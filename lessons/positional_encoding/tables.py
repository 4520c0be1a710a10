"""The positional-encoding page's tables and the windows on them.

The windows (settings.WindowConfig): which rows and columns a window shows and how far its first index may go
(window_fit), worked out here alone; the browser is sent the answer for every choice of spans (extents) and only
looks it up (ui.live_chart). place() puts a window inside its table and says what the page sends the browser;
window_link keeps the windows in the link.

The tables, computed once per server for their settings and shared by every learner: a window of the table, B − A
over a window, chosen columns, the similarity of positions, dot products by offset, and the checks of the shift and
of the frequencies.

ui.cache.cached, keyed by the PEConfig and the window: a hit returns the array itself (st.cache_resource), where
st.cache_data would unpickle a copy on every rerun. The arrays are shared, so they are read-only
(`flags.writeable = False`): a page that tried to change one would fail instead of changing every learner's.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np
import streamlit as st
import torch

from core import positional as pe
from core.positional import PEConfig
from lessons.positional_encoding.settings import WindowConfig
from ui import live_chart
from ui.cache import cached
from ui.device import device
from ui.i18n import t
from ui.link import from_link, to_link
from ui.settings import last_start

CHECKED_ROWS = 500  # the shift is checked on this many rows at each end of a long table


# --- The windows ------------------------------------------------------------------------------------------------------


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


def extents(config: WindowConfig, table: tuple[int, int]) -> list[list[list[int]]]:
    """window_fit for every choice of spans, [row choice][column choice]: what the browser looks up as its
    sliders move (a window over the rows alone has one column choice)."""
    columns = config.spans[1] if len(config.spans) > 1 else (None,)
    fits = []
    for rows in config.spans[0]:
        span = [(rows, (rows if config.tied else table[1]) if cols is None else cols) for cols in columns]
        fits.append([list(window_fit(s, table, config.max_cells)) for s in span])
    return fits


def table_window_on(window: WindowConfig, d_model: int) -> WindowConfig:
    """The table's window (rows, first row, columns, first column) on a table d_model wide: its choices of columns
    shown stop at d_model (the whole width, when it is no more than the largest choice), and its default is the
    whole width up to the window's own default."""
    most = window.spans[1]
    columns = tuple(s for s in most if s < d_model) + ((d_model,) if d_model <= most[-1] else ())
    default = min(window.defaults[1], columns[-1])
    return dataclasses.replace(window, spans=(window.spans[0], columns), defaults=(window.defaults[0], default))


def fit_dim_span(window: WindowConfig, d_model: int) -> None:
    """Keep the dimensions shown among the choices d_model leaves (table_window_on): a window that showed the whole
    of the last table shows this one's default; one wider than this table shows all of it, with a notice."""
    key, whole = window.keys[2], window.spans[1][-1]
    asked, last_whole = st.session_state.get(key), st.session_state.get("pe_dim_whole")
    st.session_state["pe_dim_whole"] = whole
    if asked is None:
        return
    if asked == last_whole != whole:  # "all of it" follows d_model
        st.session_state[key] = window.default(key)
        return
    if asked in window.spans[1]:
        return
    st.session_state[key] = max((s for s in window.spans[1] if s <= asked), default=whole)
    st.info(t("pe.dim_span_fitted", label=t("pe.dim_span"), asked=asked, d_model=d_model, now=st.session_state[key]))


def window_link(config: WindowConfig) -> None:
    """Take the window's values from the link on the session's first run and on Back or Forward, then write them
    into it (a value equal to its default is left out).

    The chart's component sets them in a callback, so they are no widgets that Streamlit could bind to the link:
    they are kept in the link by hand, as the chapter is. A value that is not a whole number, or a span not among
    the choices, is not taken (app.py's ui.link.check_link names it); a first index past the table's end is moved
    back by place(), with a notice.
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


@dataclass(frozen=True)
class Placed:
    """A window placed on its table: the rows and columns it shows, (r0, r1, c0, c1); the part of the table the
    browser is sent, (r0, r1, c0, c1) (ui.live_chart.block_bounds); and the window as the browser is sent it
    (ui.live_chart.draw's `window`)."""

    shown: tuple[int, int, int, int]
    block: tuple[int, int, int, int]
    window: dict


def place(config: WindowConfig, table: tuple[int, int]) -> Placed:
    """The window in config.keys (window_link read it from the link) on a table of `table` rows and columns, moved
    back inside the table (with a notice) if it fell out, and written into the link."""
    rows = st.session_state[config.keys[0]]
    if len(config.keys) == 4:
        span = rows, st.session_state[config.keys[2]]
    else:
        span = (rows, rows) if config.tied else (rows, table[1])
    settings = config.settings()
    shown_rows, shown_cols, *_ = window_fit(span, table, config.max_cells)
    for axis, shown in enumerate((shown_rows, shown_cols)[: len(config.spans)]):
        settings[2 * axis + 1].keep_inside(total=table[axis], span=shown)
    _write_link(config)
    r0 = st.session_state[config.keys[1]]
    c0 = st.session_state[config.keys[3]] if len(config.keys) == 4 else r0 if config.tied else 0
    bounds = shown_bounds((r0, c0), span, table, config.max_cells)
    window = dict(
        start=[r0, c0],
        span=list(span),
        table=list(table),
        spans=[list(s) for s in config.spans],
        extents=extents(config, table),
        labels=[setting.shown_label() for setting in settings],
        lines=config.lines,
        tied=config.tied,
    )
    return Placed(bounds, live_chart.block_bounds(table, bounds), window)


# --- The tables -------------------------------------------------------------------------------------------------------


def _shared(values: torch.Tensor) -> np.ndarray:
    array = values.cpu().numpy()
    array.flags.writeable = False
    return array


@cached(max_entries=64)
def table_window(cfg: PEConfig, p0: int, p1: int, d0: int, d1: int) -> np.ndarray:
    """PE rows [p0, p1), columns [d0, d1): (p1 - p0, d1 - d0)."""
    return _shared(pe.pe_window(cfg, p0, p1, d0, d1, device=device()))


@cached(max_entries=64)
def difference(a: PEConfig, b: PEConfig, p0: int, p1: int, d0: int, d1: int) -> np.ndarray:
    """B's table less A's over the window, where both have it."""
    return _shared(pe.pe_difference(a, b, p0, p1, d0, d1, device=device()))


@cached(max_entries=64)
def table_columns(cfg: PEConfig, p0: int, p1: int, dims: tuple[int, ...]) -> np.ndarray:
    """The chosen columns over rows [p0, p1): (p1 - p0, len(dims))."""
    return _shared(pe.pe_columns(cfg, p0, p1, list(dims), device=device()))


@cached(max_entries=64)
def similarity(cfg: PEConfig, p0: int, p1: int, metric: str) -> np.ndarray:
    """The similarity of positions [p0, p1) with each other: (p1 - p0, p1 - p0)."""
    return _shared(pe.position_similarity(pe.pe_window(cfg, p0, p1, device=device()), metric))


@cached(max_entries=64)
def offset_curves(cfg: PEConfig, refs: tuple[int, ...], k: int) -> np.ndarray:
    """PE[n] · PE[n + k] for k in [0, k], one row per reference n."""
    return _shared(pe.dot_by_offset(cfg, list(refs), k, device=device()))


@cached(max_entries=64)
def checks(cfg: PEConfig, k: int) -> tuple[float, float]:
    """The largest error of the shift by k (on CHECKED_ROWS rows at each end), and of exp(log) frequencies."""
    first = pe.shift_error(cfg, k, 0, CHECKED_ROWS, device=device())
    last = pe.shift_error(cfg, k, max(cfg.max_len - k - CHECKED_ROWS, 0), cfg.max_len, device=device())
    shift_err = max((e for e in (first, last) if not np.isnan(e)), default=float("nan"))
    return shift_err, pe.div_term_difference(cfg.d_model, cfg.base, device=device())
