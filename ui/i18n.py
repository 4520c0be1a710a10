"""The app's texts in English and 中文: one TOML file per language in locales/, looked up by key.

Keys are "section.name" (a section per page, plus "app", "ui" and "problems" for core's messages). A text with
{placeholders} is formatted with the values given to `t`; tests/app/test_i18n.py fails when a key or a
placeholder is missing in either language.

A text is Markdown (Streamlit renders every notice, caption and label as Markdown), and a value put into it is
shown as text: `t` escapes each value that is not already a Message (a word, a link's value, a file's name), so
that `[x](http://host)`, `![x](http://host/t.png)`, a bare `https://host`, `$x$`, `<b>` or `*x*` from a link or
a box never becomes a link, an image, a formula or markup (tests/app/test_markup.py; tests/browser/
test_across_pages.py, in Chromium). Figures render a subset of HTML instead: `figure_text` fills a text for a
figure, whose builders escape their words themselves (figures/markup.py).
"""

from __future__ import annotations

import functools
import re
import string
import tomllib
from pathlib import Path, PurePath

import streamlit as st
from babel import Locale

from core.problems import Problem
from figures.markup import escaped as html_escaped
from ui.cache_reads import reads_session

LOCALES = Path(__file__).resolve().parents[1] / "locales"
LANGUAGES = {"en": "English", "zh": "中文"}
LANG_KEY = "lang"


# functools.cache, not ui.cache: a locale file is a constant of the process, the same for every learner, and a
# learner's choice (the language) only picks one of two; Streamlit's "Clear cache" has nothing here to refresh.
@functools.cache
def _read(lang: str) -> dict[str, str | dict[str, str]]:
    with open(LOCALES / f"{lang}.toml", "rb") as f:
        sections = tomllib.load(f)
    return {f"{section}.{name}": text for section, texts in sections.items() for name, text in texts.items()}


@functools.cache  # a constant of the process, as _read's
def catalog(lang: str) -> dict[str, str]:
    """{"section.name": text} for one language, read once per process; a text with plural forms as its `other` form."""
    return {key: text if isinstance(text, str) else text["other"] for key, text in _read(lang).items()}


@functools.cache  # a constant of the process, as _read's
def plurals(lang: str) -> dict[str, dict[str, str]]:
    """{"section.name": {"by": value's name, category: text, ...}} for the texts with plural forms."""
    return {key: text for key, text in _read(lang).items() if isinstance(text, dict)}


@functools.cache  # Babel's rules of a language: a constant of the process
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


def plural_category(lang: str, n: float) -> str:
    """The CLDR plural category of the number `n` in `lang` ("one", "other", ...)."""
    return _locale(lang).plural_form(abs(n))


def _text(key: str, values: dict) -> str:
    """The text for `key` in the reader's language; for a text with plural forms, the form its count asks for."""
    lang = language()
    forms = plurals(lang).get(key)
    if forms is None:
        return catalog(lang)[key]
    return forms.get(plural_category(lang, values[forms["by"]]), forms["other"])


@reads_session
def language() -> str:
    """The reader's language: the sidebar's choice; on a link's first run, before the sidebar has read the link
    (the pages' titles in the navigation are made first), the link's `lang`; English otherwise. A cached function
    that reads a text (t, figure_text, catalog(language()), ...) is keyed by it (ui.cache_reads.reads_session)."""
    lang = st.session_state.get(LANG_KEY)
    if lang is None:
        lang = st.query_params.get(LANG_KEY, "en")
    return lang if lang in LANGUAGES else "en"


SHOWN_MOST = 200  # characters of one value in a text: a pasted page of words is not repeated in full


class Message(str):
    """Markdown made by t(), shown() or problem(): a later t() inserts it whole, as its own values are already cut
    and escaped."""


def t(key: str, **values) -> str:
    """The text for `key` in the reader's language, as Markdown (a Message), with {placeholders} filled from `values`.

    A str value other than a Message is shown as text (`shown`: cut past SHOWN_MOST characters, Markdown escaped).
    """
    text = _text(key, values)
    return Message(_FILLER.vformat(text, (), values) if values else text)


