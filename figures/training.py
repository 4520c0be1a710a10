"""Plotly figures for the learned-vs-sinusoidal page. Pure: CPU arrays in, go.Figure out."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from figures.titles import narrow_title


def lines_figure(
    curves: dict[str, np.ndarray],
    title: str,
    x_title: str,
    y_title: str,
    *,
    x0: int = 0,
    marker_x: float | None = None,
    marker_label: str = "",
    log_y: bool = False,
    x: list[float] | None = None,
    log_x: bool = False,
    hlines: dict[str, float] | None = None,
) -> go.Figure:
    """One line per named curve, at x (default x0, x0 + 1, ...); an optional dashed vertical marker and labelled
    dotted horizontal lines."""
    spacing = dict(x=x) if x is not None else dict(x0=x0, dx=1)
    lines = [go.Scatter(y=np.asarray(v, np.float32), mode="lines", name=name, **spacing) for name, v in curves.items()]
    shapes, annotations = [], []
    if marker_x is not None:
        shapes = [dict(type="line", x0=marker_x, x1=marker_x, y0=0, y1=1, yref="paper", line=dict(dash="dash"))]
        annotations = [dict(x=marker_x, y=1, yref="paper", text=marker_label, showarrow=False, yanchor="bottom")]
    for label, level in (hlines or {}).items():
        shapes.append(dict(type="line", x0=0, x1=1, xref="paper", y0=level, y1=level, line=dict(dash="dot")))
        at = math.log10(level) if log_y else level  # annotations, unlike shapes, sit in log10 units on a log axis
        annotations.append(dict(x=0, xref="paper", y=at, text=label, showarrow=False, xanchor="left", yanchor="bottom"))
    heading, top = narrow_title(title, 40)
    layout = dict(
        title=heading,
        xaxis=dict(title=dict(text=x_title), type="log" if log_x else "linear"),
        yaxis=dict(title=dict(text=y_title), type="log" if log_y else "linear"),
        shapes=shapes,
        annotations=annotations,
        margin=dict(l=10, r=10, t=top, b=10),
    )
    return go.Figure(data=lines, layout=layout)


def positions_pca_figure(coords: np.ndarray, title: str, colour_title: str = "position") -> go.Figure:
    """Rows of a position table projected to 2D, coloured by position: a smooth path or a scatter."""
    coords = np.asarray(coords, np.float64)
    n = len(coords)
    trace = go.Scatter(
        x=coords[:, 0],
        y=coords[:, 1],
        mode="markers+lines",
        line=dict(width=0.5, color="lightgray"),
        marker=dict(color=np.arange(n), colorscale="Viridis", size=5, colorbar=dict(title=dict(text=colour_title))),
        text=[str(i) for i in range(n)],
        hovertemplate="position %{text}<extra></extra>",
    )
    heading, top = narrow_title(title, 40)
    layout = dict(
        title=heading,
        xaxis=dict(title=dict(text="PC 1")),
        yaxis=dict(title=dict(text="PC 2")),
        margin=dict(l=10, r=10, t=top, b=10),
    )
    return go.Figure(data=[trace], layout=layout)
