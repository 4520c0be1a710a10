"""Plotly figures for the learned-vs-sinusoidal page. Pure: CPU arrays in, go.Figure out."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from figures.titles import narrow_title, title_lines

MARKER_UNITS = 18  # a marker's label in lines of about 18 Latin characters: half a phone's plot


def lines_figure(
    curves: Mapping[str, np.ndarray | Sequence[float]],
    title: str,
    x_title: str,
    y_title: str,
    *,
    x0: int = 0,
    marker_x: float | None = None,
    marker_label: str = "",
    log_y: bool = False,
    x: Sequence[float] | None = None,
    log_x: bool = False,
    hlines: Mapping[str, float] | None = None,
) -> go.Figure:
    """One line per named curve, at x (default x0, x0 + 1, ...); an optional dashed vertical marker and labelled
    dotted horizontal lines."""
    spacing = dict(x=x) if x is not None else dict(x0=x0, dx=1)
    lines = [go.Scatter(y=np.asarray(v, np.float32), mode="lines", name=name, **spacing) for name, v in curves.items()]
    shapes, annotations = [], []
    if marker_x is not None:
        shapes = [dict(type="line", x0=marker_x, x1=marker_x, y0=0, y1=1, yref="paper", line=dict(dash="dash"))]
        # inside the plot, left of the line's top, on short lines: above it, in the top margin, it ran into the
        # chart's title once presenter mode made the text larger; right of it, into the legend on a phone
        annotations = [
            dict(
                x=marker_x,
                y=1,
                yref="paper",
                text="<br>".join(title_lines(marker_label, MARKER_UNITS)),
                showarrow=False,
                yanchor="top",
                xanchor="right",
                xshift=-4,
            )
        ]
    for label, level in (hlines or {}).items():
        shapes.append(dict(type="line", x0=0, x1=1, xref="paper", y0=level, y1=level, line=dict(dash="dot")))
        at = math.log10(level) if log_y else level  # annotations, unlike shapes, sit in log10 units on a log axis
        annotations.append(dict(x=0, xref="paper", y=at, text=label, showarrow=False, xanchor="left", yanchor="bottom"))
    heading, top = narrow_title(title, 40)
    # a log axis over the given x (d_model 8 ... 1024) ticked at them: plotly's own ticks add the digits between its
    # powers of ten, which at presenter mode's size ran into one another ("9" over "1000")
    ticks = dict(tickvals=[float(v) for v in x]) if log_x and x is not None else {}
    layout = dict(
        title=heading,
        xaxis=dict(title=dict(text=x_title), type="log" if log_x else "linear", **ticks),
        yaxis=dict(title=dict(text=y_title), type="log" if log_y else "linear"),
        shapes=shapes,
        annotations=annotations,
        margin=dict(l=10, r=10, t=top, b=10),
    )
    return go.Figure(data=lines, layout=layout)


def positions_pca_figure(coords: np.ndarray, title: str, colour_title: str = "position") -> go.Figure:
    """Rows of a position table projected to 2D, coloured by position: a smooth path or a scatter."""
    coords = np.asarray(coords, np.float32)  # what the chart draws; float32 halves what it sends
    n = len(coords)
    trace = go.Scatter(
        x=coords[:, 0],
        y=coords[:, 1],
        mode="markers+lines",
        line=dict(width=0.5, color="lightgray"),
        marker=dict(
            color=np.arange(n, dtype=np.int32),
            colorscale="Viridis",
            size=5,
            colorbar=dict(title=dict(text=colour_title)),
        ),
        hovertemplate="position %{marker.color}<extra></extra>",  # the colour is the position: no text per point
    )
    heading, top = narrow_title(title, 40)
    layout = dict(
        title=heading,
        xaxis=dict(title=dict(text="PC 1")),
        yaxis=dict(title=dict(text="PC 2")),
        margin=dict(l=10, r=10, t=top, b=10),
    )
    return go.Figure(data=[trace], layout=layout)


# What a half-width chart of the page draws: its plot area is about 300 x 360 px in a 1,400 px window (a column
# of the wide layout less the axis labels and the colour bar), so a table of at most 192 x 192 cells gives each
# cell one and a half to two pixels; a finer table is averaged into cells that size before it is sent.
DRAWN_CELLS = (192, 192)
# Bytes a heatmap may send as float32 (base64): past it, its cells go as one byte each, the colour's level.
EXACT_BYTES = 100_000
LEVELS = 255  # codes 0 .. 254


def drawn_heatmap(figure: go.Figure, cells: tuple[int, int] = DRAWN_CELLS, exact_bytes: int = EXACT_BYTES) -> go.Figure:
    """The heatmap figure as the browser needs it: a copy whose table is averaged over blocks of rows and columns
    down to at most `cells` (rows, columns), and, when its float32 values would still weigh more than
    `exact_bytes`, sent as one colour level per cell (uint8) with the colour bar labelled in values.

    A small table comes back unchanged (its hover shows each cell's value); a large one's hover names the
    cell's centre and the colour bar reads its value.
    """
    trace = figure.data[0]
    z = np.asarray(trace.z, np.float32)  # (rows, cols)
    if z.size * 4 * 4 / 3 <= exact_bytes:
        return figure
    fr, fc = (math.ceil(n / most) for n, most in zip(z.shape, cells, strict=True))
    rows, cols = math.ceil(z.shape[0] / fr), math.ceil(z.shape[1] / fc)
    padded = np.full((rows * fr, cols * fc), np.nan, np.float32)
    padded[: z.shape[0], : z.shape[1]] = z
    blocks = np.nanmean(padded.reshape(rows, fr, cols, fc), axis=(1, 3))  # (rows, cols): the mean of each block
    lo = float(trace.zmin) if trace.zmin is not None else float(blocks.min())
    hi = float(trace.zmax) if trace.zmax is not None else float(blocks.max())
    hi = hi if hi > lo else lo + 1.0
    codes = np.rint((np.clip(blocks, lo, hi) - lo) / (hi - lo) * (LEVELS - 1)).astype(np.uint8)
    ticks = np.linspace(lo, hi, 5)
    x0, dx = trace.x0 if trace.x0 is not None else 0, trace.dx if trace.dx is not None else 1
    y0, dy = trace.y0 if trace.y0 is not None else 0, trace.dy if trace.dy is not None else 1
    layout = figure.layout
    x_title, y_title = layout.xaxis.title.text or "x", layout.yaxis.title.text or "y"
    coarse = go.Heatmap(
        z=codes,
        x0=x0 + dx * (fc - 1) / 2,  # each cell at the centre of the block it averages
        dx=dx * fc,
        y0=y0 + dy * (fr - 1) / 2,
        dy=dy * fr,
        zmin=0,
        zmax=LEVELS - 1,
        colorscale=trace.colorscale,
        reversescale=trace.reversescale,
        colorbar=dict(
            trace.colorbar.to_plotly_json(),
            tickvals=((ticks - lo) / (hi - lo) * (LEVELS - 1)).tolist(),
            ticktext=[f"{v:.3g}" for v in ticks],
        ),
        hovertemplate=f"{y_title} %{{y:.0f}}<br>{x_title} %{{x:.0f}}<extra></extra>",
        meta=dict(values=[lo, hi]),  # code 0 is the value lo, code LEVELS - 1 the value hi
    )
    return go.Figure(data=[coarse], layout=layout)
