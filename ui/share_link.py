"""The sidebar's "Share this view" control: the page's address as the browser has it now, and a copy button.

The address is read in the browser, each time the control opens. A server-written link would show the view of
the last full run: a slider inside a fragment changes the URL (ui.Link.fragment) but does not rerun the sidebar.
The browser's address is also the one learners can reach when the app runs behind a proxy.

A text too long for an address is left out of it (ui.address.keep_openable): the popover then says so and offers the
view's settings as a file (`view_file`), which the same popover on any learner's page opens (`read_view_file`: only
the page's declared settings, each checked against its declaration, never unpickled).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import streamlit as st

from ui.address import LEFT_OUT, LINK_MOST
from ui.i18n import Message, shown, shown_all, t
from ui.settings import BY_HAND, SEVERAL, TEXTS, Settings

FILE_MOST = 2 * 2**20  # bytes of a settings file read (a text box's longest text fits many times)
LOADED = "_share_loaded"  # session state: what the last file loaded said, until the next run has shown it

CSS = """
.share-link { display: flex; gap: 0.5rem; align-items: flex-start; }
.share-link textarea {
  flex: 1; min-width: 0; padding: 0.35rem 0.5rem; font: 0.8rem var(--st-code-font, monospace);
  resize: none; word-break: break-all;
  color: var(--st-text-color); background: var(--st-secondary-background-color);
  border: 1px solid var(--st-border-color); border-radius: var(--st-base-radius, 0.5rem);
}
.share-link button {
  padding: 0.35rem 0.75rem; font: inherit; cursor: pointer; color: var(--st-text-color);
  background: var(--st-background-color); border: 1px solid var(--st-border-color);
  border-radius: var(--st-button-radius, 0.5rem);
}
.share-link button:hover { border-color: var(--st-primary-color); color: var(--st-primary-color); }
"""

_component = st.components.v2.component(
    "share_link",
    html='<div class="share-link"><textarea readonly rows="4"></textarea><button></button></div>',
    css=CSS,
    js=Path(__file__).with_name("share_link.js").read_text(),
)


def share_link():
    """The sidebar's popover with this view's link and a button that copies it; returned, so that `share_file` adds
    the view's settings as a file once the page has run."""
    popover = st.sidebar.popover(t("ui.share"), icon=":material/link:")
    with popover:
        _component(data=dict(label=t("ui.share"), copy=t("ui.copy"), copied=t("ui.copied")), key="share_link")
        st.caption(t("ui.share_help"))
    return popover


def share_file(popover, settings: Settings | None) -> None:
    """After the page's run, in the popover: while a text of this view is too long for its address, why the link
    leaves it out and the view's settings to download; on every page with settings, the way to open such a file."""
    if settings is None:
        return
    left = {k: n for k, n in st.session_state.get(LEFT_OUT, {}).items() if k in settings}
    with popover:
        if left:
            names = shown_all(settings[k].shown_label() for k in left)
            st.warning(t("ui.share_too_long", names=names, n=f"{max(left.values()):,}", most=f"{LINK_MOST:,}"))
            st.download_button(
                t("ui.share_download"), view_file(settings, st.session_state), f"{settings.prefix}_view.json",
                mime="application/json", key="_share_download", on_click="ignore",
            )  # fmt: skip
        st.file_uploader(t("ui.share_load"), type=["json"], key="_share_load", on_change=_load, args=(settings,))
        if (said := st.session_state.pop(LOADED, None)) is not None:
            (st.warning if said[1] else st.success)(said[0])


def view_file(settings: Settings, state) -> bytes:
    """The view's settings as a JSON file: {key: value} for each setting the link would hold."""
    kept = {s.key: state[s.key] for s in settings if s.in_link and s.widget not in BY_HAND and s.key in state}
    return json.dumps({"settings": settings.prefix, "values": kept}, ensure_ascii=False).encode()


def read_view_file(data: bytes, settings: Settings) -> tuple[dict[str, Any], list[str]]:
    """The settings a file made by `view_file` holds for this page, each one a value its widget takes, and the keys
    it holds that were left out. Raises ValueError (its message says why) for a file that is not one."""
    if len(data) > FILE_MOST:
        raise ValueError(f"more than {FILE_MOST:,} bytes")
    try:
        held = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"not JSON ({err})") from None
    if (
        not isinstance(held, dict)
        or held.get("settings") != settings.prefix
        or not isinstance(held.get("values"), dict)
    ):
        raise ValueError(f"not the settings of this page ({settings.prefix})")
    values, left = {}, []
    for key, value in held["values"].items():
        if key in settings and settings[key].in_link and _takes(settings[key], value):
            values[key] = value
        else:
            left.append(str(key))
    return values, left


def _takes(setting, value) -> bool:
    """Whether the setting's widget takes `value` as it is (its kind, bounds and choices)."""
    w = setting.widget
    if w in BY_HAND:
        return False
    if w in TEXTS:
        return isinstance(value, str)
    if w in ("toggle", "checkbox"):
        return isinstance(value, bool)
    if w in ("number_input", "slider"):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return False
        if isinstance(setting.default, int) and not isinstance(value, int):
            return False
        return (setting.low is None or value >= setting.low) and (setting.high is None or value <= setting.high)
    if w in SEVERAL:
        return isinstance(value, list) and all(v in setting.options for v in value)
    return value in setting.options or (value is None and setting.default is None)


def _load(settings: Settings) -> None:
    """The file picker's on_change: the file's settings into the session (before any widget is drawn)."""
    upload = st.session_state.get("_share_load")
    if upload is None:
        return
    try:
        values, left = read_view_file(upload.read(FILE_MOST + 1), settings)
    except ValueError as err:
        st.session_state[LOADED] = (t("ui.share_load_bad", name=shown(upload.name), why=shown(str(err))), True)
        return
    st.session_state.update(values)
    said = t("ui.share_loaded", name=shown(upload.name), n=len(values))
    if left:
        said = Message(said + " " + t("ui.share_load_left", items=shown_all(left)))
    st.session_state[LOADED] = (said, bool(left))
