"""Chart titles that fit their chart: plotly never wraps a title, and one longer than the chart is cut at its right
edge (a window 1000 px wide in presenter mode, a phone's 360 px)."""

from __future__ import annotations

import re

# Titles are broken into lines of at most LINE_UNITS, a Latin character one unit and a CJK one WIDE (measured in
# Chromium: 7.4 px and 18.7 px at plotly's title size), about 470 px; NARROW_UNITS, about 330 px, fit a phone's chart
# (390 px wide, 358 px of chart): for a st.plotly_chart figure, which the browser draws as it is sent (ui.live_chart's
# charts break their titles in the browser, at the width they are drawn).
LINE_UNITS, WIDE = 64, 2.5
NARROW_UNITS = 44
LINE_PX = 24  # a title line's height
_CJK = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
_WIDE = re.compile(f"[{_CJK}]")
_PIECES = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+\\s*|\\s+")  # a CJK character, or a word and its spaces
_NO_BREAK_BEFORE = set("，。、：；）》」！？,.:;)")


def _units(text: str) -> float:
    return sum(WIDE if _WIDE.match(c) else 1 for c in text)


def title_lines(text: str, units: float = LINE_UNITS) -> list[str]:
    """`text` broken into lines of at most `units` (a longer word alone on its line), at spaces or between CJK
    characters, never before a closing punctuation mark."""
    lines, line = [], ""
    for piece in _PIECES.findall(text):
        if line.strip() and _units(line + piece.rstrip()) > units and piece[0] not in _NO_BREAK_BEFORE:
            lines.append(line.rstrip())
            line = ""
        if line or piece.strip():
            line += piece
    return [*lines, line.rstrip()] if line.strip() or not lines else lines


def titled(title: str, above: int = 0, units: float = LINE_UNITS) -> tuple[dict, int]:
    """Plotly's title for `title`, its lines broken to fit a narrow chart, and the top margin it needs (with
    `above` px more for the panels' own titles, under it)."""
    lines = title_lines(title, units)
    spec = dict(text="<br>".join(lines), yref="container", y=1, yanchor="top", pad=dict(t=14))
    return spec, 26 + LINE_PX * len(lines) + above


def narrow_title(title: str, top: int, units: float = NARROW_UNITS) -> tuple[dict, int]:
    """Plotly's title for `title` in a figure st.plotly_chart draws, and the top margin it needs, `top` px for one
    line: on one line when it fits a phone's chart (or `units`: a chart in a column), else broken into lines that
    do, from the chart's top down."""
    lines = title_lines(title, units)
    if len(lines) == 1:
        return dict(text=title), top
    spec = dict(text="<br>".join(lines), yref="container", y=1, yanchor="top", pad=dict(t=8))
    return spec, top + LINE_PX * (len(lines) - 1)


# --- Legends at the chart's foot ---------------------------------------------------------------------------------
# Under the x axis's labels and title, in a bottom margin that holds them: a legend placed under the plot in the
# plot's fractions (y=-0.25) ran into the axis title once presenter mode made the text larger (ui.presenter), and
# plotly does not always grow its margins for one on its first drawing.
BELOW = dict(orientation="h", yref="container", y=0, yanchor="bottom")
AXIS_TITLE_ROOM = 60  # px: the x axis's tick labels and title
LEGEND_ROW = 26  # px: a legend row in presenter mode's larger text


def legend_room(entries: int, above: int = AXIS_TITLE_ROOM) -> int:
    """The bottom margin for `above` px of axis labels and a legend of `entries`, one row each where it is narrow."""
    return above + 8 + LEGEND_ROW * entries
