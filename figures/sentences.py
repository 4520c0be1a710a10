"""Plotly figures for the "Sentence vectors" page. Pure: CPU arrays in, go.Figure out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from figures.markup import escaped, escaped_all
from figures.titles import BELOW, legend_room, titled

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f")
METHOD_COLOURS = ("#7f7f7f", "#bcbd22", "#ff7f0e", "#1f77b4")  # GloVe mean, no positions, sinusoidal, learned


def similarity_figure(
    matrices: Mapping[str, np.ndarray],
    sentences: Sequence[str],
    title: str,
    hover: str = "{a} · {b}<br>cos {value:.3f}",
) -> go.Figure:
    """Cosine matrices side by side, one heatmap per method, each on its own colour scale (a GloVe mean's cosines
    crowd near 1, MiniLM's spread out); the sentences numbered from 1 on the axes, written out in the hover.

    Args:
        matrices: {panel name: (n, n) cosines}; sentences: (n,) as typed.
        hover: a cell's hover text with {a}, {b} (the two sentences) and {value}.
    """
    names = list(matrices)
    n = len(sentences)
    numbers = [str(i + 1) for i in range(n)]
    shown = escaped_all(sentences)
    spec, top = titled(title, above=24)
    fig = make_subplots(1, len(names), subplot_titles=escaped_all(names), horizontal_spacing=0.14)
    for c, name in enumerate(names):
        z = np.asarray(matrices[name], float)
        text = [[hover.format(a=shown[i], b=shown[j], value=z[i, j]) for j in range(n)] for i in range(n)]
        fig.add_trace(
            go.Heatmap(
                z=z,
                x=numbers,
                y=numbers,
                text=text,
                hovertemplate="%{text}<extra></extra>",
                coloraxis=f"coloraxis{c + 1 if c else ''}",
            ),
            1,
            c + 1,
        )
        fig.update_yaxes(autorange="reversed", type="category", row=1, col=c + 1)
        fig.update_xaxes(type="category", row=1, col=c + 1)
    # Each panel's colour bar lies under it, as wide as it: beside it, the left one was drawn over the right panel's
    # first column and row labels on a phone (tests/browser/test_sentence_vectors.py).
    bars = {}
    for c in range(len(names)):
        x0, x1 = fig.layout[f"xaxis{c + 1 if c else ''}"].domain
        bars[f"coloraxis{c + 1 if c else ''}"] = dict(
            colorscale="Viridis",
            colorbar=dict(
                orientation="h", x=(x0 + x1) / 2, xanchor="center", len=x1 - x0, thickness=12, nticks=4,
                yref="container", y=0, yanchor="bottom", ypad=8, title=dict(text="cos", side="right"),
            ),
        )  # fmt: skip
    fig.update_layout(title=spec, margin=dict(t=top, l=40, r=20, b=90), height=max(420, 250 + 14 * n), **bars)
    return fig


def separation_figure(
    labels: Sequence[str],
    separation: Mapping[str, Sequence[float]],
    title: str,
    axis_titles: tuple[str, str] = ("pair", "1 − cos"),
    hover: Sequence[str] | None = None,
) -> go.Figure:
    """How far each method puts each pair's two sentences apart (1 − cosine), one group of bars per pair.

    Args:
        labels: (pairs,) short names on the x axis; separation: {method name: (pairs,) values};
        hover: (pairs,) each pair's sentences, written out in the hover.
    """
    spec, top = titled(title)
    texts = escaped_all(hover) if hover is not None else escaped_all(labels)
    fig = go.Figure()
    for colour, (name, values) in zip(METHOD_COLOURS * 3, separation.items(), strict=False):
        fig.add_bar(
            x=list(labels),
            y=list(values),
            name=escaped(name),
            marker_color=colour,
            customdata=texts,
            hovertemplate=f"{escaped(name)}<br>%{{customdata}}<br>%{{y:.2e}}<extra></extra>",
        )
    fig.update_layout(
        title=spec,
        barmode="group",
        margin=dict(t=top, l=60, r=20, b=legend_room(len(separation))),  # the legend under the axis title
        height=300 + legend_room(len(separation)),
        xaxis=dict(title=axis_titles[0], type="category"),
        yaxis=dict(title=axis_titles[1], rangemode="tozero"),
        legend=BELOW,
    )
    return fig


def map_figure(
    coords: np.ndarray,
    topics: Sequence[str],
    topic_names: Mapping[str, str],
    sentences: Sequence[str],
    title: str,
    axis_titles: tuple[str, str] = ("1", "2"),
    query: tuple[np.ndarray, str, str] | None = None,
) -> go.Figure:
    """The collection on a 2D map, one colour per topic, and the query as a star.

    Args:
        coords: (n, 2); topics, sentences: (n,); topic_names: {topic: its name in the reader's language};
        query: ((2,) its place, its text, its legend name), or None.
    """
    spec, top = titled(title)
    fig = go.Figure()
    topics_arr = np.asarray(topics)
    shown = np.asarray(escaped_all(sentences), dtype=object)
    for colour, topic in zip(PALETTE * 3, dict.fromkeys(topics), strict=False):
        at = np.flatnonzero(topics_arr == topic)
        fig.add_scatter(
            x=coords[at, 0],
            y=coords[at, 1],
            mode="markers",
            name=escaped(topic_names.get(topic, topic)),
            marker=dict(size=7, color=colour, opacity=0.8),
            text=shown[at],
            hovertemplate="%{text}<extra>" + escaped(topic_names.get(topic, topic)) + "</extra>",
        )
    if query is not None:
        xy, text, name = query
        fig.add_scatter(
            x=[float(xy[0])],
            y=[float(xy[1])],
            mode="markers",
            name=escaped(name),
            marker=dict(size=18, symbol="star", color="black", line=dict(width=1, color="white")),
            text=[escaped(text)],
            hovertemplate="%{text}<extra></extra>",
        )
    fig.update_layout(
        title=spec,
        margin=dict(t=top, l=50, r=20, b=50),
        height=520,
        xaxis=dict(title=axis_titles[0]),
        yaxis=dict(title=axis_titles[1]),
    )
    return fig
