"""Figures for the text-to-tokens lesson: a cut's tokens coloured in place, BPE's merges, fertility, the table's
price. Pure: values in, go.Figure (or, for the tokens in place, an HTML text) out."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from figures.markup import escaped
from figures.titles import AXIS_TITLE_ROOM, BELOW, legend_room, title_lines

TOP = 50  # px above the plot for a one-line title
BAR_UNITS = 12  # a bar's name broken into lines of about 12 Latin characters: three bars side by side on a phone


# Light fills a dark text reads on (WCAG AA), one per token in turn, so that neighbours differ
COLOURS = ("#fde2e4", "#dbeafe", "#dcfce7", "#fef3c7", "#ede9fe", "#cffafe", "#fee2c5", "#e5e7eb")


def visible(token: str) -> str:
    """A token as the lab shows it anywhere (chips, lists, row labels): a space as ␣, a newline as ⏎, a tab as ⇥, the
    empty token as ∅, so that every token is seen."""
    return token.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥") or "∅"


def tokens_html(tokens: Sequence[str], ids: Sequence[int | None], unknown: str = "?", limit: int = 400) -> str:
    """The tokens one after the other, each on its own colour with its id under it (`unknown` for none); spaces
    drawn as ␣ and newlines as ⏎, so that every token is seen. Everything from the text is escaped.

    Args:
        limit: the most tokens drawn; a last box says how many more there are.
    """
    boxes = []
    for n, (token, i) in enumerate(zip(tokens[:limit], ids[:limit], strict=True)):
        shown = visible(token)
        fill = "#fecaca" if i is None else COLOURS[n % len(COLOURS)]
        boxes.append(
            f'<span class="tt-token" style="background:{fill}">{html.escape(shown)}'
            f"<sub>{html.escape(unknown if i is None else str(i))}</sub></span>"
        )
    if len(tokens) > limit:
        boxes.append(f'<span class="tt-token tt-more">+{len(tokens) - limit:,}</span>')
    style = (
        "<style>.tt-tokens{display:flex;flex-wrap:wrap;gap:4px;line-height:1.2}"
        ".tt-token{color:#111;padding:2px 5px;border-radius:4px;display:inline-flex;flex-direction:column;"
        "align-items:center;font-family:monospace;white-space:pre-wrap;max-width:100%;overflow-wrap:anywhere;word-break:break-all}"
        ".tt-token sub{font-size:0.7em;color:#374151}.tt-more{background:#f3f4f6}</style>"
    )
    return f'{style}<div class="tt-tokens">{"".join(boxes)}</div>'


DRAWN_MERGES = 1_000  # the merges chart draws at most this many merges, evenly spread


def drawn_steps(learned: int) -> list[int]:
    """The merge steps (from 1) merges_figure draws of `learned`: each one up to DRAWN_MERGES, else that many evenly
    spread, the first and the last included."""
    n = min(learned, DRAWN_MERGES)
    return sorted({1 + round(i * (learned - 1) / max(n - 1, 1)) for i in range(n)})


def merges_figure(steps: Sequence[int], counts: Sequence[int], title: str, x_title: str, y_title: str) -> go.Figure:
    """Each merge's pair count (log y) at the merge steps `steps`: the pairs merged grow rarer. Its legend has room
    for merge_marker's entry, drawn over it (ui.live_chart.cached_chart's overlay), so that the figure stays the same
    as the step moves."""
    line = go.Scatter(
        x=np.asarray(steps, np.int32), y=np.asarray(counts, np.int64), mode="lines", name=y_title,
        hovertemplate="%{x}: %{y:,}<extra></extra>",
    )  # fmt: skip
    heading, top = dict(text=escaped(title)), TOP  # ui.live_chart breaks it to the chart's width, taller
    room = legend_room(2, AXIS_TITLE_ROOM)  # the line's entry and the marker's
    return go.Figure(
        [line],
        layout=dict(
            title=heading,
            xaxis=dict(title=dict(text=x_title)),
            yaxis=dict(title=dict(text=y_title), type="log"),
            margin=dict(l=10, r=10, t=top, b=room),
            legend=BELOW,
            showlegend=True,
            height=260 + room,
        ),
    )


def merge_marker(step: int, count: int, label: str) -> go.Figure:
    """Merge `step`, its pair seen `count` times, marked: the trace drawn over merges_figure."""
    marker = go.Scatter(
        x=[step], y=[count], mode="markers", marker=dict(size=11, color="#d62728"), name=label,
        hovertemplate="%{x}: %{y:,}<extra></extra>",
    )  # fmt: skip
    return go.Figure([marker])


def fertility_figure(
    curves: Mapping[str, tuple[Sequence[int], Sequence[float]]],
    points: Mapping[str, tuple[int, float]],
    title: str,
    x_title: str,
    y_title: str,
) -> go.Figure:
    """Tokens per word against the vocabulary's size (log x): one line per BPE curve, one marker per other
    tokenizer's single vocabulary (WordPiece)."""
    traces = [
        go.Scatter(
            x=np.asarray(x),
            y=np.asarray(y, np.float32),
            mode="lines",
            name=escaped(name),
            hovertemplate="%{x:,}: %{y:.3f}<extra></extra>",
        )
        for name, (x, y) in curves.items()
    ]
    traces += [
        go.Scatter(
            x=[x], y=[y], mode="markers", name=escaped(name), marker=dict(size=12, symbol="diamond"),
            hovertemplate="%{x:,}: %{y:.3f}<extra></extra>",
        )
        for name, (x, y) in points.items()
    ]  # fmt: skip
    heading, top = dict(text=escaped(title)), TOP  # ui.live_chart breaks it to the chart's width, taller
    return go.Figure(
        traces,
        layout=dict(
            title=heading,
            xaxis=dict(title=dict(text=x_title), type="log"),
            yaxis=dict(title=dict(text=y_title), rangemode="tozero"),
            margin=dict(l=10, r=10, t=top, b=legend_room(len(traces), AXIS_TITLE_ROOM)),
            legend=BELOW,
            height=280 + legend_room(len(traces), AXIS_TITLE_ROOM),
        ),
    )


