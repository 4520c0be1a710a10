"""Plotly figures for the "Inside a real Transformer" page. Pure: CPU arrays in, go.Figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from figures.grid import grid_layout

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
    top = float(profile.max()) or 1.0
    x, y = [], []
    for layer in range(layers):
        for head in range(heads):  # cell (head, layer) spans [head, head + 1] x [layer, layer + 1], layer 1 on top
            x.extend([*(head + 0.08 + 0.84 * np.arange(offsets) / (offsets - 1)), None])
            y.extend([*(layer + 0.9 - 0.8 * profile[layer, head] / top), None])
    shapes = [
        dict(
            type="rect",
            x0=head,
            x1=head + 1,
            y0=layer,
            y1=layer + 1,
            fillcolor=PREVIOUS if offset < 0 else NEXT,
            opacity=0.18,
            line=dict(width=0),
            layer="below",
        )
        for (layer, head), offset in named.items()
    ]
    shapes += [  # the token itself (offset 0) in every column, faint
        dict(type="line", x0=h + 0.5, x1=h + 0.5, y0=0, y1=layers, line=dict(width=1, color="#ddd"), layer="below")
        for h in range(heads)
    ]
    shapes.append(
        dict(
            type="rect",
            x0=selected[1],
            x1=selected[1] + 1,
            y0=selected[0],
            y1=selected[0] + 1,
            line=dict(width=3, color="black"),
        )
    )
    cells = [(layer, head) for layer in range(layers) for head in range(heads)]
    text = [
        hover.format(
            layer=layer + 1, head=head + 1, prev=profile[layer, head, middle - 1], next=profile[layer, head, middle + 1]
        )
        for layer, head in cells
    ]
    curves = go.Scatter(x=x, y=y, mode="lines", line=dict(width=1.5, color="#444"), hoverinfo="skip", showlegend=False)
    clicks = go.Scatter(
        x=[head + 0.5 for _, head in cells],
        y=[layer + 0.5 for layer, _ in cells],
        customdata=[[layer, head] for layer, head in cells],
        mode="markers",
        marker=dict(symbol="square", size=60, color="rgba(0,0,0,0)"),
        text=text,
        hovertemplate="%{text}<extra></extra>",
        showlegend=False,
    )
    axis = dict(showgrid=False, zeroline=False, fixedrange=True)
    layout = dict(
        title=dict(text=title),
        xaxis=dict(
            axis,
            range=[0, heads],
            tickvals=[h + 0.5 for h in range(heads)],
            ticktext=[str(h + 1) for h in range(heads)],
            title=dict(text=axis_titles[0]),
        ),
        yaxis=dict(
            axis,
            range=[layers, 0],
            tickvals=[i + 0.5 for i in range(layers)],
            ticktext=[str(i + 1) for i in range(layers)],
            title=dict(text=axis_titles[1]),
        ),
        shapes=shapes,
        height=90 * layers + 90,
        margin=dict(l=10, r=10, t=50, b=10),
        clickmode="event+select",
        dragmode=False,
    )
    return go.Figure(data=[curves, clicks], layout=layout)


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
    for key, axis in layout.items():
        if key.startswith("yaxis"):
            axis.update(autorange="reversed", dtick=1)
        elif key.startswith("xaxis"):
            axis.update(dtick=1)
    layout.update(title=dict(text=title), height=330, margin=dict(l=10, r=10, t=80, b=10))
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
    layout = dict(
        title=dict(text=title),
        xaxis=dict(title=dict(text=x_title)),
        yaxis=dict(title=dict(text=y_title)),
        height=380,
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h", y=-0.2),
    )
    return go.Figure(data=lines, layout=layout)


def trajectory_figure(
    coords: np.ndarray, uses: list[str], stages: list[str], title: str, axis_titles: tuple[str, str] = ("PC 1", "PC 2")
) -> go.Figure:
    """Each use's vectors through the stages as a path in a 2D projection, every point labelled with its stage.

    Args:
        coords: (uses, stages, 2).
    """
    traces = [
        go.Scatter(
            x=coords[u, :, 0],
            y=coords[u, :, 1],
            mode="lines+markers+text",
            text=stages,
            textposition="top center",
            name=name,
            hovertemplate=f"{name}<br>%{{text}}<extra></extra>",
        )
        for u, name in enumerate(uses)
    ]
    layout = dict(
        title=dict(text=title),
        xaxis=dict(title=dict(text=axis_titles[0]), zeroline=False),
        yaxis=dict(title=dict(text=axis_titles[1]), zeroline=False),
        height=480,
        margin=dict(l=10, r=10, t=50, b=10),
        legend=dict(orientation="h", y=-0.15),
    )
    return go.Figure(data=traces, layout=layout)