class _Filler(string.Formatter):
    """str.format with each value `shown`; a `{value!r}` is the repr of the value as typed, escaped, and cut as
    `shown` cuts: the repr of an escaped text would double its backslashes, and Markdown would read the link again."""

    def convert_field(self, value, conversion):
        if conversion == "r" and isinstance(value, str) and not isinstance(value, Message):
            if len(value) > SHOWN_MOST:
                return Message(
                    catalog(language())["ui.cut"].format(start=escaped(repr(value[:SHOWN_MOST])), n=len(value))
                )
            return escaped(repr(value))
        return super().convert_field(value, conversion)

    def format_field(self, value, format_spec):
        return super().format_field(shown(value), format_spec)


_FILLER = _Filler()


def figure_text(key: str, **values) -> str:
    """The text for `key` for a figure's title or label, which plotly renders as a subset of HTML, not Markdown:
    each str value cut past SHOWN_MOST characters and escaped for HTML (figures.markup)."""
    text = _text(key, values)
    return text.format(**{name: html_escaped(_cut(v)) if isinstance(v, str) else v for name, v in values.items()})


def shown_all(values, sep: str = ", ") -> Message:
    """Values in one Markdown text, each `shown` on its own (cut and escaped)."""
    return Message(sep.join(shown(value) for value in values))


def shown(value):
    """`value` as a Markdown text shows it: a str (not already a Message) cut past SHOWN_MOST characters, its length
    said, and escaped (`escaped`); a path as its text; any other value (a number) as it is."""
    if isinstance(value, PurePath):
        value = str(value)
    if isinstance(value, str) and not isinstance(value, Message):
        cut = _cut(value)
        if cut is not value:  # "start… (n characters in all)": the start is the value's, the rest the lab's
            return Message(catalog(language())["ui.cut"].format(start=escaped(value[:SHOWN_MOST]), n=len(value)))
        return escaped(value)
    return value


def _cut(value):
    if isinstance(value, str) and not isinstance(value, Message) and len(value) > SHOWN_MOST:
        return catalog(language())["ui.cut"].format(start=value[:SHOWN_MOST], n=len(value))
    return value


# CommonMark lets a backslash escape any ASCII punctuation; these are the ones that start a link or an image, code,
# emphasis, strikethrough, raw HTML, an entity, a table cell, a heading or a quote, or LaTeX (Streamlit's $...$)
_MARKUP = re.compile(r"[\\`*\[\]()!<>#|~$&]")
_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")  # "_" unless between letters or digits (es_size stays)
# at a line's start: a list's item ("- x", "1. x"), a setext heading's underline or a rule ("===", "---"); "-1" and
# "+inf" stay as they are
_LINE_START = re.compile(r"(?m)^([ \t]*)([-+=](?=[ \t]|[-+= \t]*$)|\d{1,9}(?=\.(?:[ \t]|$)))")
# GFM makes a link of a bare https://host, www.host or user@host even without brackets, and backslashes do not stop
# it (remark-gfm finds them in the text once escapes are read): a word joiner inside breaks the pattern unseen
_AUTOLINK = re.compile(r"(?i)(?<=[a-z])(?=:/)|(?<=www)(?=\.)|(?=@)")
JOINER = "\u2060"


def escaped(text: str) -> Message:
    """`text` as Markdown that shows it as it is: no link, image, formula, emphasis or HTML comes out of it."""
    if isinstance(text, Message):
        return text
    text = _AUTOLINK.sub(JOINER, text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _MARKUP.sub(lambda m: "\\" + m[0], text)
    text = _UNDERSCORE.sub(r"\\_", text)
    return Message(_LINE_START.sub(lambda m: m[1] + "\\" + m[2] if not m[2][0].isdigit() else m[0] + "\\", text))


def problem(err: Exception) -> str:
    """An error from core in the reader's language: core.problems.Problem carries a key and values. Another error's
    text is shown as text, unless t() made it (ui.compare's ValueErrors)."""
    if isinstance(err, Problem):
        return t(f"problems.{err.key}", **err.values)
    made = err.args[0] if len(err.args) == 1 else None
    return made if isinstance(made, Message) else escaped(str(err))
