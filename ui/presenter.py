"""Presenter mode: everything in the main column a third larger, charts included, and the exercises' answers
hidden, for a projector (the sidebar's toggle, ?present=true)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

PRESENT_KEY = "present"
CSS = Path(__file__).with_name("presenter.css")  # st.html puts a .css file's text in a <style>


def presenting() -> bool:
    """Whether presenter mode is on."""
    return bool(st.session_state.get(PRESENT_KEY, False))
