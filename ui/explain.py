"""What goes with every figure: its formula, the one thing to notice, and "Show the code"."""

from __future__ import annotations

import functools
import inspect

import streamlit as st

from ui.i18n import t


def breakable(formula: str) -> str:
    """`formula` with a line break allowed after each `\\qquad` (KaTeX's `\\allowbreak`), the space that parts one
    equation from the next: a formula wider than its column (a phone's, presenter mode's larger text) breaks there,
    between two equations, rather than after an operator inside one (labtools/layout.js fails on that)."""
    return formula.replace(r"\qquad", r"\qquad\allowbreak ")


def explain(formula: str, notice: str) -> None:
    """A figure's formula and the one thing to notice in it."""
    st.latex(breakable(formula))
    st.caption(notice)


# functools.cache, not ui.cache: a function's source is a constant of the process, whoever asks for it.
@functools.cache
def source(obj) -> str:
    """The source text of a function or class, read once per process (inspect re-parses the file each call)."""
    return inspect.getsource(obj)


def show_code(*objects, figure: str | None = None) -> None:
    """An expander with the source of the core functions that produced a figure.

    The code is drawn only while the expander is open: collapsed code blocks would still be in the page,
    and every rerun would pay to redraw them.

    Args:
        figure: the figure's name, in the reader's language, for the label ("Show the code: <figure>"): needed
            where two expanders come in a row, with nothing between them to say which is which
            (tests/browser/layout.js checks it).
    """
    key = "code_" + "_".join(obj.__qualname__ for obj in objects)
    label = t("ui.show_code") if figure is None else t("ui.show_code_for", figure=figure)
    expander = st.expander(label, key=key, on_change="rerun")
    if expander.open:
        for obj in objects:
            expander.code(source(obj), language="python")
