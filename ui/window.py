"""A window on a long table: a slider for its first index, kept inside the table when the table shrinks."""

from __future__ import annotations

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
