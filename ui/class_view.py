"""A live class's views (ui.live_class): the view a leader shows as a link of the page's declared settings, the
bar's words for it, and a learner taken to it. A view's link holds the page's settings only, each learner keeping
their own language, presenter mode and class."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit

import streamlit as st

from core.classroom import View
from ui.i18n import Message, shown
from ui.pages import LESSONS, OVERVIEW, lesson
from ui.settings import BY_HAND, SEVERAL, Setting, Settings

AT = "_class_at"  # session state: the view version this learner last went to (following moves past it)
PARAM, LEAD = "class", "lead"  # the link's parameters: the class's code, the leader's secret (taken out at once)
FOLLOW = "cls_follow"  # the follow switch's key and parameter
# A learner's own parameters, never a view's: those a learner keeps when going to a view (kept by hand), and the
# bound toggles', which Streamlit itself keeps across pages (and forbids writing).
OWN, BOUND = ("lang", PARAM), ("present", FOLLOW)
SHOWN_SETTINGS = 3  # settings named in the bar; more are "…"


def link_of(folder: str, declared: Settings | None) -> str:
    """This session's view of the page as a link: /<folder>?<each of its settings the link holds, where it is not
    its default>, as Streamlit's binding writes them, and what ui.link keeps in the address by hand (a translated
    choice, a window, a pinned A). The app's own parameters are left out: each learner keeps theirs."""
    kept: list[tuple[str, str]] = []
    for s in declared or ():
        if not s.in_link:
            continue
        if s.widget in BY_HAND or s.translated:
            kept += [(s.key, v) for v in st.query_params.get_all(s.key)]
        elif s.key in st.session_state and (value := st.session_state[s.key]) != s.default:
            values = value if isinstance(value, list | tuple) else [value]
            kept += [(s.key, str(v).lower() if isinstance(v, bool) else str(v)) for v in values] or [(s.key, "")]
    return f"/{folder}" + (f"?{urlencode(kept)}" if kept else "")


def described(view: View, settings: Mapping[str, Settings]) -> Message:
    """The view as the bar names it: the page's title and the first SHOWN_SETTINGS settings its link sets, with
    their labels and values in the reader's language ("Positional encoding, d_model 128")."""
    page = lesson(view.page)
    declared = settings.get(page.folder)
    parts = []
    for key, value in parse_qsl(urlsplit(view.link).query):
        if declared is not None and key in declared:
            setting = declared[key]
            parts.append(f"{setting.shown_label()} {setting.format_option(value) if setting.options else value}")
    if len(parts) > SHOWN_SETTINGS:
        parts = [*parts[:SHOWN_SETTINGS], "…"]
    return Message(shown(", ".join([page.title, *parts])))


def go(view: View, declared: Settings | None, here: str) -> None:
    """To the leader's view, keeping this learner's language, presenter mode and class: each of the page's settings
    takes the view's value, or its default where the view's link has none (Streamlit forbids writing a bound
    widget's parameter, and a value kept across pages would win over the link's)."""
    st.session_state[AT] = view.version
    path, _, query = view.link.partition("?")
    target = next((x for x in (OVERVIEW, *LESSONS.values()) if x.folder == path.strip("/")), None)
    if target is None:
        return
    asked: dict[str, list[str]] = {}
    for k, v in parse_qsl(query, keep_blank_values=True):
        asked.setdefault(k, []).append(v)
    params = {own: st.query_params.get_all(own) for own in OWN if own in st.query_params}
    for s in declared or ():
        if s.widget in BY_HAND:
            if s.key in asked:
                params[s.key] = asked[s.key]
        elif s.in_link:
            st.session_state[s.key] = taken(s, asked.get(s.key))
    if target.folder == here:
        st.rerun()
    st.switch_page(target.script, query_params=params)


def taken(setting: Setting, texts: list[str] | None):
    """The value a setting's widget takes from a link's texts for it (its default for none, or one it cannot take)."""
    if not texts:
        return [] if setting.widget in SEVERAL and texts == [] else setting.default
    if setting.widget in SEVERAL:
        return [o for o in setting.options if str(o) in texts]
    text = texts[-1]
    if setting.options:
        return next((o for o in setting.options if str(o) == text), setting.default)
    if setting.widget in ("toggle", "checkbox"):
        return text.lower() == "true"
    if setting.widget in ("number_input", "slider"):
        try:
            number = float(text)
        except ValueError:
            return setting.default
        return int(number) if isinstance(setting.default, int) and number.is_integer() else number
    return text
