"""Plotly figures for the attention page: one head under every position scheme. Pure: CPU arrays in, go.Figure out."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from figures.grid import grid_layout


def heatmaps_figure(
    matrices: dict[str, np.ndarray],
    tokens: list[str],
    title: str,
    *,
    columns: int = 3,
    shared: bool = False,
    colorscale: str = "RdBu_r",
    zmid: float | None = 0.0,
    axis_titles: tuple[str, str] = ("key n", "query m"),
) -> go.Figure:
    """One (n, n) heatmap per named matrix, side by side in rows of `columns`; -inf (masked keys) left blank.

    Args:
        shared: one colour scale for all (the four terms, the softmax weights); else each panel its own range,
            read from the hover, since a scheme's bias can dwarf another's logits.
        zmid: the value at the middle of a diverging scale (None: no middle, e.g. weights from 0 to 1).
    """
    names = list(matrices)
    rows = math.ceil(len(names) / columns)
    places, layout = grid_layout(names, columns, vspace=0.08 if rows > 1 else 0.0, axis_titles=axis_titles)
    # The axes are categories, "position:token", with plotly's own ticks: it labels every k-th one, k as small as
    # the panel's size in pixels allows at the labels' font size, so that a long sentence's labels never overlap
    # (tests/browser/test_attention.py); the hover names the row's and the column's token and position in full.
    for key, axis in layout.items():
        if key.startswith("xaxis"):
            axis.update(type="category", tickangle=-60)
        elif key.startswith("yaxis"):
            axis.update(type="category", autorange="reversed")
    finite = [m[np.isfinite(m)] for m in matrices.values()]
    values = np.concatenate([v.ravel() for v in finite]) if finite else np.zeros(0)
    low, high = (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)
    if shared and zmid is not None:
        reach = max(abs(low - zmid), abs(high - zmid)) or 1.0
        low, high = zmid - reach, zmid + reach
    labels = [f"{i}:{t}" for i, t in enumerate(tokens)]  # a repeated word stays a column of its own
    traces = []
    for i, (name, m) in enumerate(matrices.items()):
        z = np.where(np.isfinite(m), m, np.nan).astype(np.float32)
        scale = dict(zmin=low, zmax=high) if shared else ({} if zmid is None else dict(zmid=zmid))
        traces.append(
            go.Heatmap(
                z=z,
                x=labels,
                y=labels,
                colorscale=colorscale,
                showscale=shared and i == 0,
                hovertemplate=f"{name}<br>m = %{{y}}, n = %{{x}}<br>%{{z:.3f}}<extra></extra>",
                **places[i],
                **scale,
            )
        )
    layout.update(title=dict(text=title), height=280 * rows + 80, margin=dict(l=10, r=10, t=70, b=10))
    return go.Figure(data=traces, layout=layout)


def terms_figure(
    terms: dict[str, np.ndarray],
    total: np.ndarray,
    tokens: list[str],
    title: str,
    total_name: str = "sum = logits",
    axis_titles: tuple[str, str] = ("key n", "query m"),
) -> go.Figure:
    """The four terms of (x + p) W_q . (x + p) W_k / sqrt(d) and their sum, on one diverging scale centred on 0, so
    that the panels compare (which term is large, which is near 0)."""
    return heatmaps_figure(
        {**terms, total_name: total}, tokens, title, columns=len(terms) + 1, shared=True, axis_titles=axis_titles
    )


def distance_figure(
    distances: np.ndarray,
    curves: dict[str, np.ndarray],
    title: str,
    x_title: str = "distance m − n",
    y_title: str = "logit",
    revision: str = "",
) -> go.Figure:
    """The logit of one query/key content pair against m - n, one line per scheme; NaN (no table row) is a gap.

    Args:
        revision: plotly's uirevision: keep the legend's hidden lines and the zoom while the query slides.
    """
    x = np.asarray(distances)
    order = np.argsort(x)
    lines = [
        go.Scatter(
            x=x[order],
            y=np.asarray(y, np.float64)[order],
            mode="lines+markers",
            marker=dict(size=4),
            name=name,
            connectgaps=False,
            hovertemplate=f"{name}<br>m − n = %{{x}}<br>%{{y:.3f}}<extra></extra>",
        )
        for name, y in curves.items()
    ]
    layout = dict(
        title=dict(text=title),
        xaxis=dict(title=dict(text=x_title), zeroline=True),
        yaxis=dict(title=dict(text=y_title)),
        margin=dict(l=10, r=10, t=40, b=10),
        uirevision=revision or None,
        shapes=[dict(type="line", x0=0, x1=0, xref="x", y0=0, y1=1, yref="paper", line=dict(dash="dot", width=1))],
    )
    return go.Figure(data=lines, layout=layout)
