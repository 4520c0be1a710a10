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
from ui.i18n import LANG_KEY, Message, catalog, language, problem, shown, t
from ui.share_link import share_link

# The lesson pages in the sidebar's order: key (its settings' prefix; its title is t("app.<key>")) -> script, icon.
# app.py routes them and the overview links to them.
LESSONS = {
    "pe": ("lessons/positional_encoding.py", ":material/waves:"),
    "we": ("lessons/word_embeddings.py", ":material/translate:"),
    "es": ("lessons/embedding_space.py", ":material/scatter_plot:"),
    "lv": ("lessons/learned_vs_sinusoidal.py", ":material/straighten:"),
    "il": ("lessons/input_layer.py", ":material/stacks:"),
    "rp": ("lessons/rotary.py", ":material/autorenew:"),
}


@st.cache_resource
def device_choice() -> DeviceChoice:
    """The device for this server process, resolved once ($EMBLAB_DEVICE, else cuda, mps, cpu)."""
    return choose_device()


def device():
    """The torch.device every core call on a page receives."""
    return device_choice().device


@st.cache_resource(show_spinner=False)
def _bundled_vectors() -> WordVectors:
    return load_glove(device=device())


def bundled_vectors() -> WordVectors:
    """The bundled GloVe 6B 50d, loaded once per server process and shared by every page and learner.

    Raises VectorsError when its package is not installed.
    """
    with st.spinner(t("ui.loading_bundled")):
        return _bundled_vectors()


def bundled_or_stop() -> WordVectors:
    """bundled_vectors(), or, when their package is not installed, a message that says how to install it and the
    end of this run (the widgets above stay, so another vectors file can still be chosen)."""
    try:
        return bundled_vectors()
    except VectorsError as err:
        st.error(problem(err))
        st.stop()


@st.cache_resource(max_entries=2, show_spinner=False)
def _vectors_from_folder(name: str) -> WordVectors:
    return load_glove(name, device=device())


def vectors_from_folder(name: str) -> WordVectors:
    """A vectors file of the configured folder, loaded once per server process."""
    with st.spinner(t("ui.loading_folder")):
        return _vectors_from_folder(name)


UPLOAD = "upload"


def choose_vectors(prefix: str) -> tuple[WordVectors, str]:
    """The vectors picker (bundled, the folder's files, an upload) and a cache key for the choice.

    An upload is parsed once and kept in this session only; a bad file gets a message and the bundled vectors.
    """
    options = [glove.BUNDLED, *glove.list_vector_files(), UPLOAD]
    source = st.selectbox(
        t("ui.vectors"),
        options,
        format_func=lambda o: t("ui.upload") if o == UPLOAD else o,
        key=f"{prefix}_source",
        help=t("ui.vectors_help", folder=glove.vectors_dir().resolve(), env=glove.ENV_DIR),
    )
    try:
        if source == glove.BUNDLED:
            return bundled_or_stop(), glove.BUNDLED
        if source != UPLOAD:
            return vectors_from_folder(source), f"folder:{source}"
        upload = st.file_uploader(
            t("ui.upload_label"),
            type=["txt", "vec", "pt"],
            key=f"{prefix}_upload",
        )
        if upload is None:
            st.info(t("ui.upload_waiting"))
            return bundled_or_stop(), glove.BUNDLED
        parsed = f"{prefix}_uploaded"
        if st.session_state.get(parsed, (None,))[0] != upload.file_id:
            st.session_state[parsed] = (
                upload.file_id,
                load_glove(upload.getvalue(), name=upload.name, device=device()),
            )
        return st.session_state[parsed][1], f"upload:{upload.file_id}"
    except VectorsError as err:
        st.error(t("ui.vectors_fallback", problem=problem(err)))
        return bundled_or_stop(), glove.BUNDLED


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
    share_link()
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


