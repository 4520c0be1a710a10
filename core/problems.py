"""Errors a person can act on, with a message key so the app can show them in the reader's language.

`Problem("pe.base_range", base=0.5)` is a ValueError whose str() is the English text of `problems.pe.base_range`
... in locales/en.toml (the app shows locales/<lang>.toml's); the CLI and the tests see the English.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

ENGLISH = Path(__file__).resolve().parents[1] / "locales" / "en.toml"


@functools.cache
def english() -> dict[str, str]:
    with open(ENGLISH, "rb") as f:
        return tomllib.load(f)["problems"]


class Problem(ValueError):
    """A ValueError with `key` (under [problems] in locales/*.toml) and the `values` its text is formatted with."""

    def __init__(self, key: str, **values) -> None:
        self.key = key
        self.values = values
        super().__init__(english()[key].format(**values))
