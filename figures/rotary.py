"""Plotly figures for the rotary page. Pure: CPU arrays in, go.Figure out."""

from __future__ import annotations

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from figures.titles import narrow_title


def rotation_figure(angles: np.ndarray, title: str, colour_title: str = "position m") -> go.Figure:
    """The point (cos m*theta, sin m*theta) of one dimension pair for positions m = 0, 1, ..., coloured by m, on the
    unit circle drawn as a guide (a shape under the points: a slow pair's points lie on one dot and draw no arc)."""
    m = np.arange(len(angles))
    points = go.Scatter(
        x=np.cos(angles),
        y=np.sin(angles),
        mode="markers+lines",
        line=dict(width=0.5, color="lightgray"),
        marker=dict(color=m, colorscale="Viridis", size=7, colorbar=dict(title=dict(text=colour_title))),
        text=[str(i) for i in m],
        hovertemplate="m = %{text}<extra></extra>",
    )
    layout = dict(
        title=dict(text=title),
        xaxis=dict(range=[-1.2, 1.2], title=dict(text="cos")),
        yaxis=dict(range=[-1.2, 1.2], scaleanchor="x", title=dict(text="sin")),
        margin=dict(l=10, r=10, t=40, b=10),
        shapes=[dict(type="circle", x0=-1, y0=-1, x1=1, y1=1, layer="below", line=dict(color="lightgray", dash="dot"))],
    )
    return go.Figure(data=[points], layout=layout)


def alibi_figure(bias: np.ndarray, title: str, axis_titles: tuple[str, str] = ("key j", "query i")) -> go.Figure:
    """(length, length) causal bias; the masked upper triangle is left blank."""
    z = np.where(np.isfinite(bias), bias, np.nan).astype(np.float32)
    heatmap = go.Heatmap(z=z, colorscale="Blues_r", hovertemplate="i = %{y}, j = %{x}<br>%{z:.3f}<extra></extra>")
    layout = dict(
        title=dict(text=title),
        xaxis=dict(title=dict(text=axis_titles[0])),
        yaxis=dict(title=dict(text=axis_titles[1]), autorange="reversed"),
        margin=dict(l=10, r=10, t=40, b=10),
    )
    return go.Figure(data=[heatmap], layout=layout)


def ab_figure(
    a: dict[str, np.ndarray],
    b: dict[str, np.ndarray],
    title: str,
    x_title: str,
    y_title: str,
    *,
    log_y: bool = False,
) -> go.Figure:
    """Two configurations' curves on one plot: A's dashed, B's solid, one colour per curve name (x = 0, 1, ...)."""
    palette = plotly.colors.qualitative.Plotly
    lines = []
    for side, curves, dash in (("A", a, "dash"), ("B", b, "solid")):
        for i, (name, values) in enumerate(curves.items()):
            lines.append(
                go.Scatter(
                    y=np.asarray(values, np.float32),
                    x0=0,
                    dx=1,
                    mode="lines",
                    name=f"{side}: {name}",
                    line=dict(dash=dash, color=palette[i % len(palette)]),
                )
            )
    heading, top = narrow_title(title, 40)
    layout = dict(
        title=heading,
        xaxis=dict(title=dict(text=x_title)),
        yaxis=dict(title=dict(text=y_title), type="log" if log_y else "linear"),
        margin=dict(l=10, r=10, t=top, b=10),
    )
    return go.Figure(data=lines, layout=layout)
