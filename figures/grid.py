"""Small multiples without plotly.subplots: the axes' domains and panel titles as a plain layout dict.

make_subplots validates every axis through plotly's object tree, which took most of the attention page's figure
time (benchmarks/attention.py); a layout dict built here is validated once, with the figure.
"""

from __future__ import annotations

import math
from typing import Any


def grid_layout(
    names: list[str],
    columns: int,
    *,
    hspace: float = 0.02,
    vspace: float = 0.08,
    shared: bool = True,
    axis_titles: tuple[str, str] = ("", ""),
    title_gap: float = 0.01,
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """One panel per name, left to right in rows of `columns`, the first row on top.

    Args:
        shared: every panel's x axis matches the first one's, and y likewise (zoom one, zoom all); tick labels and
            axis titles only on the panels at the bottom of a column (x) and in the first column (y).
    Returns:
        per panel the trace keywords that place it ({"xaxis": "x2", "yaxis": "y2"}), and the layout entries: the
        axes and one title annotation per panel.
    """
    n = len(names)
    columns = max(1, min(columns, n))
    rows = math.ceil(n / columns)
    width = (1 - hspace * (columns - 1)) / columns
    height = (1 - vspace * (rows - 1)) / rows
    places: list[dict[str, str]] = []
    layout: dict[str, Any] = {}  # plotly's layout JSON
    annotations: list[dict[str, Any]] = []
    for i, name in enumerate(names):
        row, col = divmod(i, columns)
        suffix = "" if i == 0 else str(i + 1)
        x0, top = col * (width + hspace), 1 - row * (height + vspace)
        bottom = i + columns >= n  # no panel below it in its column
        x_axis: dict[str, Any] = dict(domain=_span(x0, x0 + width), anchor=f"y{suffix}")
        y_axis: dict[str, Any] = dict(domain=_span(top - height, top), anchor=f"x{suffix}")
        if shared and i > 0:
            x_axis["matches"], y_axis["matches"] = "x", "y"
        if shared:
            x_axis["showticklabels"], y_axis["showticklabels"] = bottom, col == 0
        if axis_titles[0] and (bottom or not shared):
            x_axis["title"] = dict(text=axis_titles[0])
        if axis_titles[1] and (col == 0 or not shared):
            y_axis["title"] = dict(text=axis_titles[1])
        layout[f"xaxis{suffix}"], layout[f"yaxis{suffix}"] = x_axis, y_axis
        annotations.append(
            dict(
                text=name,
                x=x0 + width / 2,
                y=top + title_gap,
                xref="paper",
                yref="paper",
                xanchor="center",
                yanchor="bottom",
                showarrow=False,
                font=dict(size=16),  # make_subplots' title size
            )
        )
        places.append(dict(xaxis=f"x{suffix}", yaxis=f"y{suffix}"))
    layout["annotations"] = annotations
    return places, layout


def _span(low: float, high: float) -> list[float]:
    """A domain inside [0, 1]: the sums above land a hair outside it (-5.6e-17), which plotly refuses."""
    return [min(max(round(low, 6), 0.0), 1.0), min(max(round(high, 6), 0.0), 1.0)]
