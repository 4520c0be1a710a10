"""Plotly figures for the word-embedding page. Pure: CPU arrays in, go.Figure out."""

from __future__ import annotations

import itertools

import numpy as np
import plotly.graph_objects as go

from figures.markup import escaped, escaped_all
from figures.titles import narrow_title


def word_scatter_figure(
    coords: np.ndarray,
    words: list[str],
    *,
    axis_titles: tuple[str, ...] = ("PC 1", "PC 2", "PC 3"),
    arrows: list[tuple[str, str]] | None = None,
    title: str = "",
    points_name: str = "words",
) -> go.Figure:
    """Labelled points in 2D or 3D; each arrow (from_word, to_word) is drawn between two plotted words. The words
    are the user's: escaped wherever plotly reads HTML (figures.markup); `title` is the caller's, escaped already.

    Args:
        coords: (n, 2) or (n, 3).
        points_name: the points' name in the legend.
    """
    coords = np.asarray(coords, np.float64)
    three_d = coords.shape[1] == 3
    where = {w: i for i, w in enumerate(words)}
    if three_d:
        traces = [
            go.Scatter3d(
                x=coords[:, 0],
                y=coords[:, 1],
                z=coords[:, 2],
                mode="markers+text",
                text=words,  # drawn by WebGL: not read as HTML
                hovertext=escaped_all(words),
                hoverinfo="text",
                textposition="top center",
                marker=dict(size=4),
                name=points_name,
            )
        ]
        for a, b in arrows or []:
            i, j = where[a], where[b]
            traces.append(
                go.Scatter3d(
                    x=coords[[i, j], 0],
                    y=coords[[i, j], 1],
                    z=coords[[i, j], 2],
                    mode="lines",
                    line=dict(width=5),
                    name=escaped(f"{a} → {b}"),
                )
            )
        scene = dict(xaxis_title=axis_titles[0], yaxis_title=axis_titles[1], zaxis_title=axis_titles[2])
        heading, top = narrow_title(title, 40)
        return go.Figure(data=traces, layout=dict(title=heading, scene=scene, margin=dict(l=0, r=0, t=top, b=0)))

    points = go.Scatter(
        x=coords[:, 0],
        y=coords[:, 1],
        mode="markers+text",
        text=escaped_all(words),  # SVG text: read as HTML
        textposition="top center",
        marker=dict(size=9),
        name=points_name,
        hovertemplate="%{text}<br>(%{x:.3f}, %{y:.3f})<extra></extra>",
    )
    annotations = [
        dict(
            x=coords[where[b], 0],
            y=coords[where[b], 1],
            ax=coords[where[a], 0],
            ay=coords[where[a], 1],
            xref="x",
            yref="y",
            axref="x",
            ayref="y",
            showarrow=True,
            arrowhead=3,
            arrowwidth=2,
            arrowcolor=color,
        )
        for (a, b), color in zip(arrows or [], itertools.cycle(["#d62728", "#1f77b4", "#2ca02c", "#9467bd"]))
    ]
    heading, top = narrow_title(title, 40)
    layout = dict(
        title=heading,
        xaxis=dict(title=dict(text=axis_titles[0])),
        yaxis=dict(title=dict(text=axis_titles[1]), scaleanchor="x"),
        annotations=annotations,
        margin=dict(l=10, r=10, t=top, b=10),
        showlegend=False,
    )
    return go.Figure(data=[points], layout=layout)
