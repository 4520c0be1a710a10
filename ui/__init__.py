"""Streamlit pieces every page shares: the device, the "Show the code" expander, figure captions."""

from __future__ import annotations

import functools
import inspect

import streamlit as st

from core.device import DeviceChoice, choose_device
from core.glove import WordVectors, load_glove


@st.cache_resource
def device_choice() -> DeviceChoice:
    """The device for this server process, resolved once ($EMBLAB_DEVICE, else cuda, mps, cpu)."""
    return choose_device()


def device():
    """The torch.device every core call on a page receives."""
    return device_choice().device


@st.cache_resource(show_spinner="Loading GloVe 6B 50d (once per server)…")
def bundled_vectors() -> WordVectors:
    """The bundled GloVe 6B 50d, loaded once per server process and shared by every page and learner."""
    return load_glove(device=device())


def set_defaults(prefix: str, defaults: dict) -> None:
    """Seed each widget's state (key prefix_name) once, so presets and callbacks can set it without a clash."""
    for name, value in defaults.items():
        st.session_state.setdefault(f"{prefix}_{name}", value)


def take_pick(pick_key: str, target_key: str) -> None:
    """Callback for preset pills beside a text box: copy the picked value into the box, then clear the pick."""
    if st.session_state[pick_key]:
        st.session_state[target_key] = st.session_state[pick_key]
    st.session_state[pick_key] = None


def explain(formula: str, notice: str) -> None:
    """A figure's formula and the one thing to notice in it."""
    st.latex(formula)
    st.caption(notice)


@functools.cache
def source(obj) -> str:
    """The source text of a function or class, read once per process (inspect re-parses the file each call)."""
    return inspect.getsource(obj)


def show_code(*objects) -> None:
    """An expander with the source of the core functions that produced a figure."""
    with st.expander("Show the code"):
        for obj in objects:
            st.code(source(obj), language="python")


def parse_number(text: str, name: str) -> float:
    """A float from a text box ("10000", "1e4", "500_000", "nan"); ValueError names the box."""
    try:
        return float(str(text).strip().replace(",", "").replace("_", ""))
    except ValueError:
        raise ValueError(f"{name} must be a number such as 10000 or 1e4; {text!r} is not.") from None


def parse_indices(text: str, upper: int, *, most: int) -> tuple[list[int], list[str]]:
    """Distinct integers in [0, upper) from "4, 5, 6, 7", at most `most`; also the parts that were dropped."""
    kept: list[int] = []
    dropped: list[str] = []
    for part in str(text).replace(";", ",").replace(" ", ",").split(","):
        if not part:
            continue
        if part.lstrip("-").isdigit() and 0 <= int(part) < upper and int(part) not in kept and len(kept) < most:
            kept.append(int(part))
        else:
            dropped.append(part)
    return kept, dropped


def window_start(key: str, label: str, *, total: int, span: int, where=st) -> int:
    """A slider for the first index of a window of `span` inside `total`; moves a window that fell outside.

    Returns:
        The first index, in [0, max(total - span, 0)].
    """
    last = max(total - span, 0)
    asked = st.session_state.get(key, 0)
    if asked > last:
        where.warning(f"{label} was {asked}, past what a table of {total:,} allows with this window: now {last}.")
        st.session_state[key] = last
    if last == 0:
        return 0
    return where.slider(label, 0, last, key=key)
