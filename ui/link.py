"""The link that shares a view: each setting's widget is bound to the URL by Streamlit (`IN_LINK`).

Which settings a page has, and what takes each, is its declaration (ui.settings: `SETTINGS` in
lessons/<lesson>/settings.py), whose `kinds()` app.py passes to read_link and check_link (lessons.link_kinds): a
widget's name, "multi" for a choice of several, "window" (the PE page's windows) or "pinned" (ui.compare) for a
value kept in the link by hand. No page source is read; a page without a declaration (the overview) has no settings.

Streamlit 1.67 does most of it: `bind="query-params"` writes a widget's value into the URL under its key, drops
it when it equals the default, seeds the widget from a shared link, and restores it on Back and Forward;
`persist_state="session"` keeps the value while another page is shown. What is left here is where it falls short:
- it writes each change over the address (history.replaceState), so Back would leave the page instead of showing
  its earlier view: `ui.address.keep_history` (tests/browser/test_across_pages.py, Back brings k back);
- it drops a parameter it cannot use without a word: `check_link` names it, on the first run or, for a widget drawn
  later (another chapter's), on the run that draws it (tests/app/test_links.py, notices; test_link_values.py);
- it would write a translated option's shown text, in the reader's language, and it binds widgets only: a choice
  shown translated (`translated_choice`, `translated_choices`), a chart's window and a pinned A are kept in the
  link by hand (`from_link`, `to_link`);
- it drops a whole link past 1,000 parameters or 512 Ki characters (streamlit.runtime.state.query_params.
  sanitize_query_string) with a line in the server's log only, while the address still shows it: the browser
  reports such an address and the page names it (ui.address);
- links made before the binding named a setting without its page's prefix (?d_model=64): `read_link`
  (tests/app/test_links.py, old links);
- it seeds a whole-number box with int(float(text)), which raises OverflowError for inf, -Infinity or 1e400: a
  traceback from a link (Streamlit 1.67, tests/app/test_links.py, the test that Streamlit still raises; the upstream
  report: "st.number_input bound to query params raises OverflowError for ?key=inf"). `read_link` takes such a
  value out of the link before any widget is drawn, and a value given more than once too, which Streamlit would
  read as its last one (tests/app/test_links.py, test_link_fuzz.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal, TypedDict

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from ui.i18n import Message, shown, t


class Bound(TypedDict):
    """A widget's keyword arguments that put its value in the link and keep it across pages (typed, so that a type
    checker matches them to Streamlit's literal parameters)."""

    bind: Literal["query-params"]
    persist_state: Literal["session"]


IN_LINK: Bound = {
    "bind": "query-params",
    "persist_state": "session",
}  # a setting's widget: in the link, kept across pages
APP_PARAMS = ("lang", "present", "class", "lead", "cls_follow")  # read on every page (the last 3: ui.live_class)
ASKED = "_link_asked"  # the first run's parameters, {name: [values]}, until check_link has read them
SEEN = "_link_seen"  # the session's first link was read
OLD = "_link_old"  # an old link's names, {new name: old name}, until check_link has read them
REFUSED = "_link_refused"  # the parameters read_link took out of the link, until check_link has named them
WAITING = "_link_waiting"  # (page prefix, {name: (as the link said it, [values])}): values for widgets not drawn yet
NOTICE = "_link_notice"  # (page prefix, [(setting or None, item, the value it names)]): the notice, until it goes
_UNSET = ("_link_unset",)  # an item's setting not drawn yet when the item was made
NUMBERS = ("number_input", "slider")  # the kinds whose link value is a number (a range slider, two numbers, would
# be declared "multi": no page has one, and tests/app/test_links.py's round trip would fail if one did)


def back_or_forward() -> bool:
    """Whether this run is the browser's Back or Forward: Streamlit's flag for it, which is not public. Only what
    the binding cannot hold needs it (from_link: a translated choice, ui.compare's A, the PE page's windows): every
    bound widget is restored from the address by Streamlit itself."""
    return bool(getattr(get_script_run_ctx(), "is_history_navigation", False))


def from_link(param: str, read, *, into: str | None = None) -> None:
    """A value kept in the link by hand (what Streamlit cannot bind): on the session's first run that asks for it,
    and on Back or Forward, st.session_state[into or param] = read(the address's text for `param`, or None)."""
    into = into or param
    if into not in st.session_state or back_or_forward():
        st.session_state[into] = read(st.query_params.get(param))


def to_link(param: str, text: str | None) -> None:
    """Write a value kept in the link by hand into the address; None (its default) takes the parameter out. The
    address is written only when it changes: each write is a message to the browser."""
    if text is None:
        st.query_params.pop(param, None)
    elif st.query_params.get(param) != text:
        st.query_params[param] = text


