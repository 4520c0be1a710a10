"""Two configurations side by side: a learner pins the page's settings as A, changes them to B, sees both.

On a page whose settings are one frozen dataclass (core's RopeConfig, PEConfig, ...):

    cfg = RopeConfig(head_dim=..., base=...)   # B: built from the page's bound widgets, as always
    a = pin_ui("rp_a", cfg)                    # the Pin / Unpin buttons; returns A, or None
    if a is not None:                          # A is pinned and differs from B
        settings_table(a, cfg)                 # both configurations, the changed settings marked
        ...                                    # the page's figures of A against B (computed by core)

`pin_ui` draws "Pin these settings as A" while nothing is pinned; once A is pinned, A's settings and "Unpin A".
It returns None while nothing is pinned, when A equals B (it says so: "B equals A: change a setting to compare")
and when the link's A is unusable (it names the parameter and why, then drops it): malformed, or naming no field
(`rp_a=`, `rp_a=;;;`). An A given twice in the link is taken out and named by ui.link.read_link, as any setting.

The link. B is what it always was: each bound widget's own parameter (`rp_base=500000`). A is ONE unbound
parameter, named by the page, whose text lists every field of A's dataclass in its order, `name:value` joined by
`;`, for example `rp_a=head_dim:64;base:500000;method:yarn;original:4096;target:16384;factor:4;low_freq:1;high_freq:4`.
Why this form:
- one parameter per page: a second set of bound widgets would double the page's controls, and Streamlit binds
  widgets, not values; an unbound parameter may be written with st.query_params (only bound keys may not);
- every field, not only those that differ from the defaults: a pinned A is a snapshot and must not move when a
  default changes in a later version;
- read back through the dataclass itself (`decode`), so A is validated by the same `__post_init__` as B, and a
  hand-edited link gets the same messages; a field left out takes the dataclass default, so a short hand-written
  `rp_a=base:500000` works too, and is pinned (and written back) in full;
- the page declares the parameter (ui.settings: `Setting("rp_a", "pinned", ...)` in lessons/<lesson>/settings.py),
  so ui.link.check_link counts it among the page's settings, and a link with A gets no "not a setting" notice.
In the address bar Streamlit writes it percent-encoded (`rp_a=head_dim%3A64%3Bbase%3A500000...`), as it writes
every parameter; a hand-written link may use `:` and `;` as they are. Each field is read by the type of its default
(int, float, str or bool), so a settings dataclass used here gives every field a plain default of its own type
(`base: float = 10000.0`, not `= 10000`).
A is kept in st.session_state too (key `_<param>`, e.g. `_rp_a`) and written back into the address on every run
(so that A survives a switch to another page and back, whatever the address keeps meanwhile); on a session's first
run and on Back/Forward it is read from the address instead, as app.py does for ?lang. pin_ui works inside an
st.fragment (the rotary page calls it in one: tests/browser/test_rotary.py, the A/B round trip and Back).
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, TypeVar

import streamlit as st

from ui.i18n import Message, problem, shown, t
from ui.link import from_link, to_link

if TYPE_CHECKING:
    from _typeshed import DataclassInstance  # what dataclasses.fields takes; typeshed's, so only for the checker

T = TypeVar("T", bound="DataclassInstance")  # a settings dataclass
FIELD_SEP, VALUE_SEP = ";", ":"


def encode(settings) -> str:
    """A dataclass's fields as `name:value;name:value` (all of them, in their order)."""
    return FIELD_SEP.join(
        f"{f.name}{VALUE_SEP}{_text(getattr(settings, f.name))}" for f in dataclasses.fields(settings)
    )


def decode(text: str, cls: type[T]) -> T:
    """The dataclass `cls` from `encode`'s text; a field not given takes its default.

    Raises ValueError (a translated text) for a text that names no field, an unknown, repeated or malformed field,
    and cls's own Problem for a value it refuses.
    """
    fields = {f.name: f for f in dataclasses.fields(cls)}
    if not text.replace(FIELD_SEP, "").strip():  # `rp_a=` or `rp_a=;;;`: pinning the defaults is not what it says
        raise ValueError(t("ui.ab_empty", fields=", ".join(fields)))
    values = {}
    for item in text.split(FIELD_SEP):
        if not item.strip():
            continue
        name, sep, value = (part.strip() for part in item.partition(VALUE_SEP))
        if not sep or name not in fields:
            raise ValueError(t("ui.ab_unknown", item=item, fields=", ".join(fields)))
        if name in values:
            raise ValueError(t("ui.ab_repeated", name=name))
        kind = type(fields[name].default)
        try:
            values[name] = _parse(value, kind)
        except ValueError:
            raise ValueError(t("ui.ab_malformed", name=name, value=value, kind=kind.__name__)) from None
    return cls(**values)


def pin_ui(param: str, current: T, *, where=st) -> T | None:
    """Pin / Unpin buttons for the page's settings `current` (B); returns A when it is pinned and differs from B.

    Args:
        param: A's query parameter ("rp_a"), declared by the page as a "pinned" setting so that check_link knows it.
        current: B, the dataclass built from the page's widgets.
        where: the container the buttons and notices go in.
    """
    key = f"_{param}"
    from_link(param, lambda text: text, into=key)
    text = st.session_state[key]
    a = None
    if text is not None:
        try:
            a = decode(text, type(current))
            st.session_state[key] = text = encode(a)  # a short hand-written A is pinned in full, as a snapshot
        except ValueError as err:
            where.warning(t("ui.ab_bad", param=param, text=text, problem=problem(err)))
            st.session_state[key] = text = None
    to_link(param, text)
    if text is None:
        where.button(t("ui.ab_pin"), key=f"{param}_pin", on_click=_keep, args=(key, encode(current)))
        return None
    c1, c2 = where.columns([4, 1], vertical_alignment="center")
    c1.caption(t("ui.ab_pinned", settings=_readable(a)))
    c2.button(t("ui.ab_unpin"), key=f"{param}_unpin", on_click=_keep, args=(key, None))
    if a == current:
        where.info(t("ui.ab_same"))
        return None
    return a


def settings_table(a, b, *, where=st) -> None:
    """Both configurations as a table, one row per setting, the settings B changed marked."""
    rows = [(f.name, _text(getattr(a, f.name)), _text(getattr(b, f.name))) for f in dataclasses.fields(a)]
    where.table(
        {
            t("ui.ab_setting"): [name for name, _, _ in rows],
            "A": [va for _, va, _ in rows],
            "B": [vb for _, _, vb in rows],
            t("ui.ab_changed"): ["≠" if va != vb else "" for _, va, vb in rows],
        }
    )


def _keep(key: str, text: str | None) -> None:
    st.session_state[key] = text


def _text(value) -> str:
    """A field's value as short text that reads back exactly: 4.0 is "4", 0.1 is "0.1"."""
    if isinstance(value, float) and math.isfinite(value):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    return str(value)


def _parse(text: str, kind: type):
    if kind is bool:
        if text.lower() not in ("true", "false"):
            raise ValueError(text)
        return text.lower() == "true"
    if kind is float:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(text)
        return value
    return kind(text)


def _readable(settings) -> str:
    return Message(
        ", ".join(f"{f.name} {shown(_text(getattr(settings, f.name)))}" for f in dataclasses.fields(settings))
    )
