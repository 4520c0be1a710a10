"""How honest a projection is: the cloud coloured by neighbours kept, both measures as k grows, the perplexity sweep,
t-SNE's intermediate layouts. Pure: arrays in, go.Figure out."""

from __future__ import annotations

import itertools

import numpy as np
import plotly.graph_objects as go

from figures.cloud import GROUP_COLORS
from figures.grid import grid_layout
from figures.markup import escaped, escaped_all
from figures.titles import BELOW, legend_room, narrow_title


def kept_figure(
    coords: np.ndarray,
    words: list[str],
    kept: np.ndarray,
    k: int,
    title: str,
    colour_title: str = "neighbours kept",
    revision: str = "",
) -> go.Figure:
    """Every point coloured by how many of its k original neighbours are among its k projected ones (0 to k).

    Args:
        coords: (n, 2) or (n, 3); kept: (n,) counts (core.neighbours.Preservation.kept).
        revision: plotly's uirevision, as in figures.cloud: zoom and rotation survive the toggle.
    """
    three_d = coords.shape[1] == 3
    scatter = go.Scatter3d if three_d else go.Scattergl
    kept = np.asarray(kept)
    points = scatter(
        **dict(zip("xyz", np.asarray(coords, np.float32).T, strict=False)),
        mode="markers",
        marker=dict(
            size=2 if three_d else 4,
            color=kept,
            cmin=0,
            cmax=k,
            colorscale="Viridis",
            colorbar=dict(title=dict(text=colour_title)),
        ),
        text=[f"{escaped(w)}: {c}/{k}" for w, c in zip(words, kept.tolist(), strict=True)],  # the hover's
        hoverinfo="text",
    )
    heading, top = narrow_title(title, 40)
    layout = dict(title=heading, margin=dict(l=10, r=10, t=top, b=10), uirevision=revision or None)
    return go.Figure(data=[points], layout=layout)


CURVE_COLOURS = ("#1f77b4", "#d62728", "#2ca02c")  # one per measure, the same in every panel


def curves_figure(panels: dict[str, dict[str, dict[int, float]]], title: str, axis_title: str = "k") -> go.Figure:
    """Small multiples, one panel per projection ("PCA 2D"), each a line per measure (0 to 1) against k, log scale.

    Args:
        panels: {panel title: {measure's name: {k: value}}}; every panel names the same measures. A measure is one
            colour and one legend entry, which shows or hides it in every panel.
    """
    places, layout = grid_layout(list(panels), 3, hspace=0.05, axis_titles=(axis_title, ""))
    traces = []
    for i, lines in enumerate(panels.values()):
        for (name, values), colour in zip(lines.items(), itertools.cycle(CURVE_COLOURS), strict=False):
            traces.append(
                go.Scatter(
                    x=list(values),
                    y=list(values.values()),
                    mode="lines+markers",
                    line=dict(color=colour),
                    name=name,
                    legendgroup=name,
                    showlegend=i == 0,
                    hovertemplate=f"{name}<br>k = %{{x}}: %{{y:.3f}}<extra></extra>",
                    **places[i],
                )
            )
    ks = sorted({k for lines in panels.values() for values in lines.values() for k in values})
    for key, axis in layout.items():
        if key.startswith("xaxis"):
            axis.update(type="log", tickvals=ks, ticktext=[str(k) for k in ks])
        elif key.startswith("yaxis"):
            axis.update(range=[0, 1.02])
    heading, top = narrow_title(title, 70)
    bottom = legend_room(len(next(iter(panels.values()), {})))  # a row per measure where it is narrow
    layout.update(
        title=heading,
        legend=dict(BELOW, x=0),
        height=240 + bottom,
        margin=dict(l=10, r=10, t=top, b=bottom),
    )
    return go.Figure(data=traces, layout=layout)


