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
    labels: bool = True,
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
        labels: label the groups' and chosen words (their words stay in the hover). Without them, labels_figure's
            traces label them over the cloud, or, while a word is found, nothing does: WebGL draws each trace's
            labels over every point of the traces before it, and a dozen groups' labels covered the found word's.
        revision: plotly's uirevision: zoom and rotation survive reruns while it stays the same.
        legend: legend text per role ("cloud" with {n}, "chosen", "neighbours", "found"); each trace's `meta`
            is its role (a group's is its name), whatever the language.
    A group's name and the words are the user's: escaped where plotly reads HTML (the legend, the hover).
    """
    legend = {**LEGEND, **(legend or {})}
    role = _roles(chosen, groups, found, neighbours)
    three_d = coords.shape[1] == 3
    scatter = go.Scatter3d if three_d else go.Scattergl

    def trace(rows: list[int], role: str, name: str, marker: dict, labelled: bool, **font) -> BaseTraceType:
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
            textfont=font or None,
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
            traces.append(trace(mine, name, escaped(name), dict(size=5 if three_d else 8, color=color), labels))
        picked = [i for i in chosen if role[i] == "chosen"]
        black = dict(size=5 if three_d else 9, color="#000000")
        traces.append(trace(picked, "chosen", legend["chosen"], black, labels))
    near = [i for i in neighbours if role[i] == "neighbour"]
    if near:
        orange = dict(size=5 if three_d else 10, color="#ff7f0e")
        traces.append(trace(near, "neighbours", legend["neighbours"], orange, True, color="#a04000"))
    if found is not None:
        star = dict(size=8 if three_d else 16, color="#d62728", symbol="diamond" if three_d else "star")
        traces.append(trace([found], "found", legend["found"], star, True, color="#d62728", size=14))

    layout: dict[str, Any] = dict(
        uirevision=revision, margin=dict(l=0, r=0, t=30, b=0), legend=dict(itemsizing="constant")
    )
    if three_d:
        layout["scene"] = {f"{a}axis": dict(title=dict(text=t)) for a, t in zip("xyz", axis_titles, strict=False)}
    else:
        layout["xaxis"] = dict(title=dict(text=axis_titles[0]))
        layout["yaxis"] = dict(title=dict(text=axis_titles[1]))
    return go.Figure(data=traces, layout=layout)


def labels_figure(
    coords: np.ndarray, words: list[str], *, chosen: Sequence[int] = (), groups: dict[str, list[int]] | None = None
) -> go.Figure:
    """The groups' and chosen words' labels alone: text, no marker, no hover, no legend entry.

    Drawn over cloud_figure(labels=False) while no word is found (ui.live_chart.cached_chart's overlay), so that the
    cloud's figure stays the same when a find replaces them with the found word's and its neighbours'.

    Args:
        coords: (n, 2) or (n, 3) float32; chosen, groups: row indices into coords, as cloud_figure takes them.
    """
    role = _roles(chosen, groups)
    scatter = go.Scatter3d if coords.shape[1] == 3 else go.Scattergl
    shown: list[tuple[Sequence[int], str, str]] = [
        (rows, name, f"group:{name}") for name, rows in (groups or {}).items()
    ]
    shown.append((chosen, "chosen", "chosen"))
    traces = []
    for rows, meta, mine in shown:
        at = np.asarray([i for i in rows if role[i] == mine], dtype=np.int64)
        traces.append(
            scatter(
                **dict(zip("xyz", coords[at].T, strict=False)),
                mode="text",
                text=[words[i] for i in at],
                textposition="top center",
                hoverinfo="skip",
                showlegend=False,
                meta=f"labels:{meta}",
            )
        )
    return go.Figure(data=traces)


def _roles(
    chosen: Sequence[int], groups: dict[str, list[int]] | None, found: int | None = None, neighbours: Sequence[int] = ()
) -> dict[int, str]:
    """Each highlighted row's role, the last it has in the order group, chosen, neighbour, found."""
    role: dict[int, str] = {}
    for name, rows in (groups or {}).items():
        role.update(dict.fromkeys(rows, f"group:{name}"))
    role.update(dict.fromkeys(chosen, "chosen"))
    role.update(dict.fromkeys(neighbours, "neighbour"))
    if found is not None:
        role[found] = "found"
    return role