def translated_choice(widget, label: str, options, *, key: str, format_func, **kwargs):
    """A choice whose options are shown translated (a page's chapter, the language), kept in the link by hand.

    A control Streamlit binds writes its option's label into the address, in the learner's language, so the link
    would stop opening its choice after a change of language (tests/app/test_i18n.py, ?lang=zh; the PE page's
    chapter in Chinese, tests/browser/test_positional_encoding.py). So `?<key>=<option>` is read when the session
    first draws the control and on Back or Forward, and the option shown is written back on every run (nothing when
    it is the first, the default). A value that is not an option is left to check_link's notice.

    Args:
        widget: st.segmented_control, st.sidebar.segmented_control, st.radio, ...
    """
    from_link(key, lambda asked: asked if asked in options else options[0])
    value = widget(label, options, format_func=format_func, key=key, persist_state="session", **kwargs)
    to_link(key, None if value == options[0] else value)
    return value


def translated_choices(widget, label: str, options, *, key: str, format_func, default, **kwargs) -> list:
    """translated_choice for a choice of several (st.multiselect): `?<key>=<option>&<key>=<option>`, kept in the
    link by hand (`?<key>=` for none), so that a link opens its choice in either language. Options the link names
    that are not options are left out (check_link names them).
    """
    if key not in st.session_state or back_or_forward():
        asked = st.query_params.get_all(key)
        st.session_state[key] = [o for o in asked if o in options] if asked else list(default)
    value = widget(label, options, format_func=format_func, key=key, persist_state="session", **kwargs)
    written = [str(v) for v in value] or [""]
    if list(value) == list(default):
        st.query_params.pop(key, None)
    elif st.query_params.get_all(key) != written:
        st.query_params[key] = written
    return value


def read_link(prefix: str, kinds: Mapping[str, str]) -> None:
    """On a session's first run, before any widget is drawn: note the link's parameters for check_link, rename an
    old link's settings to their widgets' keys (?d_model=64 on the PE page becomes ?pe_d_model=64), and take out
    what no widget of the page could take from it; then run again, so that the widgets are seeded from the new
    address. Taken out (and named by check_link, "not a value this setting takes" or "given n times"):
    - a number box's or slider's value that is not a finite number (inf, nan, 1e400, text), whether or not its
      widget is drawn in this run (a chapter not shown draws it later, and Streamlit would raise then);
    - a parameter given more than once, unless its widget takes several values (a multiselect): Streamlit would
      take the last without a word, a value kept by hand (ui.compare's A, the chapters) the last or the first.
    Back and Forward need none of this: they bring back addresses this app wrote, made of values widgets hold.

    Args:
        prefix: the page's settings' prefix (ui.pages' key).
        kinds: {key: kind} of the page's declared settings (ui.settings.Settings.kinds): which setting takes what.
    """
    if SEEN in st.session_state:
        return
    st.session_state[SEEN] = True
    params = {name: st.query_params.get_all(name) for name in st.query_params}
    old = [name for name in params if name not in APP_PARAMS and not name.startswith(f"{prefix}_")]
    asked: dict[str, list[str]] = {}  # an old name and its new one both given: the setting is given twice
    for name, values in params.items():
        asked.setdefault(f"{prefix}_{name}" if name in old else name, []).extend(values)
    st.session_state[ASKED] = asked
    st.session_state[OLD] = {f"{prefix}_{n}": n for n in old}
    refused = {name for name, values in asked.items() if not _could_take(kinds.get(name), values)}
    st.session_state[REFUSED] = refused
    kept = {name: values for name, values in asked.items() if name not in refused}
    if kept != params:
        st.query_params.from_dict(kept)
        st.rerun()


def check_link(where, prefix: str, kinds: Mapping[str, str]) -> None:
    """After each run: a notice naming each parameter of the link that was not used as given, why, and what was done
    instead: dropped (not a setting of the page), rounded and used (a whole-number box or slider given 1.5 holds 1),
    or the value its widget holds instead (its default, for a value out of its range or choices), named.

    On a session's first run: a parameter that is neither the app's (APP_PARAMS) nor one of the page's declared
    settings (`kinds`, as read_link) is unknown (and taken out of the address); one whose widget did not take its
    value, or that read_link took out, was malformed, outside the widget's range or choices, or given more than once.
    A widget the first run did not draw (another chapter, another method's settings) takes its value when it is
    drawn: its value waits (WAITING), and the run that first draws the widget names it if the widget did not take it
    (its range, its choices: which Streamlit would drop without a word, tests/app/test_link_values.py). Leaving the
    page forgets what waits.
    """
    asked = st.session_state.pop(ASKED, None)
    old = st.session_state.pop(OLD, {})
    refused = st.session_state.pop(REFUSED, set())
    ignored = _not_drawn_then_refused(prefix, kinds)
    if asked:
        waiting: dict[str, tuple[str, list[str]]] = {}
        for name, values in asked.items():
            said = f"{shown(old.get(name, name))}={shown(values[-1])}"
            why = t("ui.link_repeated", n=len(values)) if len(values) > 1 else t("ui.link_not_taken")
            if name not in kinds and name not in APP_PARAMS:
                ignored.append((None, f"{said} ({t('ui.link_unknown')})"))
                st.query_params.pop(name, None)
            elif name in st.session_state and (name in refused or not _takes(values, st.session_state[name])):
                ignored.append((name, f"{said} ({_done(kinds.get(name), values, st.session_state[name], why)})"))
            elif name in refused:  # taken out of the address before its widget is drawn: it will start at its default
                ignored.append((name, f"{said} ({t('ui.link_default', why=why)})"))
            elif name not in st.session_state and name in kinds:
                waiting[name] = (said, values)
        if waiting:
            st.session_state[WAITING] = (prefix, waiting)
    _notice(where, prefix, ignored)


