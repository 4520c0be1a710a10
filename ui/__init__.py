"""Streamlit pieces every page shares: the device, the "Show the code" expander, figure captions."""

from __future__ import annotations

import functools
import inspect
import io
import math
import uuid
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from core import glove
from core.device import DeviceChoice, choose_device
from core.glove import VectorsError, load_glove
from core.problems import Problem
from core.vectors import WordVectors

# TRANSITION (issue 28): the pages move to ui.link's binding one by one; this file goes once they all have.
from ui.device import device, device_choice  # noqa: E402,F401
from ui.explain import explain, show_code, source  # noqa: E402,F401
from ui.i18n import LANG_KEY, Message, catalog, language, problem, shown, t
from ui.jobs import session_id, submit  # noqa: E402,F401
from ui.pages import LESSONS as _LESSONS  # noqa: E402
from ui.parse import parse_indices, parse_number  # noqa: E402,F401
from ui.share_link import share_link
from ui.tables import downloads, npy_bytes, table  # noqa: E402,F401
from ui.vectors import _bundled_vectors, bundled_or_stop, bundled_vectors, choose_vectors  # noqa: E402,F401
from ui.window import keep_inside, window_start  # noqa: E402,F401

LESSONS = {k: (lesson.script, lesson.icon) for k, lesson in _LESSONS.items()}


class Between(NamedTuple):
    """A numeric setting's range: its widget's min and max (`st.slider(label, *CHOICES[name])`), and what a
    value read from a link must fall in."""

    lo: float
    hi: float


def set_defaults(prefix: str, defaults: dict, choices: dict | None = None) -> Link:
    """A page's settings: restored from a shared link, seeded with defaults, and written back to the URL.

    Each setting is the state of the widget keyed prefix_name. The URL follows the settings, so copying it
    shares the view. The URL's settings are applied instead (a parameter that is unknown, malformed or
    outside `choices` is ignored, and a notice says so):
    - on the page's first run in a session: a shared link;
    - when the browser's Back or Forward brought back an address the page wrote before: an earlier view.
    Arriving from another page through its link keeps the settings the page had. Back may then find the
    addresses Streamlit made on the way: the link's bare URL, or the other page's with this page's settings.
    Neither is a view of a page, so Back changes nothing there: a page's bare URL counts as a view only if
    the page wrote it since it was last arrived at through a bare URL.

    Args:
        choices: per setting, the allowed values (a list) or a `Between`; free text needs none.

    Returns:
        The page's link: a section whose settings change in a fragment is decorated with `link.fragment`.
    """
    first_run = f"_{prefix}_views" not in st.session_state
    views = st.session_state.setdefault(f"_{prefix}_views", [])  # what write_link wrote, the last one last
    in_url = page_params()
    if st.session_state.get(ARRIVED) and not in_url and {} in views:
        views.remove({})
    if first_run or (history_navigation() and in_url in views and in_url != views[-1]):
        ignored = restore_link(prefix, defaults, choices or {})
        if ignored:
            st.warning(t("ui.link_ignored", items=Message("; ".join(ignored))))  # each item cut on its own
    st.session_state.setdefault(SETTINGS, set()).update(f"{prefix}_{name}" for name in defaults)
    link = Link(prefix, defaults)
    write_link(prefix, defaults)
    return link


SETTINGS = "_settings_keys"
APP_PARAMS = (LANG_KEY, "present")  # query parameters app.py owns, kept on every page
VIEWS_KEPT = 200  # per page: how far back Back restores a view
ARRIVED = "_arrived"  # whether this run shows another page than the run before it (see keep_settings)


def history_navigation() -> bool:
    """Whether this run is the browser's Back or Forward (Streamlit's flag for it; False if it has none).

    Other runs may carry an older address: a click can send the URL before a fragment's new one arrives.
    """
    return bool(getattr(get_script_run_ctx(), "is_history_navigation", False))


def page_params() -> dict[str, str]:
    """The URL's query parameters that are the page's settings (not app.py's own)."""
    return {name: text for name, text in st.query_params.to_dict().items() if name not in APP_PARAMS}


