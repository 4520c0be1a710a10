"""The word cloud: thousands of points in WebGL, the highlighted words on top. Pure: arrays in, go.Figure out."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.basedatatypes import BaseTraceType

from figures.markup import escaped, escaped_all

LEGEND = {"cloud": "cloud ({n:,})", "chosen": "chosen words", "neighbours": "neighbours", "found": "found"}
GROUP_COLORS = ("#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")


def cloud_figure(
    coords: np.ndarray,
    words: list[str],
    *,
    chosen: Sequence[int] = (),
    groups: dict[str, list[int]] | None = None,
    found: int | None = None,
    neighbours: Sequence[int] = (),
    isolate: bool = False,
    axis_titles: tuple[str, ...] = ("1", "2", "3"),
    revision: str = "",
    legend: dict[str, str] | None = None,
) -> go.Figure:
    """Every point exactly once: the plain cloud in grey, then groups, chosen words, neighbours and the found word.

    Args:
        coords: (n, 2) or (n, 3) float32, one row per word.
        chosen, groups, found, neighbours: row indices into coords; a point takes the last role it has in
            that order (found beats neighbour beats chosen beats group).
        isolate: draw only the found word and its neighbours.
        revision: plotly's uirevision: zoom and rotation survive reruns while it stays the same.
        legend: legend text per role ("cloud" with {n}, "chosen", "neighbours", "found"); each trace's `meta`
            is its role (a group's is its name), whatever the language.
    A group's name and the words are the user's: escaped where plotly reads HTML (the legend, the hover).
    """
    legend = {**LEGEND, **(legend or {})}
    role: dict[int, str] = {}
    for name, rows in (groups or {}).items():
        role.update(dict.fromkeys(rows, f"group:{name}"))
    role.update(dict.fromkeys(chosen, "chosen"))
    role.update(dict.fromkeys(neighbours, "neighbour"))
    if found is not None:
        role[found] = "found"
    three_d = coords.shape[1] == 3
    scatter = go.Scatter3d if three_d else go.Scattergl

    def trace(rows: list[int], role: str, name: str, marker: dict, labelled: bool) -> BaseTraceType:
        at = np.asarray(rows, dtype=np.int64)
        text = [words[i] for i in at]
        xyz = dict(zip("xyz", coords[at].T, strict=False))
        return scatter(
            **xyz,
            mode="markers+text" if labelled else "markers",
            text=text if labelled else None,  # drawn by WebGL: not read as HTML
            hovertext=escaped_all(text),
            hoverinfo="text",
            textposition="top center",
            marker=marker,
            name=name,
            meta=role,
        )

    traces = []
    if not isolate:
        plain = [i for i in range(len(coords)) if i not in role]
        grey = dict(size=2 if three_d else 3, color="#b0b0b0")
        traces.append(trace(plain, "cloud", legend["cloud"].format(n=len(plain)), grey, False))
        for (name, rows), color in zip((groups or {}).items(), itertools.cycle(GROUP_COLORS)):
            mine = [i for i in rows if role[i] == f"group:{name}"]
            traces.append(trace(mine, name, escaped(name), dict(size=5 if three_d else 8, color=color), True))
        picked = [i for i in chosen if role[i] == "chosen"]
        black = dict(size=5 if three_d else 9, color="#000000")
        traces.append(trace(picked, "chosen", legend["chosen"], black, True))
    near = [i for i in neighbours if role[i] == "neighbour"]
    if near:
        orange = dict(size=5 if three_d else 10, color="#ff7f0e")
        traces.append(trace(near, "neighbours", legend["neighbours"], orange, True))
    if found is not None:
        star = dict(size=8 if three_d else 16, color="#d62728", symbol="diamond" if three_d else "star")
        traces.append(trace([found], "found", legend["found"], star, True))

    layout: dict[str, Any] = dict(
        uirevision=revision, margin=dict(l=0, r=0, t=30, b=0), legend=dict(itemsizing="constant")
    )
    if three_d:
        layout["scene"] = {f"{a}axis": dict(title=dict(text=t)) for a, t in zip("xyz", axis_titles, strict=False)}
    else:
        layout["xaxis"] = dict(title=dict(text=axis_titles[0]))
        layout["yaxis"] = dict(title=dict(text=axis_titles[1]))
    return go.Figure(data=traces, layout=layout)
