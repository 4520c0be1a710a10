"""Helpers every test folder shares."""

import re


def found(pattern: str, text: str, flags: int = 0) -> re.Match[str]:
    """re.search where the test knows the text holds the pattern: it fails naming both if not."""
    match = re.search(pattern, text, flags)
    assert match is not None, f"{pattern!r} not found in {text[:500]!r}"
    return match
