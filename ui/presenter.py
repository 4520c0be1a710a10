"""Presenter mode: everything in the main column a third larger, charts included, and the exercises' answers
hidden, for a projector (the sidebar's toggle, ?present=true)."""

from __future__ import annotations

import streamlit as st

PRESENT_KEY = "present"
CSS = """<style>
[data-testid="stMainBlockContainer"] { zoom: 1.3; max-width: none; }
</style>"""


def presenting() -> bool:
    """Whether presenter mode is on."""
    return bool(st.session_state.get(PRESENT_KEY, False))
