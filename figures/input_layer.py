"""Plotly figures for the input-layer page: each stage's vectors, a row per token. Pure: CPU arrays in, go.Figure out.

Written as plotly's JSON (figures.plain): a sentence typed is new, so its figures are drawn anew on each move.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from figures.plain import colorscale, plain_figure
from figures.positional import OVERFLOW, colour_limit


def stage_figure(values: np.ndarray, title: str, tokens: list[str], x_title: str) -> go.Figure:
    """One stage of the input layer, (tokens, d): a row per token ("0: are"), a column per dimension, on a scale
    from -L to L with L its colour_limit; the PE page's heatmap of a labelled table (figures.positional)."""
    z = np.asarray(values, dtype=np.float32)
    zmax = colour_limit(z)
    heatmap = dict(
        type="heatmap",
        z=z,
        x0=0,
        dx=1,
        zmin=-zmax,
        zmax=zmax,
        colorscale=colorscale("RdBu"),
        reversescale=True,
        colorbar=dict(OVERFLOW),
        hovertemplate="%{y}<br>i = %{x}<br>%{z:.4f}<extra></extra>",
        y=[f"{i}: {token}" for i, token in enumerate(tokens)],
    )
    layout = dict(
        title=dict(text=title),
        margin=dict(l=10, r=10, t=40, b=10),
        height=max(180, 40 + 22 * len(tokens)),
        xaxis=dict(title=dict(text=x_title), **OVERFLOW),
        yaxis=dict(title=dict(text=""), **OVERFLOW, autorange="reversed"),
    )
    return plain_figure([heatmap], layout)


def stage_figures(stages: Mapping[str, np.ndarray], tokens: list[str], x_title: str) -> list[go.Figure]:
    """One stage_figure per stage, in order: `stages` maps each stage's title to its (tokens, d) values."""
    return [stage_figure(values, title, tokens, x_title) for title, values in stages.items()]
