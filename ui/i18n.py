"""The app's texts in English and 中文: one TOML file per language in locales/, looked up by key.

Keys are "section.name" (a section per page, plus "app", "ui" and "problems" for core's messages). A text with
{placeholders} is formatted with the values given to `t`; tests/app/test_i18n.py fails when a key or a
placeholder is missing in either language.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

import streamlit as st

from core.problems import Problem

LOCALES = Path(__file__).resolve().parents[1] / "locales"
LANGUAGES = {"en": "English", "zh": "中文"}
LANG_KEY = "lang"


@functools.cache
def catalog(lang: str) -> dict[str, str]:
    """{"section.name": text} for one language, read once per process."""
    with open(LOCALES / f"{lang}.toml", "rb") as f:
        sections = tomllib.load(f)
    return {f"{section}.{name}": text for section, texts in sections.items() for name, text in texts.items()}


def language() -> str:
    """The reader's language: the sidebar's choice, English until one is made."""
    lang = st.session_state.get(LANG_KEY, "en")
    return lang if lang in LANGUAGES else "en"


SHOWN_MOST = 200  # characters of one value in a text: a pasted page of words is not repeated in full


class Message(str):
    """A text made by t() or problem(): a later t() inserts it whole, as its own values are already cut."""


def t(key: str, **values) -> str:
    """The text for `key` in the reader's language, with {placeholders} filled from `values`.

    A value longer than SHOWN_MOST characters (other than a Message) is cut there, and its length is said.
    """
    text = catalog(language())[key]
    return Message(text.format(**{name: shown(value) for name, value in values.items()}) if values else text)


def shown(value):
    """`value` as a text shows it: a str longer than SHOWN_MOST characters is cut, and its length said."""
    if isinstance(value, str) and not isinstance(value, Message) and len(value) > SHOWN_MOST:
        return catalog(language())["ui.cut"].format(start=value[:SHOWN_MOST], n=len(value))
    return value


def problem(err: Exception) -> str:
    """An error from core in the reader's language: core.problems.Problem carries a key and values."""
    return t(f"problems.{err.key}", **err.values) if isinstance(err, Problem) else Message(err)
