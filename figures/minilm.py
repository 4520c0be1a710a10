"""Plotly figures for the "Inside a real Transformer" page. Pure: CPU arrays in, go.Figure out."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from figures.attention import heatmaps_figure
from figures.grid import grid_layout
from figures.titles import BELOW, LINE_PX, LINE_UNITS, NARROW_UNITS, WIDE, legend_room, title_lines, titled  # noqa: F401 (tests)

PREVIOUS, NEXT = "#1f77b4", "#d62728"  # the named heads' colours: previous-token blue, next-token red


def head_grid_figure(
    profile: np.ndarray,
    named: dict[tuple[int, int], int],
    selected: tuple[int, int],
    title: str,
    hover: str = "layer {layer}, head {head}<br>offset −1: {prev:.2f}, +1: {next:.2f}",
    axis_titles: tuple[str, str] = ("head", "layer"),
) -> go.Figure:
    """Every head's mean attention by offset as a small curve in a layers x heads grid, on one scale; the named heads'
    cells tinted (previous-token blue, next-token red), the selected head framed. One transparent square per cell
    is what a click selects: its customdata is [layer, head], both from 0.

    Args:
        profile: (layers, heads, offsets) mean attention, offsets -m..m.
        named: {(layer, head): -1 or +1} the heads the rule names.
        selected: (layer, head) from 0.
    """
    layers, heads, offsets = profile.shape
    middle = offsets // 2
    layer, head = np.divmod(np.arange(layers * heads), heads)  # (cells,) row by row, layer 1 on top
    # cell (head, layer) spans [head, head + 1] x [layer, layer + 1]; a NaN column ends each curve
    x = head[:, None] + 0.08 + 0.84 * np.arange(offsets) / (offsets - 1)  # (cells, offsets)
    y = layer[:, None] + 0.9 - 0.8 * profile.reshape(-1, offsets) / (float(profile.max()) or 1.0)
    gap = np.full((len(x), 1), np.nan)
    curves = go.Scatter(
        x=np.hstack([x, gap]).ravel(),
        y=np.hstack([y, gap]).ravel(),
        mode="lines",
        line=dict(width=1.5, color="#444"),
        hoverinfo="skip",
        showlegend=False,
    )
    middles = np.repeat(np.arange(heads) + 0.5, 3)  # the token itself (offset 0) in every column, faint
    zero = go.Scatter(
        x=np.where(np.arange(3 * heads) % 3 == 2, np.nan, middles),
        y=np.tile([0.0, layers, np.nan], heads),
        mode="lines",
        line=dict(width=1, color="#ddd"),
        hoverinfo="skip",
        showlegend=False,
    )
    prev, next_ = profile[..., middle - 1].ravel(), profile[..., middle + 1].ravel()
    text = [
        hover.format(layer=la + 1, head=h + 1, prev=p, next=n)
        for la, h, p, n in zip(layer.tolist(), head.tolist(), prev.tolist(), next_.tolist(), strict=True)
    ]
    clicks = go.Scatter(
        x=head + 0.5,
        y=layer + 0.5,
        customdata=np.stack([layer, head], axis=1).tolist(),  # plain numbers: plotly.js cannot read int64 arrays
        mode="markers",
        marker=dict(symbol="square", size=60, color="rgba(0,0,0,0)"),
        text=text,
        hovertemplate="%{text}<extra></extra>",
        showlegend=False,
    )
    cell = lambda la, h: dict(type="rect", x0=h, x1=h + 1, y0=la, y1=la + 1)  # noqa: E731
    shapes = [
        dict(cell(la, h), fillcolor=PREVIOUS if o < 0 else NEXT, opacity=0.18, line=dict(width=0), layer="below")
        for (la, h), o in named.items()
    ]
    shapes.append(dict(cell(*selected), line=dict(width=3, color="black")))
    axis = dict(showgrid=False, zeroline=False, fixedrange=True)
    ticks = lambda n: dict(tickvals=np.arange(n) + 0.5, ticktext=[str(i + 1) for i in range(n)])  # noqa: E731
    heading, top = titled(title, units=NARROW_UNITS)  # st.plotly_chart's: sent as it is to a phone too
    layout = dict(
        title=heading,
        xaxis=dict(axis, range=[0, heads], title=dict(text=axis_titles[0]), **ticks(heads)),
        yaxis=dict(axis, range=[layers, 0], title=dict(text=axis_titles[1]), **ticks(layers)),
        shapes=shapes,
        height=90 * layers + 40 + top,
        margin=dict(l=10, r=10, t=top, b=10),
        clickmode="event+select",
        dragmode=False,
    )
    return go.Figure(data=[zero, curves, clicks], layout=layout)


ROW_PX = 22  # a heatmap row this tall fits its token's label: one head's map grows with its sentence, up to
ROWS_MOST_PX = 640  # this, then plotly labels every k-th row (the hover names them all)


def attention_figure(
    maps: dict[str, np.ndarray],
    tokens: list[str],
    title: str,
    *,
    columns: int = 1,
    axis_titles: tuple[str, str] = ("key", "query"),
) -> go.Figure:
    """Attention maps side by side (figures.attention.heatmaps_figure), one scale from 0, blue.

    One map alone fills the column's width: its height grows with the sentence, so its rows stay about as tall as
    a label (at most ROWS_MOST_PX), and it has no panel title, its name being in the figure's title.

    Args:
        maps: {name: (n, n)} attention weights, rows the queries.
        tokens: the n tokens, in the maps' order.
    """
    fig = heatmaps_figure(
        maps, tokens, title, columns=columns, shared=True, colorscale="Blues", zmid=None, axis_titles=axis_titles
    )
    # under the panels, the keys' labels ("12:children") slanted at 60°: about 6 px of height a character
    below = min(6 * max((len(f"{i}:{token}") for i, token in enumerate(tokens)), default=0), 200)
    heading, top = titled(title, above=0 if len(maps) == 1 else 30)
    fig.layout.title, fig.layout.margin.t = heading, top
    if len(maps) == 1:
        fig.layout.height = min(max(280, ROW_PX * len(tokens)), ROWS_MOST_PX) + top + 10 + below
        fig.layout.annotations = ()
    else:
        fig.layout.height = 280 * math.ceil(len(maps) / columns) + top + 10 + below
    return fig


def moved_figure(
    moved: dict[str, np.ndarray], title: str, axis_titles: tuple[str, str] = ("head", "layer"), hover: str = "JS"
) -> go.Figure:
    """One layers x heads heatmap per variant, on one scale from 0: how far each head's attention moved.

    Args:
        moved: {variant: (layers, heads)} values in [0, 1].
    """
    names = list(moved)
    places, layout = grid_layout(names, len(names), hspace=0.04, axis_titles=axis_titles)
    high = max(float(np.max(m)) for m in moved.values()) or 1.0
    traces = []
    for i, (name, m) in enumerate(moved.items()):
        layers, heads = m.shape
        traces.append(
            go.Heatmap(
                z=np.asarray(m, np.float32),
                x=list(range(1, heads + 1)),
                y=list(range(1, layers + 1)),
                zmin=0,
                zmax=high,
                colorscale="Reds",
                showscale=i == 0,
                hovertemplate=f"{name}<br>layer %{{y}}, head %{{x}}<br>{hover} %{{z:.3f}}<extra></extra>",
                **places[i],
            )
        )
    # layers and heads as categories: plotly labels every one where the panels are wide enough, every k-th where
    # they are narrow (a window 1000 px wide), never two on top of each other
    for key, axis in layout.items():
        if key.startswith("yaxis"):
            axis.update(type="category", autorange="reversed")
        elif key.startswith("xaxis"):
            axis.update(type="category")
    heading, top = titled(title, above=30)
    layout.update(title=heading, height=250 + top, margin=dict(l=10, r=10, t=top, b=10))
    return go.Figure(data=traces, layout=layout)


def lines_figure(
    stages: list[str], curves: dict[str, np.ndarray], title: str, y_title: str = "cosine", x_title: str = ""
) -> go.Figure:
    """One line per name over the stages (input, layer 1, ...), markers at each stage."""
    lines = [
        go.Scatter(
            x=stages,
            y=np.asarray(values, np.float64),
            mode="lines+markers",
            name=name,
            hovertemplate=f"{name}<br>%{{x}}: %{{y:.3f}}<extra></extra>",
        )
        for name, values in curves.items()
    ]
    heading, top = titled(title)
    layout = dict(
        title=heading,
        xaxis=dict(title=dict(text=x_title)),
        yaxis=dict(title=dict(text=y_title)),
        height=260 + top + legend_room(len(lines)),
        margin=dict(l=10, r=10, t=top, b=legend_room(len(lines))),  # the legend under the axis title
        legend=BELOW,
    )
    return go.Figure(data=lines, layout=layout)


def trajectory_figure(
    coords: np.ndarray, uses: list[str], stages: list[str], title: str, axis_titles: tuple[str, str] = ("PC 1", "PC 2")
) -> go.Figure:
    """Each use's vectors through the stages as a path in a 2D projection; the first path's points labelled with
    their stage (the uses start together: every path's labels would be drawn over each other), every point's hover.

    Args:
        coords: (uses, stages, 2).
    """
    traces = [
        go.Scatter(
            x=coords[u, :, 0],
            y=coords[u, :, 1],
            mode="lines+markers+text" if u == 0 else "lines+markers",  # the uses' labels would print over each other
            text=stages,
            textposition="top center",
            name=name,
            hovertemplate=f"{name}<br>%{{text}}<extra></extra>",
        )
        for u, name in enumerate(uses)
    ]
    heading, top = titled(title)
    layout = dict(
        title=heading,
        xaxis=dict(title=dict(text=axis_titles[0]), zeroline=False),
        yaxis=dict(title=dict(text=axis_titles[1]), zeroline=False),
        height=360 + top + legend_room(len(traces)),
        margin=dict(l=10, r=10, t=top, b=legend_room(len(traces))),  # the legend under the axis title
        legend=BELOW,
    )
    return go.Figure(data=traces, layout=layout)
