"""Figures from plotly's JSON written by the builder itself, not validated again by plotly's object tree.

`go.Figure(data=[go.Heatmap(...)], layout=...)` runs every property through plotly's validators: for a page that
draws a new figure on each move, that was most of the move's server CPU (benchmarks/cpu_per_move.py, the attention
page's heatmap grids). A builder that writes the JSON plotly would write hands it over unvalidated; it still returns
a go.Figure, and tests/figures/test_plain.py checks that each such builder's figure is the one plotly's validation
gives for the same JSON.
"""

from __future__ import annotations

import functools
from typing import Any

import plotly.graph_objects as go


def plain_figure(data: list[dict[str, Any]], layout: dict[str, Any]) -> go.Figure:
    """A figure of traces ({"type": "heatmap", ...}) and a layout already in plotly's JSON, taken as they are."""
    return go.Figure(dict(data=data, layout=layout), _validate=False)


# Not a cached result (ui.cache caches those): plotly's constant colour scales, looked up once each.
@functools.cache
def colorscale(name: str) -> tuple:
    """A named colour scale as plotly writes it: its colours, since plotly.js knows no reversed ("_r") names."""
    return go.Heatmap(colorscale=name).colorscale