def sweep_figure(
    layouts: dict[str, np.ndarray],
    words: list[str],
    title: str,
    groups: np.ndarray | None = None,
    group_names: list[str] | None = None,
) -> go.Figure:
    """Small multiples, one 2D layout per setting (e.g. "perplexity 5": (n, 2)), each on its own axes without ticks:
    t-SNE's axes, distances between clusters and cluster sizes carry no units to compare.

    Args:
        groups: (n,) a category per point (0, 1, ...: a cluster), shared by every panel, or None: one colour.
            Categories, not a scale: each has one colour and one legend entry, which shows or hides it in every panel.
        group_names: the legend's name per category, in order; by default "1", "2", ... (numbered from 1).
    """
    places, layout = grid_layout(list(layouts), len(layouts), shared=False)
    labels = np.asarray(words, dtype=object)
    parts: list[tuple[np.ndarray, str | None, str]]
    if groups is None:
        parts = [(np.arange(len(labels)), None, "#1f77b4")]
    else:
        groups = np.asarray(groups)
        names = group_names or [str(g + 1) for g in range(int(groups.max()) + 1)]
        colours = itertools.cycle(GROUP_COLORS)
        parts = [(np.flatnonzero(groups == g), name, next(colours)) for g, name in enumerate(names)]
    traces = []
    for i, coords in enumerate(layouts.values()):
        xy = np.asarray(coords, np.float32)
        for rows, name, colour in parts:
            traces.append(
                go.Scattergl(
                    x=xy[rows, 0],
                    y=xy[rows, 1],
                    mode="markers",
                    marker=dict(size=3, color=colour),
                    text=escaped_all(labels[rows].tolist()),  # the hover's
                    hoverinfo="text",
                    name=None if name is None else escaped(name),
                    legendgroup=name,
                    showlegend=name is not None and i == 0,
                    **places[i],
                )
            )
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")):
            axis.update(showticklabels=False, zeroline=False)
    heading, top = narrow_title(title, 70)
    layout.update(
        title=heading,
        showlegend=groups is not None,
        legend=dict(orientation="h", x=0, y=-0.02, yanchor="top", itemsizing="constant"),
        height=380 if groups is not None else 360,
        margin=dict(l=10, r=10, t=top, b=10),
    )
    return go.Figure(data=traces, layout=layout)


def frames_figure(
    layouts: list[tuple[int, np.ndarray]],
    words: list[str],
    title: str,
    prefix: str = "iteration ",
    play: str = "▶",
) -> go.Figure:
    """t-SNE's intermediate 2D layouts as an animation: a play button and a slider, one frame per snapshot
    (core.neighbours.layouts_every); each frame sets its own axis ranges, since the layout grows as it runs.

    Args:
        layouts: [(iteration, (n, 2))] in order.
        prefix: the slider's caption before the frame's iteration.
    """

    shown = escaped_all(words)  # the hover's

    def points(xy: np.ndarray) -> go.Scatter:
        return go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="markers", marker=dict(size=3), text=shown, hoverinfo="text")

    def axes(xy: np.ndarray) -> dict:
        low, high = xy.min(axis=0), xy.max(axis=0)
        pad = 0.05 * np.maximum(high - low, 1e-9)
        ranges = [[float(low[j] - pad[j]), float(high[j] + pad[j])] for j in (0, 1)]
        return dict(
            xaxis=dict(range=ranges[0], showticklabels=False), yaxis=dict(range=ranges[1], showticklabels=False)
        )

    arrays = [(i, np.asarray(xy, np.float32)) for i, xy in layouts]
    frames = [go.Frame(data=[points(xy)], layout=axes(xy), name=str(i)) for i, xy in arrays]
    step = dict(mode="immediate", frame=dict(duration=150, redraw=True), transition=dict(duration=0))
    slider = dict(
        active=0,
        x=0.08,
        len=0.92,
        currentvalue=dict(prefix=prefix),
        steps=[dict(label=str(i), method="animate", args=[[str(i)], step]) for i, _ in arrays],
    )
    button = dict(label=play, method="animate", args=[None, {**step, "fromcurrent": True}])
    heading, top = narrow_title(title, 40)
    layout = dict(
        title=heading,
        **axes(arrays[0][1]),
        updatemenus=[dict(type="buttons", buttons=[button], x=0, y=0, xanchor="left", yanchor="top")],
        sliders=[slider],
        margin=dict(l=10, r=10, t=top, b=10),
    )
    return go.Figure(data=[points(arrays[0][1])], layout=layout, frames=frames)
