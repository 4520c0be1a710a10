"""The link that shares a view: each setting's widget is bound to the URL by Streamlit (`IN_LINK`).

Streamlit 1.67 does most of it: `bind="query-params"` writes a widget's value into the URL under its key, drops
it when it equals the default, seeds the widget from a shared link, and restores it on Back and Forward;
`persist_state="session"` keeps the value while another page is shown. What is left here is where it falls short:
- it writes each change over the address (history.replaceState), so Back would leave the page instead of showing
  its earlier view: `keep_history` (tests/browser/test_across_pages.py, Back brings k back);
- it drops a parameter it cannot use without a word: `check_link` names it, on the first run or, for a widget drawn
  later (another chapter's), on the run that draws it (tests/app/test_links.py, notices; test_link_values.py);
- links made before the binding named a setting without its page's prefix (?d_model=64): `read_link`
  (tests/app/test_links.py, old links);
- it seeds a whole-number box with int(float(text)), which raises OverflowError for inf, -Infinity or 1e400: a
  traceback from a link (Streamlit 1.67, tests/app/test_links.py, the test that Streamlit still raises; the upstream
  report: "st.number_input bound to query params raises OverflowError for ?key=inf"). `read_link` takes such a
  value out of the link before any widget is drawn, and a value given more than once too, which Streamlit would
  read as its last one (tests/app/test_links.py, test_link_fuzz.py).
"""

from __future__ import annotations

import ast
import functools
import math
from pathlib import Path
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
APP_PARAMS = ("lang", "present")  # the parameters app.py reads, on every page
ASKED = "_link_asked"  # the first run's parameters, {name: [values]}, until check_link has read them
SEEN = "_link_seen"  # the session's first link was read
OLD = "_link_old"  # an old link's names, {new name: old name}, until check_link has read them
REFUSED = "_link_refused"  # the parameters read_link took out of the link, until check_link has named them
WAITING = "_link_waiting"  # (page script, {name: (as the link said it, [values])}): values for widgets not drawn yet
NUMBERS = ("number_input", "slider")  # the widgets whose link value is a number (a range slider, two numbers,
# would be "multi" in widget_kinds: no page has one, and tests/app/test_links.py's round trip would fail if one did)
SEVERAL = (
    "multiselect",
    "translated_choices",
)  # the widgets whose link value may be given more than once (as may a "multi" choice)

_history = st.components.v2.component("view_history", js=Path(__file__).with_name("history.js").read_text())


def back_or_forward() -> bool:
    """Whether this run is the browser's Back or Forward: Streamlit's flag for it, which is not public. Only what
    the binding cannot hold needs it (from_link: a translated choice, ui.compare's A, ui.window's windows): every
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


def keep_history() -> None:
    """Make each change a learner makes a new entry of the browser's history (see history.js)."""
    _history(key="view_history")


def read_link(prefix: str, script: str) -> None:
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
        script: the page's script, whose widget calls say which setting takes what (`widget_kinds`).
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
    kinds = widget_kinds(script)
    refused = {name for name, values in asked.items() if not _could_take(kinds.get(name), values)}
    st.session_state[REFUSED] = refused
    kept = {name: values for name, values in asked.items() if name not in refused}
    if kept != params:
        st.query_params.from_dict(kept)
        st.rerun()