def parse_setting(text: str, default, allowed=None):
    """A query parameter's text as the type of the setting's default; ValueError says what was wrong."""
    if isinstance(default, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError(t("ui.link_not_bool"))
        value = text.lower() == "true"
    elif isinstance(default, int | float):
        try:
            value = type(default)(text)
        except ValueError:
            raise ValueError(t("ui.link_malformed")) from None
        if not math.isfinite(value):
            raise ValueError(t("ui.link_not_finite"))
    elif isinstance(default, list):
        value = [part for part in text.split(",") if part]
    else:
        value = text
    if isinstance(allowed, Between):
        if not allowed.lo <= value <= allowed.hi:
            raise ValueError(t("ui.link_range", lo=allowed.lo, hi=allowed.hi))
    elif isinstance(allowed, list | tuple):
        outside = [v for v in (value if isinstance(value, list) else [value]) if v not in allowed]
        if outside:
            raise ValueError(t("ui.link_choices", choices=", ".join(map(str, allowed))))
    return value


def encode_setting(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)


def restore_link(prefix: str, defaults: dict, choices: dict) -> list[str]:
    """Set every setting to the URL's value, or to its default where the URL has none or a bad one.

    Returns:
        What was ignored, as 'name=value (why)'.
    """
    for name, default in defaults.items():
        st.session_state[f"{prefix}_{name}"] = default
    ignored = []
    for name, text in page_params().items():
        if name not in defaults:
            ignored.append(f"{shown(name)}={shown(text)} ({t('ui.link_unknown')})")
            continue
        try:
            st.session_state[f"{prefix}_{name}"] = parse_setting(text, defaults[name], choices.get(name))
        except ValueError as err:
            ignored.append(f"{name}={shown(text)} ({err})")
    return ignored


def write_link(prefix: str, defaults: dict) -> None:
    """The URL shows every setting that differs from its default (and the app's own parameters)."""
    params = {name: st.query_params[name] for name in APP_PARAMS if name in st.query_params}
    for name, default in defaults.items():
        value = st.session_state.get(f"{prefix}_{name}", default)
        if value != default:
            params[name] = encode_setting(value)
    if params != st.query_params.to_dict():
        st.query_params.from_dict(params)
    views, view = st.session_state.setdefault(f"_{prefix}_views", []), page_params()
    views[:] = [*[v for v in views if v != view][-VIEWS_KEPT + 1 :], view]


@dataclass(frozen=True)
class Link:
    """A page's settings, written into the URL by each full run and by each run of a fragment."""

    prefix: str
    defaults: dict

    def fragment(self, section):
        """st.fragment, and the URL written with each run of it.

        A fragment's rerun leaves the rest of the page, where set_defaults wrote the URL, as it was: without
        this, a slider inside the fragment would change the view but not the link that shares it.
        """

        @functools.wraps(section)
        def run(*args, **kwargs):
            # Written first, the URL reaches the browser with the start of the run: one redraw of the page
            # less per slider move (about 10 ms in interleaved A/B runs) than a URL that arrives after the chart.
            write_link(self.prefix, self.defaults)
            section(*args, **kwargs)
            write_link(self.prefix, self.defaults)  # sends nothing unless the section moved a window back inside

        return st.fragment(run)


def keep_settings(page: str) -> None:
    """Keep every page's settings while another page is shown; app.py calls it in each run, before the page.

    Streamlit drops a widget's value at the end of a run that did not draw the widget, so a learner who
    visits another page would come back to the defaults. Re-assigning the value makes it plain session state.
    It also notes whether this run shows another page (`page`, its URL path) than the run before it.
    """
    for key in st.session_state.get(SETTINGS, ()):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
    st.session_state[ARRIVED] = st.session_state.get("_page") != page
    st.session_state["_page"] = page


def take_pick(pick_key: str, target_key: str) -> None:
    """Callback for preset pills beside a text box: copy the picked value into the box, then clear the pick."""
    if st.session_state[pick_key]:
        st.session_state[target_key] = st.session_state[pick_key]
    st.session_state[pick_key] = None
