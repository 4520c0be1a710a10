"""Plotly figures for the positional-encoding page. Pure: CPU arrays in, go.Figure out.

Arrays go in as float32 with x0/dx instead of coordinate arrays, so a chart carries its values once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from figures.titles import narrow_title

HEATMAP_MAX_CELLS = 131_072  # 0.5 MiB of float32, ~0.7 MB of base64: small enough to redraw as a slider moves


# Tick labels may overflow the chart instead of being measured one by one to hide those that would: that
# measuring forces a layout of the whole page on every redraw.
OVERFLOW = dict(ticklabeloverflow="allow")


def _figure(traces: list, title: str, x: str, y: str, **layout) -> go.Figure:
    """A figure from traces and a plain layout dict (update_layout parses its magic names again for every chart)."""
    xaxis = dict(title=dict(text=x), **OVERFLOW, **layout.pop("xaxis", {}))
    yaxis = dict(title=dict(text=y), **OVERFLOW, **layout.pop("yaxis", {}))
    heading, top = narrow_title(title, 40)
    layout = dict(title=heading, margin=dict(l=10, r=10, t=top, b=10)) | layout
    return go.Figure(data=traces, layout=dict(layout, xaxis=xaxis, yaxis=yaxis))


def colour_limit(values: np.ndarray, share: float = 0.99) -> float:
    """The |value| that `share` of the cells stay within: the end of a colour scale that a few outliers do not
    wash out (all-MiniLM-L6-v2's largest position value is 29x its 99th percentile). 1.0 for an all-zero table."""
    return float(np.quantile(np.abs(values), share)) or 1.0


def pe_heatmap_figure(
    values: np.ndarray,
    pos_start: int = 0,
    dim_start: int = 0,
    title: str = "PE[pos, i]",
    zmax: float | None = 1.0,
    row_labels: list[str] | None = None,
    axis_titles: tuple[str, str] = ("dimension i", "position"),
) -> go.Figure:
    """One cell per table entry (no averaging): rows are positions (or labelled rows, e.g. tokens), columns dimensions.

    zmax: the colour scale runs from -zmax to zmax; None takes the table's `colour_limit` (learned tables).
        Cells beyond it take the end colours; hovering shows their values.
    """
    z = np.asarray(values, dtype=np.float32)
    zmax = colour_limit(z) if zmax is None else zmax
    rows = dict(y=row_labels) if row_labels is not None else dict(y0=pos_start, dy=1)
    heatmap = go.Heatmap(
        z=z,
        x0=dim_start,
        dx=1,
        zmin=-zmax,
        zmax=zmax,
        colorscale="RdBu",
        reversescale=True,
        colorbar=OVERFLOW,
        hovertemplate="%{y}<br>i = %{x}<br>%{z:.4f}<extra></extra>",
        **rows,
    )
    layout: dict[str, Any] = dict(yaxis=dict(autorange="reversed"))  # plotly's layout JSON
    if row_labels is not None:
        layout["height"] = max(180, 40 + 22 * len(row_labels))
    else:  # numeric axes: fixed margins spare plotly a second layout pass measuring tick labels on every redraw
        layout.update(margin=dict(l=70, r=10, t=40, b=50), xaxis=dict(automargin=False))
        layout["yaxis"]["automargin"] = False
    return _figure([heatmap], title, axis_titles[0], axis_titles[1] if row_labels is None else "", **layout)


def difference_figure(
    values: np.ndarray,
    pos_start: int,
    dim_start: int,
    titles: tuple[str, str, str] = ("B − A", "dimension i", "position"),
) -> go.Figure:
    """B's table less A's, one cell per entry, on a symmetric scale up to the largest |B − A| (zero in the middle;
    1 when A and B agree on every cell shown)."""
    z = np.asarray(values, dtype=np.float32)
    zmax = float(np.abs(z).max()) if z.size else 0.0
    return pe_heatmap_figure(z, pos_start, dim_start, title=titles[0], zmax=zmax or 1.0, axis_titles=titles[1:])


def pe_curves_figure(
    curves: np.ndarray,
    pos_start: int,
    dims: list[int],
    titles: tuple[str, str, str] = ("PE[pos, i] for chosen dimensions", "position", "value"),
) -> go.Figure:
    """PE[pos, i] against pos for each chosen dimension i: (n_positions, len(dims))."""
    lines = [
        go.Scatter(
            y=np.asarray(curves[:, j], np.float32),
            x0=pos_start,
            dx=1,
            mode="lines",
            name=f"i = {dim}",
            hovertemplate=f"i = {dim}<br>pos %{{x}}<br>%{{y:.4f}}<extra></extra>",
        )
        for j, dim in enumerate(dims)
    ]
    return _figure(lines, *titles)


def wavelength_figure(
    lam: np.ndarray,
    titles: tuple[str, str, str] = (
        "Wavelength and frequency per pair",
        "pair i (columns 2i and 2i+1)",
        "positions per cycle / cycles per position",
    ),
    names: tuple[str, str] = ("wavelength 2π/ω_i", "frequency ω_i/2π"),
) -> go.Figure:
    """Wavelength (positions per cycle) and frequency (cycles per position) per pair, log y."""
    lam = np.asarray(lam, np.float64)
    lines = [
        go.Scatter(y=lam.astype(np.float32), x0=0, dx=1, mode="lines", name=names[0]),
        go.Scatter(y=(1 / lam).astype(np.float32), x0=0, dx=1, mode="lines", name=names[1]),
    ]
    return _figure(lines, *titles, yaxis=dict(type="log", exponentformat="power"))


def similarity_figure(
    sim: np.ndarray,
    pos_start: int,
    metric: str,
    titles: tuple[str, str, str] | None = None,
) -> go.Figure:
    """(n, n) similarity of positions pos_start..pos_start+n-1."""
    heatmap = go.Heatmap(
        z=np.asarray(sim, np.float32),
        x0=pos_start,
        dx=1,
        y0=pos_start,
        dy=1,
        colorscale="Viridis",
        colorbar=OVERFLOW,
        hovertemplate="m %{x}, n %{y}<br>" + metric + " %{z:.3f}<extra></extra>",
    )
    titles = titles or (f"{metric} similarity PE[m] · PE[n]", "position m", "position n")
    return _figure([heatmap], *titles, yaxis=dict(autorange="reversed"))


def offset_figure(
    curves: np.ndarray,
    references: list[int],
    titles: tuple[str, str, str] = ("Dot product against the offset k = m − n", "offset k", "PE[n] · PE[n+k]"),
) -> go.Figure:
    """PE[n] · PE[n + k] against k, one line per reference n: they coincide."""
    lines = [
        go.Scatter(y=np.asarray(curve, np.float32), x0=0, dx=1, mode="lines", name=f"n = {n}", line=dict(dash=dash))
        for curve, n, dash in zip(curves, references, ["solid", "dot", "dash"], strict=False)
    ]
    return _figure(lines, *titles)
