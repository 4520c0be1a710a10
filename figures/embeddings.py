"""Plotly figures for the input-layer page. Pure: CPU arrays in, go.Figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go


def stage_heatmap_figure(values: np.ndarray, tokens: list[str], title: str) -> go.Figure:
    """(tokens, d_model) vectors at one stage; rows labelled by token, colour symmetric around 0."""
    z = np.asarray(values, np.float32)
    zmax = float(np.abs(z).max()) or 1.0
    labels = [f"{i}: {t}" for i, t in enumerate(tokens)]
    heatmap = go.Heatmap(
        z=z,
        y=labels,
        x0=0,
        dx=1,
        zmin=-zmax,
        zmax=zmax,
        colorscale="RdBu",
        reversescale=True,
        hovertemplate="%{y}<br>dimension %{x}<br>%{z:.4f}<extra></extra>",
    )
    layout = dict(
        title=dict(text=title),
        xaxis=dict(title=dict(text="dimension")),
        yaxis=dict(autorange="reversed"),
        height=max(180, 40 + 22 * len(tokens)),
        margin=dict(l=10, r=10, t=40, b=10),
    )
    return go.Figure(data=[heatmap], layout=layout)
