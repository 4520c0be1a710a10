"""Errors a person can act on, with a message key so the app can show them in the reader's language.

`Problem("pe.base_range", base=0.5)` is a ValueError whose str() is the English text of `problems.pe.base_range`
... in locales/en.toml (the app shows locales/<lang>.toml's); the CLI and the tests see the English.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

from babel import Locale

ENGLISH = Path(__file__).resolve().parents[1] / "locales" / "en.toml"


# Not a cached result (ui.cache caches those): a constant of the process, the English locale file read once.
@functools.cache
def english() -> dict[str, str | dict[str, str]]:
    """The [problems] texts in English; a text with a count as its plural forms (ui.i18n: {by, one, other})."""
    with open(ENGLISH, "rb") as f:
        return tomllib.load(f)["problems"]


def english_text(key: str, values: dict) -> str:
    """The English text of `key` for these values: a plural text's form for its count, by CLDR's English rule."""
    text = english()[key]
    if isinstance(text, str):
        return text
    return text.get(Locale("en").plural_form(abs(values[text["by"]])), text["other"])


class Problem(ValueError):
    """A ValueError with `key` (under [problems] in locales/*.toml) and the `values` its text is formatted with."""

    def __init__(self, key: str, **values) -> None:
        self.key = key
        self.values = values
        super().__init__(english_text(key, values).format(**values))
