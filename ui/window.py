"""A window on a long table: a slider for its first index, kept inside the table when the table shrinks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import plotly.graph_objects as go
import streamlit as st

from ui.i18n import t


def window_start(key: str, label: str, *, total: int, span: int, where=st, **widget) -> int:
    """A slider for the first index of a window of `span` inside `total`; moves a window that fell outside.

    Args:
        widget: more arguments of the slider (bind="query-params", persist_state=...).
    Returns:
        The first index, in [0, max(total - span, 0)].
    """
    last = keep_inside(key, label, total=total, span=span, where=where)
    if last == 0:
        return 0
    return where.slider(label, 0, last, key=key, **widget)


def keep_inside(key: str, label: str, *, total: int, span: int, where=st) -> int:
    """Move the window whose first index is st.session_state[key] back inside `total`, saying so, if it fell out.

    Returns:
        The last first index a window of `span` may have: max(total - span, 0).
    """
    last = max(total - span, 0)
    asked = st.session_state.get(key, 0)
    if asked > last:
        where.warning(t("ui.window_moved", label=label, asked=asked, total=total, last=last))
        st.session_state[key] = last
    return last


def shown_bounds(start: tuple[int, int], span: tuple[int, int], table: tuple[int, int], max_cells: int | None):
    """The rows [r0, r1) and columns [c0, c1) a window shows: its span cut at the table's end, and at most
    `max_cells` cells (a wide window shows fewer rows)."""
    (r0, c0), (rows, cols) = start, table
    c1 = min(c0 + span[1], cols)
    r1 = min(r0 + span[0], rows)
    return r0, r1 if max_cells is None else min(r1, r0 + max_cells // max(c1 - c0, 1)), c0, c1


@dataclass(frozen=True)
class WindowConfig:
    """The sliders of a window on a table: how many rows it shows and from which row, and, for a window over the
    columns too, how many columns and from which. A window over the rows alone shows every column, or, when
    `tied`, the same indices as its rows (a square on the diagonal of positions against positions).

    keys: the widgets' keys (each one the setting's name in the link): rows shown, first row[, columns shown,
        first column].
    spans: the choices of rows shown (and of columns shown); the first of `defaults` is the rows' default.
    max_cells: the most cells drawn, if any: a wide window shows fewer rows (shown_bounds).
    """

    keys: tuple[str, ...]
    spans: tuple[tuple[int, ...], ...]
    defaults: tuple[int, ...]
    max_cells: int | None = None
    tied: bool = False


def window_chart(
    config: WindowConfig,
    labels: tuple[str, ...],
    table: tuple[int, int],
    figure: Callable[[int, int, int, int], go.Figure],
    key: str,
    **widget,
) -> tuple[int, int, int, int]:
    """The sliders of the window in `config` (labels in the keys' order), side by side, and the chart of the
    window, figure(r0, r1, c0, c1), drawn by st.plotly_chart.

    Args:
        table: its rows and columns; a window whose first index fell outside it (the table shrank) is moved back
            inside, with a notice.
        widget: more arguments of the sliders (**IN_LINK).
    Returns:
        The rows and columns shown, (r0, r1, c0, c1).
    """
    axes = st.columns(len(config.spans))
    start, span = [0, 0], [0, table[1]]
    for axis, where in enumerate(axes):
        span_key, start_key = config.keys[2 * axis : 2 * axis + 2]
        span_label, start_label = labels[2 * axis : 2 * axis + 2]
        choices, default = config.spans[axis], config.defaults[axis]
        span[axis] = where.select_slider(span_label, choices, value=default, key=span_key, **widget)
        if table[axis] > span[axis]:  # a window that holds the whole axis has no first index to choose
            # The first index's range ends where the narrowest window still fits, not where this one does: a
            # slider whose range changes is a new widget, and Streamlit then drops the old one's value from the
            # link (tests/browser/test_positional_encoding.py, the link keeps the first position). So a wider
            # window near the end shows the rows left (shown_bounds), and one past the end of a table that
            # shrank moves back to where the whole window fits.
            total, narrowest = table[axis], min(choices)
            if st.session_state.get(start_key, 0) > total - narrowest:
                keep_inside(start_key, start_label, total=total, span=span[axis], where=where)
            start[axis] = window_start(start_key, start_label, total=total, span=narrowest, where=where, **widget)
    if config.tied:
        start[1], span[1] = start[0], span[0]
    shown = shown_bounds(tuple(start), tuple(span), table, config.max_cells)
    st.plotly_chart(figure(*shown), key=key)
    return shown
