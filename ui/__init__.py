"""Streamlit pieces every page shares: the device, the "Show the code" expander, figure captions."""

from __future__ import annotations

import functools
import inspect

import streamlit as st

from core import glove
from core.device import DeviceChoice, choose_device
from core.glove import VectorsError, WordVectors, load_glove


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


@st.cache_resource(max_entries=2, show_spinner="Reading the vectors file (cached after the first time)…")
def vectors_from_folder(name: str) -> WordVectors:
    """A vectors file of the configured folder, loaded once per server process."""
    return load_glove(name, device=device())


UPLOAD = "Upload a file…"


def choose_vectors(prefix: str) -> tuple[WordVectors, str]:
    """The vectors picker (bundled, the folder's files, an upload) and a cache key for the choice.

    An upload is parsed once and kept in this session only; a bad file gets a message and the bundled vectors.
    """
    options = [glove.BUNDLED, *glove.list_vector_files(), UPLOAD]
    source = st.selectbox(
        "Vectors",
        options,
        key=f"{prefix}_source",
        help=f"Files in {glove.vectors_dir().resolve()} (${glove.ENV_DIR}) are listed too.",
    )
    try:
        if source == glove.BUNDLED:
            return bundled_vectors(), glove.BUNDLED
        if source != UPLOAD:
            return vectors_from_folder(source), f"folder:{source}"
        upload = st.file_uploader(
            "GloVe text (`word v1 … vd` per line) or a torchtext .pt cache",
            type=["txt", "vec", "pt"],
            key=f"{prefix}_upload",
        )
        if upload is None:
            st.info("No file yet: the bundled GloVe 6B 50d is used meanwhile.")
            return bundled_vectors(), glove.BUNDLED
        parsed = f"{prefix}_uploaded"
        if st.session_state.get(parsed, (None,))[0] != upload.file_id:
            st.session_state[parsed] = (
                upload.file_id,
                load_glove(upload.getvalue(), name=upload.name, device=device()),
            )
        return st.session_state[parsed][1], f"upload:{upload.file_id}"
    except VectorsError as err:
        st.error(f"{err} Using the bundled GloVe 6B 50d instead.")
        return bundled_vectors(), glove.BUNDLED


def set_defaults(prefix: str, defaults: dict) -> None:
    """Seed each widget's state (key prefix_name) once, so presets and callbacks can set it without a clash."""
    for name, value in defaults.items():
        st.session_state.setdefault(f"{prefix}_{name}", value)
    st.session_state.setdefault(SETTINGS, set()).update(f"{prefix}_{name}" for name in defaults)


SETTINGS = "_settings_keys"


def keep_settings() -> None:
    """Keep every page's settings while another page is shown; app.py calls it at the start of each run.

    Streamlit drops a widget's value at the end of a run that did not draw the widget, so a learner who
    visits another page would come back to the defaults. Re-assigning the value makes it plain session state.
    """
    for key in st.session_state.get(SETTINGS, ()):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


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