def session_id() -> str:
    """An id for this browser session, so shared queues can bound what one learner asks for."""
    return st.session_state.setdefault("_session_id", uuid.uuid4().hex)


def submit(runner, key, work, total: int, refused_key: str) -> None:
    """Submit a job for this session; a refusal (queue bounds) is kept in state[refused_key] for the page to show."""
    st.session_state.pop(refused_key, None)
    try:
        runner.submit(key, work, total, owner=session_id())
    except Problem as err:
        st.session_state[refused_key] = problem(err)


def table(frame: pd.DataFrame, name: str, *, where=st, plain: bool = False, array=None, whole=None, **kwargs) -> None:
    """A table the page shows (st.dataframe, or st.table when plain) with its downloads under it.

    Column and index names that have a text under [col] in locales/ are shown in the reader's language.

    Args:
        whole: what the CSV holds when the table shows part of it (the table itself by default).
    """
    shown = _localised(frame)
    (where.table if plain else where.dataframe)(shown, **kwargs)
    downloads(name, frame=shown if whole is None else _localised(whole), array=array, where=where)


def _localised(frame: pd.DataFrame) -> pd.DataFrame:
    names = catalog(language())
    frame = frame.rename(columns=lambda c: names.get(f"col.{c}", c))
    frame.index.name = names.get(f"col.{frame.index.name}", frame.index.name)
    return frame


def downloads(name: str, *, frame: pd.DataFrame | None = None, array=None, where=st, key: str | None = None) -> None:
    """Download buttons: the frame as CSV, the tensor behind it (numpy or torch) as NPY, file names from `name`.

    The files are made only when a button is pressed, so a rerun pays nothing for them.

    Args:
        key: the buttons' keys, when `name` changes with every move of a slider (a window): the same buttons
            stay, instead of new ones replacing them on every rerun.
    """
    key = key or name
    common = dict(on_click="ignore", type="tertiary", icon=":material/download:")
    if frame is not None:
        numbered = isinstance(frame.index, pd.RangeIndex) and frame.index.name is None  # rows 0, 1, ...: no column
        where.download_button(
            t("ui.download_csv"),
            functools.partial(frame.to_csv, index=not numbered),
            file_name=f"{name}.csv",
            mime="text/csv",
            key=f"csv_{key}",
            **common,
        )
    if array is not None:
        where.download_button(
            t("ui.download_npy"), lambda: npy_bytes(array), file_name=f"{name}.npy", key=f"npy_{key}", **common
        )


def npy_bytes(array) -> bytes:
    """A numpy or torch array as the bytes of a .npy file."""
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array.detach().cpu() if hasattr(array, "detach") else array))
    return buffer.getvalue()


def explain(formula: str, notice: str) -> None:
    """A figure's formula and the one thing to notice in it."""
    st.latex(formula)
    st.caption(notice)


@functools.cache
def source(obj) -> str:
    """The source text of a function or class, read once per process (inspect re-parses the file each call)."""
    return inspect.getsource(obj)


def show_code(*objects) -> None:
    """An expander with the source of the core functions that produced a figure.

    The code is drawn only while the expander is open: collapsed code blocks would still be in the page,
    and every rerun would pay to redraw them.
    """
    key = "code_" + "_".join(obj.__qualname__ for obj in objects)
    expander = st.expander(t("ui.show_code"), key=key, on_change="rerun")
    if expander.open:
        for obj in objects:
            expander.code(source(obj), language="python")


def parse_number(text: str, name: str, example: str) -> float:
    """A float from a text box ("10000", "1e4", "500_000", "nan"); ValueError names the box and shows `example`."""
    try:
        return float(str(text).strip().replace(",", "").replace("_", ""))
    except ValueError:
        raise ValueError(t("ui.not_a_number", name=name, text=text, example=example)) from None


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
    last = keep_inside(key, label, total=total, span=span, where=where)
    if last == 0:
        return 0
    return where.slider(label, 0, last, key=key)


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
