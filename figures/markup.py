"""Words, names and titles a user gave, as plotly shows them: as text.

Plotly renders a subset of HTML in every title, legend entry, hover label, tick and SVG text (`<a href>`, `<b>`,
`<br>`, `<span style>`...), so a group named `<a href="http://host">x</a>` would be a link in the legend. It decodes
`&lt;`, `&gt;` and `&amp;` back into the characters, after reading the tags: escaped, a user's text shows as typed.
Text drawn by WebGL (a Scattergl's or Scatter3d's `text` on the points) is not read as HTML, nor decoded: it stays
as it is. tests/figures/test_markup.py checks the builders; tests/app/test_markup.py the pages' figures.
"""

from __future__ import annotations

import html
from collections.abc import Iterable


def escaped(text: str) -> str:
    """`text` as plotly shows it as it is (no tag of it read as HTML)."""
    return html.escape(str(text), quote=False)


def escaped_all(texts: Iterable[str]) -> list[str]:
    """`escaped` for each text."""
    return [escaped(text) for text in texts]