def _notice(where, prefix: str, new: list[tuple[str | None, str]]) -> None:
    """The link's notice, drawn on every run until the learner dismisses it or leaves the page (a run that ends a
    training, a fragment's full rerun, keeps it: issue 55). An item about a setting goes once the setting's value
    is no longer the one it names (the learner changed it); an item about no setting stays until dismissed."""
    page, items = st.session_state.get(NOTICE, (prefix, []))
    if page != prefix:
        items = []
    state = st.session_state
    kept = []
    for name, text, value in items:
        if name is not None and name in state:
            if value == _UNSET:  # its widget drawn since: the value it started at is the one the item names
                value = state[name]
            elif state[name] != value:
                continue
        kept.append((name, text, value))
    kept += [(name, text, state[name] if name is not None and name in state else _UNSET) for name, text in new]
    if not kept:
        st.session_state.pop(NOTICE, None)
        return
    st.session_state[NOTICE] = (prefix, kept)
    box = where.container()
    box.warning(t("ui.link_ignored", items=Message("; ".join(text for _, text, _ in kept))))  # each item cut alone
    box.button(t("ui.link_dismiss"), key="_link_dismiss", on_click=dismiss)


def dismiss() -> None:
    """The notice's button (on_click): the notice goes for good."""
    st.session_state.pop(NOTICE, None)


def used(value) -> Message:
    """A widget's value as a link notice names it ("3", "true", "en", "a, b"): what the page used instead."""
    if isinstance(value, list | tuple):
        return Message(", ".join(used(v) for v in value) or "–")
    if isinstance(value, bool):
        return Message(str(value).lower())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return Message(shown(str(value)))


def _done(kind: str | None, values: list[str], value, why: str) -> str:
    """What the page did with a link's value its widget did not take as given, naming the value it used: a number
    its box or slider cut to a whole one ("rounded: 1 used"), else the value the widget kept ("...: 100 used")."""
    if kind in NUMBERS and len(values) == 1 and _finite(values[0]) and isinstance(value, int | float):
        asked = float(values[0])
        if not isinstance(value, bool) and value != asked and value in (math.trunc(asked), round(asked)):
            return t("ui.link_rounded", value=used(value))
    return t("ui.link_replaced", why=why, value=used(value))


def _not_drawn_then_refused(prefix: str, kinds: Mapping[str, str]) -> list[tuple[str | None, str]]:
    """The waiting values whose widgets this run drew and did not take them, as the notice names them; each value
    is checked once, by the first run that draws its widget."""
    page, waiting = st.session_state.get(WAITING, (None, {}))
    if page != prefix:  # another page: the link's values for this one are gone from the address
        st.session_state.pop(WAITING, None)
        return []
    drawn = [name for name in waiting if name in st.session_state]
    refused = [
        (n, f"{waiting[n][0]} ({_done(kinds.get(n), waiting[n][1], st.session_state[n], t('ui.link_not_taken'))})")
        for n in drawn
        if not _takes(waiting[n][1], st.session_state[n])
    ]
    for name in drawn:
        del waiting[name]
    if not waiting:
        st.session_state.pop(WAITING, None)
    return refused


def _takes(values: list[str], value) -> bool:
    """Whether the widget's value is what the link's text says (so the link was used)."""
    if isinstance(value, list | tuple):
        if not value:  # none chosen: `?key=` (translated_choices)
            return values in ([], [""])
        return len(values) == len(value) and all(_takes([v], x) for v, x in zip(values, value, strict=True))
    if len(values) != 1:
        return False
    text = values[0]
    if isinstance(value, bool):
        return text.lower() == str(value).lower()
    if isinstance(value, int | float):
        try:
            return math.isclose(float(text), float(value))
        except ValueError:
            return False
    return text == str(value)


def _could_take(kind: str | None, values: list[str]) -> bool:
    """Whether a widget of this kind (None: no widget, or not known) could take these values from the link."""
    if len(values) > 1 and kind != "multi":
        return False
    if kind in NUMBERS:
        return all(_finite(v) for v in values)
    return True


def _finite(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False
