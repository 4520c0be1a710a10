"""Plotly figures for the positional-encoding page. Pure: CPU arrays in, go.Figure out.

Arrays go in as float32 with x0/dx instead of coordinate arrays, so a chart carries its values once.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

HEATMAP_MAX_CELLS = 262_144  # 1 MiB of float32: about 1.4 MB of base64 in the chart's JSON


def _layout(fig: go.Figure, title: str, x: str, y: str, **kw) -> go.Figure:
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=y, margin=dict(l=10, r=10, t=40, b=10), **kw)
    return fig


def pe_heatmap_figure(values: np.ndarray, pos_start: int, dim_start: int, title: str = "PE[pos, i]") -> go.Figure:
    """One cell per table entry (no averaging): rows are positions, columns dimensions."""
    z = np.asarray(values, dtype=np.float32)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x0=dim_start,
            dx=1,
            y0=pos_start,
            dy=1,
            zmin=-1,
            zmax=1,
            colorscale="RdBu",
            reversescale=True,
            hovertemplate="position %{y}<br>dimension %{x}<br>value %{z:.4f}<extra></extra>",
        )
    )
    return _layout(fig, title, "dimension i", "position", yaxis_autorange="reversed")


def pe_curves_figure(curves: np.ndarray, pos_start: int, dims: list[int]) -> go.Figure:
    """PE[pos, i] against pos for each chosen dimension i: (n_positions, len(dims))."""
    fig = go.Figure()
    for j, dim in enumerate(dims):
        fig.add_trace(
            go.Scatter(
                y=np.asarray(curves[:, j], np.float32),
                x0=pos_start,
                dx=1,
                mode="lines",
                name=f"dim {dim}",
                hovertemplate=f"dim {dim}<br>position %{{x}}<br>value %{{y:.4f}}<extra></extra>",
            )
        )
    return _layout(fig, "PE[pos, i] for chosen dimensions", "position", "value")


def wavelength_figure(lam: np.ndarray, d_model: int) -> go.Figure:
    """Wavelength (positions per cycle) and frequency (cycles per position) per pair, log y."""
    lam = np.asarray(lam, np.float64)
    fig = go.Figure()
    fig.add_trace(go.Scatter(y=lam.astype(np.float32), x0=0, dx=1, mode="lines", name="wavelength 2π/ω_i"))
    fig.add_trace(go.Scatter(y=(1 / lam).astype(np.float32), x0=0, dx=1, mode="lines", name="frequency ω_i/2π"))
    fig.update_yaxes(type="log", exponentformat="power")
    return _layout(
        fig,
        f"Wavelength and frequency per pair (d_model = {d_model})",
        "pair i (columns 2i and 2i+1)",
        "positions per cycle / cycles per position",
    )


def similarity_figure(sim: np.ndarray, pos_start: int, metric: str) -> go.Figure:
    """(n, n) similarity of positions pos_start..pos_start+n-1."""
    z = np.asarray(sim, np.float32)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x0=pos_start,
            dx=1,
            y0=pos_start,
            dy=1,
            colorscale="Viridis",
            hovertemplate="m %{x}, n %{y}<br>" + metric + " %{z:.3f}<extra></extra>",
        )
    )
    return _layout(fig, f"{metric} similarity PE[m] · PE[n]", "position m", "position n", yaxis_autorange="reversed")


def offset_figure(curves: np.ndarray, references: list[int]) -> go.Figure:
    """PE[n] · PE[n + k] against k, one line per reference n: they coincide."""
    fig = go.Figure()
    for curve, n, dash in zip(curves, references, ["solid", "dot", "dash"], strict=False):
        fig.add_trace(
            go.Scatter(y=np.asarray(curve, np.float32), x0=0, dx=1, mode="lines", name=f"n = {n}", line_dash=dash)
        )
    return _layout(fig, "Dot product against the offset k = m − n", "offset k", "PE[n] · PE[n+k]")
