"""A page's settings, declared once: each setting's key, widget, default, bounds, label and whether the link holds it.

A lesson declares its settings in `lessons/<lesson>/settings.py` as one `Settings`, next to the frozen config
dataclass core validates. Everything else reads that declaration:
- the page draws each widget from it (`SETTINGS["pe_d_model"].draw(column, on_change=...)`);
- the link is read and checked from it (`Settings.kinds`: which parameter a widget of which kind takes), with no
  parsing of sources at run time;
- another page reads a setting's value without drawing it (`Settings.value`: the session's value, else the
  declared default), as the attention page reads the training settings of the learned-vs-sinusoidal page;
- the tests enumerate the settings (every key, its default, its bounds).

Every widget with a key is declared, those kept only while the session lasts (`in_link=False`) too, and so is what
the page keeps in the link by hand: a choice shown translated (`translated=True`), a chart's window (the PE page's
lessons.positional_encoding.settings.WindowConfig.settings, widget "window") and a pinned A (ui.compare.pin_ui,
widget "pinned"), which their own modules draw. A slider over the first index of a window keeps inside what it
indexes (`Setting.draw_inside`, `Setting.keep_inside`). A key built at run time is declared one by one.

Example::

    SETTINGS = Settings("pe", (
        Setting("pe_d_model", "number_input", 128, "d_model", step=1),
        Setting("pe_max_len", "number_input", 100, "pe.max_len", step=1),
        Setting("pe_chapter", "segmented_control", "table", "pe.chapter", options=CHAPTERS,
                option_text="pe.ch_{}", translated=True),
    ))
    d_model = SETTINGS["pe_d_model"].draw(c1, on_change=mark_custom)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import streamlit as st

from ui.address import keep_openable
from ui.i18n import t
from ui.link import IN_LINK, translated_choice, translated_choices

Widget = Literal[
    "number_input",
    "slider",
    "select_slider",
    "text_input",
    "text_area",
    "toggle",
    "checkbox",
    "radio",
    "selectbox",
    "segmented_control",
    "pills",
    "multiselect",
    "window",
    "pinned",
]
SEVERAL: tuple[Widget, ...] = ("multiselect",)  # widgets whose value is a list
BY_HAND: tuple[Widget, ...] = ("window", "pinned")
TEXTS: tuple[Widget, ...] = (
    "text_input",
    "text_area",
)  # widgets whose value can make an address too long  # kept in the link by hand, drawn by their own ui module


@dataclass(frozen=True)
class Setting:
    """One setting of a page.

    key: the widget's key and the link's parameter ("pe_d_model"), starting with its page's prefix.
    widget: the Streamlit widget that draws it (st.<widget>), or what keeps it in the link by hand and draws it
        itself: "window" (lessons.positional_encoding.tables.window_link: a chart's window, a whole number; its span
        one of `options`),
        "pinned" (ui.compare.pin_ui: A, one parameter that holds a whole settings dataclass).
    default: its value when nothing chose another (the config dataclass's default, where it has one).
    label: a locale key ("pe.max_len"), or, with no dot in it, a name shown as it is ("d_model", "k").
    options: the choices of a choice widget (radio, selectbox, select_slider, segmented_control, pills,
        multiselect), as the link writes them.
    option_text: a locale key with {} for an option ("pe.ch_{}"): the options are shown translated.
    translated: the options are shown translated, so the link holds the option by hand (ui.link.translated_choice),
        not the shown text Streamlit's binding would write.
    low, high, step: a number's or a slider's bounds and step (None: unbounded; the config checks the value).
    in_link: the link holds it (False: kept while the session lasts, not shared).
    help: a locale key for the widget's help, or None.
    """

    key: str
    widget: Widget
    default: Any
    label: str
    options: tuple = ()
    option_text: str | None = None
    translated: bool = False
    low: float | None = None
    high: float | None = None
    step: float | None = None
    in_link: bool = True
    help: str | None = None

    def __post_init__(self) -> None:
        if self.translated and self.widget not in SEVERAL and self.options and self.options[0] != self.default:
            raise ValueError(f"{self.key}: a translated choice's default is its first option")  # translated_choice's

    @property
    def kind(self) -> str:
        """What the link's check needs: "multi" for a widget that takes several values, else the widget's name."""
        return "multi" if self.widget in SEVERAL else self.widget

    def shown_label(self) -> str:
        return t(self.label) if "." in self.label else self.label

    def format_option(self, option) -> str:
        return t(self.option_text.format(option)) if self.option_text else str(option)

    def option_texts(self) -> Callable[[Any], str]:
        """format_option in this run's language, fixed when the widget is drawn: the widget formats its options
        again later (AppTest, outside the run, in no session's language), and must name them as it drew them."""
        texts = {option: self.format_option(option) for option in self.options or ()}
        return lambda option: texts[option] if option in texts else self.format_option(option)

    def draw(self, where: Any = st, **kwargs) -> Any:
        """Draw the widget in `where` (st, a column, st.sidebar) and return its value. `kwargs` go to the widget
        as they are (on_change, disabled, label_visibility, ...), and may override what the declaration says
        (a label or help filled with values; min_value, max_value or value where they follow other settings: a
        slider over a table as long as another setting says)."""
        if self.widget in BY_HAND:
            raise ValueError(f"{self.key}: a {self.widget} is drawn by its own ui module, not by Setting.draw")
        label = kwargs.pop("label", None) or self.shown_label()
        if self.help is not None and "help" not in kwargs:
            kwargs["help"] = t(self.help)
        widget = getattr(where, self.widget)
        if "format_func" not in kwargs and (self.option_text is not None or self.translated):
            kwargs["format_func"] = self.option_texts()
        if self.translated:
            if self.widget in SEVERAL:
                return translated_choices(
                    widget, label, list(self.options), key=self.key, default=self.default, **kwargs
                )
            return translated_choice(widget, label, list(self.options), key=self.key, **kwargs)
        kwargs.update(IN_LINK if self.in_link else {"persist_state": "session"})
        value = widget(label, key=self.key, **(self._value_args() | kwargs))
        if self.in_link and self.widget in TEXTS:
            keep_openable(self.key, value)  # a text too long for an address is left out of it
        return value

    def _value_args(self) -> dict[str, Any]:
        """The widget's arguments that the declaration says: its bounds, options and default (by name, so that a
        page's own min_value, max_value or value replace them)."""
        w = self.widget
        if w in ("number_input", "slider"):
            return dict(min_value=self.low, max_value=self.high, value=self.default, step=self.step)
        if w in ("text_input", "text_area", "toggle", "checkbox"):
            return dict(value=self.default)
        if w in ("radio", "selectbox"):
            return dict(options=list(self.options), index=list(self.options).index(self.default))
        if w == "select_slider":
            return dict(options=list(self.options), value=self.default)
        if w in ("segmented_control", "pills", "multiselect"):
            return dict(options=list(self.options), default=self.default)
        raise ValueError(f"{self.key}: no arguments known for st.{w}")

    def keep_inside(self, *, total: int, span: int, where: Any = st) -> int:
        """Move this setting's value, the first index of a window of `span` inside `total` (a slider over a table,
        a chart's window), back inside `total`, saying so in `where`, if it fell out (the table shrank).

        Returns:
            The last first index a window of `span` may have: max(total - span, 0).
        """
        last = last_start(total, span)
        asked = st.session_state.get(self.key, 0)
        if asked > last:
            where.warning(t("ui.window_moved", label=self.shown_label(), asked=asked, total=total, last=last))
            st.session_state[self.key] = last
        return last

    def draw_inside(self, where: Any = st, *, total: int, span: int, **kwargs) -> int:
        """draw() for a slider over the first index of a window of `span` inside `total`, its range following
        `total` (keep_inside moves a value that fell out); no slider when there is one place only.

        Returns:
            The first index, in [0, max(total - span, 0)].
        """
        last = self.keep_inside(total=total, span=span, where=where)
        if last == 0:
            return 0
        return self.draw(where, min_value=0, max_value=last, **kwargs)

    def value(self, state: Mapping[str, Any]) -> Any:
        """This setting's value in a session (`st.session_state`), or its default when its widget has not been
        drawn in it (its page not opened yet)."""
        return state.get(self.key, self.default)


def last_start(total: int, span: int) -> int:
    """The last first index a window of `span` may have inside `total`."""
    return max(total - span, 0)


@dataclass(frozen=True)
class Settings:
    """A page's settings: its link prefix and each setting, in the order the page draws them."""

    prefix: str
    items: tuple[Setting, ...]

    def __post_init__(self) -> None:
        keys = [s.key for s in self.items]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{self.prefix}: a key declared twice")
        if bad := [k for k in keys if not k.startswith(f"{self.prefix}_")]:
            raise ValueError(f"{self.prefix}: keys without the page's prefix: {bad}")

    def __getitem__(self, key: str) -> Setting:
        for setting in self.items:
            if setting.key == key:
                return setting
        raise KeyError(key)

    def __iter__(self) -> Iterator[Setting]:
        return iter(self.items)

    def __contains__(self, key: object) -> bool:
        return any(s.key == key for s in self.items)

    def kinds(self) -> dict[str, str]:
        """{key: kind} for every setting the link may hold (ui.link reads the link with it)."""
        return {s.key: s.kind for s in self.items}

    def values(self, state: Mapping[str, Any], convert: Callable[[Setting, Any], Any] | None = None) -> dict:
        """{name without the prefix: value} for every setting, read from a session without drawing anything."""
        out = {}
        for s in self.items:
            value = s.value(state)
            out[s.key.removeprefix(f"{self.prefix}_")] = convert(s, value) if convert else value
        return out