def check_link(where, script: str) -> None:
    """After each run: a notice naming each parameter of the link that was not used, and why.

    On a session's first run: a parameter that is no widget's key in the page's script is unknown (and taken out
    of the address); one whose widget did not take its value, or that read_link took out, was malformed, outside the
    widget's range or choices, or given more than once.
    A widget the first run did not draw (another chapter, another method's settings) takes its value when it is
    drawn: its value waits (WAITING), and the run that first draws the widget names it if the widget did not take it
    (its range, its choices: which Streamlit would drop without a word, tests/app/test_link_values.py). Leaving the
    page forgets what waits.
    """
    asked = st.session_state.pop(ASKED, None)
    old = st.session_state.pop(OLD, {})
    refused = st.session_state.pop(REFUSED, set())
    ignored = _not_drawn_then_refused(script)
    if asked:
        kinds = widget_kinds(script)
        waiting: dict[str, tuple[str, list[str]]] = {}
        for name, values in asked.items():
            said = f"{shown(old.get(name, name))}={shown(values[-1])}"
            if name not in st.session_state and f'"{name}"' not in _text(script):
                ignored.append(f"{said} ({t('ui.link_unknown')})")
                st.query_params.pop(name, None)
            elif name in refused or (name in st.session_state and not _takes(values, st.session_state[name])):
                why = t("ui.link_repeated", n=len(values)) if len(values) > 1 else t("ui.link_not_taken")
                ignored.append(f"{said} ({why})")
            elif name not in st.session_state and name in kinds:
                waiting[name] = (said, values)
        if waiting:
            st.session_state[WAITING] = (script, waiting)
    if ignored:
        where.warning(t("ui.link_ignored", items=Message("; ".join(ignored))))  # each item cut on its own


def _not_drawn_then_refused(script: str) -> list[str]:
    """The waiting values whose widgets this run drew and did not take them, as the notice names them; each value
    is checked once, by the first run that draws its widget."""
    page, waiting = st.session_state.get(WAITING, (None, {}))
    if page != script:  # another page: the link's values for this one are gone from the address
        st.session_state.pop(WAITING, None)
        return []
    drawn = [name for name in waiting if name in st.session_state]
    refused = [
        f"{waiting[n][0]} ({t('ui.link_not_taken')})" for n in drawn if not _takes(waiting[n][1], st.session_state[n])
    ]
    for name in drawn:
        del waiting[name]
    if not waiting:
        st.session_state.pop(WAITING, None)
    return refused


@functools.cache
def _sources(script: str) -> tuple[str, ...]:
    """A page script's text and the texts of the ui modules it imports, where some of its widgets are drawn
    (ui/pe_settings.py: the PE page's settings), read once per process."""
    text = Path(script).read_text(encoding="utf-8")
    imported: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith(("ui.", "lessons.")):  # a lesson folder's settings.py declares its widgets
                imported.add(node.module)
                imported.update(f"{node.module}.{alias.name}" for alias in node.names)  # from lessons.x import settings
            elif node.module == "ui":  # from ui import pe_settings
                imported.update(f"ui.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names if alias.name.startswith("ui."))
    root = Path(__file__).parents[1]
    modules = (root / f"{name.replace('.', '/')}.py" for name in sorted(imported))
    return (text, *(path.read_text(encoding="utf-8") for path in modules if path.is_file()))


def _text(script: str) -> str:
    """What `_sources` reads, as one text: a widget's key is a string in it."""
    return "\n".join(_sources(script))


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


@functools.cache
def widget_kinds(script: str) -> dict[str, str]:
    """{key: what takes it} for each widget call of a page's script (or of a ui module it imports) with a literal key (`key="pe_d_model"`): the
    widget's name (number_input, slider, text_input, ...), or "multi" for a widget that takes several values.
    A key built at run time (f"we_{box}") is not in it: its value is left to Streamlit."""
    kinds: dict[str, str] = {}
    nodes = (node for text in _sources(script) for node in ast.walk(ast.parse(text)))
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        named = [a.value for a in node.args[:2] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if (
            called == "Setting" and len(named) == 2
        ):  # ui.settings' declaration: Setting("tt_merges", "number_input", ...)
            kinds[named[0]] = "multi" if named[1] in SEVERAL else named[1]
            continue
        words = {w.arg: w.value.value for w in node.keywords if isinstance(w.value, ast.Constant)}
        key = words.get("key")
        if isinstance(key, str):
            several = called in SEVERAL or words.get("selection_mode") == "multi"
            kinds[key] = "multi" if several else called
    return kinds


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