def price_figure(parts: Mapping[str, Mapping[str, int]], title: str, y_title: str) -> go.Figure:
    """Stacked bars of parameters, one bar per model variant ({bar: {part: count}}), a part per colour."""
    names = list(dict.fromkeys(part for bar in parts.values() for part in bar))
    traces = [
        go.Bar(
            x=list(parts), y=[bar.get(name, 0) for bar in parts.values()], name=name,
            hovertemplate="%{x}: %{y:,}<extra>" + name + "</extra>",
        )
        for name in names
    ]  # fmt: skip
    heading, top = dict(text=escaped(title)), TOP  # ui.live_chart breaks it to the chart's width, taller
    # The bars' names on lines of their own, never slanted: slanted on a phone, "+ its own output layer" ran into the
    # legend below (tests/browser/test_text_to_tokens.py). The legend at the chart's foot, under the names.
    # Room under the plot, in px, that plotly's margins do not always grow to on a first drawing: the names' lines,
    # then the legend, a row per part where it is narrow (a phone).
    lines = [title_lines(escaped(bar), BAR_UNITS) for bar in parts]
    bottom = legend_room(len(names), 24 + 18 * max(map(len, lines)))
    return go.Figure(
        traces,
        layout=dict(
            title=heading,
            barmode="stack",
            xaxis=dict(tickvals=list(parts), ticktext=["<br>".join(shown) for shown in lines], tickangle=0),
            yaxis=dict(title=dict(text=y_title)),
            margin=dict(l=10, r=10, t=top, b=bottom),
            legend=BELOW,
            height=300 + bottom,
        ),
    )
