"""Sinusoidal positional encoding (Vaswani et al. 2017, section 3.5) and the facts about it.

PE[pos, 2i]   = sin(pos / base^(2i/d_model))
PE[pos, 2i+1] = cos(pos / base^(2i/d_model))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from core.device import float64_ok
from core.problems import Problem

LAYOUTS = ("interleaved", "concatenated")
MAX_D_MODEL = 4096
MAX_LEN = 100_000
MAX_BASE = 1e7
# A whole table is only built for downloads and the nn.Module; figures build the rows they draw.
TABLE_BUDGET_BYTES = 256 * 2**20


@dataclass(frozen=True)
class PEConfig:
    """One sinusoidal table: its size, base and column layout. Raises Problem with what to change."""

    d_model: int = 128
    max_len: int = 100
    base: float = 10000.0
    layout: str = "interleaved"

    def __post_init__(self) -> None:
        if not 1 <= self.d_model <= MAX_D_MODEL:
            raise Problem("pe_d_model", most=MAX_D_MODEL, value=self.d_model)
        if not 1 <= self.max_len <= MAX_LEN:
            raise Problem("pe_max_len", most=f"{MAX_LEN:,}", value=self.max_len)
        if not math.isfinite(self.base):
            raise Problem("pe_base_finite", value=self.base)
        if not 1 < self.base <= MAX_BASE:
            raise Problem("pe_base_range", most=f"{MAX_BASE:g}", value=f"{self.base:g}")
        if self.layout not in LAYOUTS:
            raise Problem("pe_layout", choices=", ".join(LAYOUTS), value=repr(self.layout))

    @property
    def n_sin(self) -> int:
        """Sine columns: ceil(d/2). Cosine columns: floor(d/2)."""
        return (self.d_model + 1) // 2

    @property
    def table_bytes(self) -> int:
        """Bytes of the whole float32 table."""
        return self.max_len * self.d_model * 4

    def over_budget(self) -> Problem | None:
        """None when the whole table fits TABLE_BUDGET_BYTES, else a Problem saying what to reduce."""
        if self.table_bytes <= TABLE_BUDGET_BYTES:
            return None
        cells = TABLE_BUDGET_BYTES // 4
        return Problem(
            "pe_budget",
            rows=f"{self.max_len:,}",
            cols=f"{self.d_model:,}",
            mib=f"{self.table_bytes / 2**20:,.0f}",
            budget=f"{TABLE_BUDGET_BYTES / 2**20:.0f}",
            max_len=f"{cells // self.d_model:,}",
            d_model=f"{cells // self.max_len:,}",
        )


def inverse_frequencies(
    d_model: int, base: float = 10000.0, *, device: torch.device | None = None, dtype: torch.dtype = torch.float32
) -> Tensor:
    """div_term of the seeds, in log space: omega_i = exp(-2i * ln(base) / d_model).

    Returns:
        (ceil(d_model / 2),) angular frequency of each sine/cosine pair.
    """
    two_i = torch.arange(0, d_model, 2, device=device, dtype=dtype)  # (ceil(d/2),)
    return torch.exp(two_i * -(math.log(base) / d_model))


def wavelengths(d_model: int, base: float = 10000.0, *, device: torch.device | None = None) -> Tensor:
    """Wavelength 2*pi / omega_i of each pair, from 2*pi up to 2*pi*base^(2(n-1)/d).

    Returns:
        (ceil(d_model / 2),) float64 on cpu/cuda, float32 on mps.
    """
    dtype = torch.float64 if float64_ok(torch.device(device or "cpu")) else torch.float32
    return 2 * math.pi / inverse_frequencies(d_model, base, device=device, dtype=dtype)


def sinusoidal_rows(
    positions: Tensor,
    d_model: int,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """The PE rows for the given positions, computed on positions.device.

    Angles are formed in float64 where the device has it, so row 99,999 is as exact as row 0.
    Odd d_model gives ceil(d/2) sine and floor(d/2) cosine columns.

    Args:
        positions: (n,) integer positions.
        layout: "interleaved" (sin on even, cos on odd columns: the paper) or
            "concatenated" (all sines, then all cosines: tensor2tensor).
    Returns:
        (n, d_model) table rows.
    """
    work = torch.float64 if float64_ok(positions.device) else torch.float32
    inv_freq = inverse_frequencies(d_model, base, device=positions.device, dtype=work)  # (n_sin,)
    angles = positions.to(work)[:, None] * inv_freq[None, :]  # (n, n_sin)
    sin, cos = angles.sin(), angles[:, : d_model // 2].cos()  # (n, ceil(d/2)), (n, floor(d/2))
    if layout == "concatenated":
        pe = torch.cat([sin, cos], dim=1)  # (n, d_model)
    elif layout == "interleaved":
        pe = torch.empty(len(positions), d_model, device=positions.device, dtype=work)
        pe[:, 0::2] = sin
        pe[:, 1::2] = cos
    else:
        raise Problem("pe_layout", choices=", ".join(LAYOUTS), value=repr(layout))
    return pe.to(dtype)


def sinusoidal_encoding(
    max_len: int,
    d_model: int,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
    device: torch.device | None = None,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """The whole sinusoidal table.

    Returns:
        (max_len, d_model) with PE[pos] = sinusoidal_rows(pos).
    """
    positions = torch.arange(max_len, device=device)  # (max_len,)
    return sinusoidal_rows(positions, d_model, base, layout=layout, dtype=dtype)


def pe_window(
    cfg: PEConfig, pos_start: int, pos_stop: int, dim_start: int = 0, dim_stop: int | None = None, *, device=None
) -> Tensor:
    """Rows pos_start..pos_stop-1 and columns dim_start..dim_stop-1 of cfg's table, without building the rest.

    Returns:
        (pos_stop - pos_start, dim_stop - dim_start) float32.
    """
    positions = torch.arange(pos_start, pos_stop, device=device)
    rows = sinusoidal_rows(positions, cfg.d_model, cfg.base, layout=cfg.layout)  # (n, d_model)
    return rows[:, dim_start:dim_stop]


def pe_difference(
    a: PEConfig,
    b: PEConfig,
    pos_start: int,
    pos_stop: int,
    dim_start: int = 0,
    dim_stop: int | None = None,
    *,
    device=None,
) -> Tensor:
    """B's table less A's over rows pos_start..pos_stop-1 and columns dim_start..dim_stop-1, cut to the rows and
    columns both tables have (A and B may differ in max_len and d_model).

    Returns:
        (rows, cols) float32, B - A; no rows or no columns when the window lies outside one of the tables.
    """
    pos_stop = max(min(pos_stop, a.max_len, b.max_len), pos_start)
    dim_stop = max(min(a.d_model, b.d_model, a.d_model if dim_stop is None else dim_stop), dim_start)
    window = (pos_start, pos_stop, dim_start, dim_stop)
    return pe_window(b, *window, device=device) - pe_window(a, *window, device=device)  # (rows, cols)


def pe_columns(cfg: PEConfig, pos_start: int, pos_stop: int, dims: list[int], *, device=None) -> Tensor:
    """Columns `dims` of rows pos_start..pos_stop-1 of cfg's table, without computing the other columns: the
    curves of a few dimensions along a long table. The same values as sinusoidal_rows' columns.

    Returns:
        (pos_stop - pos_start, len(dims)) float32.
    """
    positions = torch.arange(pos_start, pos_stop, device=device)
    work = torch.float64 if float64_ok(positions.device) else torch.float32
    inv_freq = inverse_frequencies(cfg.d_model, cfg.base, device=positions.device, dtype=work)  # (n_sin,)
    index = torch.tensor(dims, device=positions.device, dtype=torch.long)
    if cfg.layout == "interleaved":  # column 2i is sin of pair i, 2i + 1 its cos
        pair, is_cos = index // 2, index % 2 == 1
    else:  # the n_sin sines, then the cosines
        is_cos = index >= len(inv_freq)
        pair = torch.where(is_cos, index - len(inv_freq), index)
    angles = positions.to(work)[:, None] * inv_freq[pair][None, :]  # (n, len(dims))
    return torch.where(is_cos, angles.cos(), angles.sin()).float()


class SinusoidalPositionalEncoding(nn.Module):
    """Seed 000's PositionalEncoding: a fixed (1, max_len, d_model) buffer added to the input, then dropout."""

    pe: Tensor  # (1, max_len, d_model) buffer

    def __init__(
        self,
        d_model: int,
        dropout: float = 0.1,
        max_len: int = 5000,
        base: float = 10000.0,
        layout: str = "interleaved",
    ) -> None:
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = sinusoidal_encoding(max_len, d_model, base, layout=layout)  # (max_len, d_model)
        self.register_buffer("pe", pe.unsqueeze(0))  # (1, max_len, d_model)

    def forward(self, x: Tensor) -> Tensor:
        """x: (batch, seq_len, d_model) -> x + PE[:seq_len], then dropout."""
        if x.size(1) > self.pe.size(1):
            raise ValueError(f"sequence length {x.size(1)} exceeds max_len {self.pe.size(1)}")
        return self.dropout(x + self.pe[:, : x.size(1)])


def position_similarity(pe: Tensor, metric: str = "dot") -> Tensor:
    """Similarity of every pair of rows.

    Args:
        pe: (n, d) rows; metric: "dot" or "cosine".
    Returns:
        (n, n)
    """
    if metric == "cosine":
        pe = nn.functional.normalize(pe, dim=1)
    elif metric != "dot":
        raise ValueError(f"metric must be 'dot' or 'cosine'; it is {metric!r}.")
    return pe @ pe.T


def dot_by_offset(cfg: PEConfig, references: list[int], max_offset: int, *, device=None) -> Tensor:
    """PE[n] . PE[n + k] for k = 0..max_offset, for each reference n: the same curve for every n.

    Returns:
        (len(references), max_offset + 1) float64 (float32 on mps).
    """
    dtype = torch.float64 if float64_ok(torch.device(device or "cpu")) else torch.float32
    curves = []
    for n in references:
        rows = sinusoidal_rows(
            torch.arange(n, n + max_offset + 1, device=device), cfg.d_model, cfg.base, layout=cfg.layout, dtype=dtype
        )  # (max_offset + 1, d_model)
        curves.append(rows @ rows[0])
    return torch.stack(curves)


def pair_columns(d_model: int, layout: str = "interleaved") -> tuple[Tensor, Tensor]:
    """Column indices of the sine and cosine of each complete pair (floor(d/2) pairs)."""
    i = torch.arange(d_model // 2)
    if layout == "interleaved":
        return 2 * i, 2 * i + 1
    return i, (d_model + 1) // 2 + i


def apply_shift(rows: Tensor, k: int, base: float = 10000.0, *, layout: str = "interleaved") -> Tensor:
    """M_k @ row for every row: a 2x2 rotation by k*omega_i on each (sin, cos) pair, O(n * d).

    Args:
        rows: (n, d_model) PE rows.
    Returns:
        (n, d_model); the unpaired last sine column of an odd d_model has no partner and stays zero.
    """
    d_model = rows.size(1)
    work = torch.float64 if float64_ok(rows.device) else torch.float32
    theta = k * inverse_frequencies(d_model, base, device=rows.device, dtype=work)[: d_model // 2]  # (floor(d/2),)
    s, c = (idx.to(rows.device) for idx in pair_columns(d_model, layout))
    x_sin, x_cos = rows[:, s].to(work), rows[:, c].to(work)  # (n, floor(d/2)) each
    out = torch.zeros_like(rows, dtype=work)
    # sin(w(p+k)) = cos(kw) sin(wp) + sin(kw) cos(wp);  cos(w(p+k)) = -sin(kw) sin(wp) + cos(kw) cos(wp)
    out[:, s] = theta.cos() * x_sin + theta.sin() * x_cos
    out[:, c] = -theta.sin() * x_sin + theta.cos() * x_cos
    return out.to(rows.dtype)


def shift_operator(
    k: int, d_model: int, base: float = 10000.0, *, layout: str = "interleaved", device=None, dtype=torch.float32
) -> Tensor:
    """M_k with PE[pos + k] = M_k PE[pos] as a dense matrix: apply_shift's rotations applied to the identity.

    With odd d_model the last sine column has no cosine partner; its row of M_k stays zero.

    Returns:
        (d_model, d_model) block-diagonal (up to the layout's column order).
    """
    work = torch.float64 if float64_ok(torch.device(device or "cpu")) else torch.float32
    eye = torch.eye(d_model, device=device, dtype=work)
    return apply_shift(eye, k, base, layout=layout).T.to(dtype)  # row j of apply_shift(I) is M_k e_j


def shift_error(cfg: PEConfig, k: int, pos_start: int, pos_stop: int, *, device=None) -> float:
    """Largest |PE[p + k] - M_k PE[p]| over p in [pos_start, pos_stop) with p + k < max_len, on paired columns.

    Computed on the float32 table, the precision a model stores it in. NaN when no p qualifies or d_model < 2.
    """
    pos_stop = min(pos_stop, cfg.max_len - k)
    if pos_stop <= pos_start or cfg.d_model < 2:
        return float("nan")
    here = pe_window(cfg, pos_start, pos_stop, device=device)  # (n, d_model)
    there = pe_window(cfg, pos_start + k, pos_stop + k, device=device)  # (n, d_model)
    paired = torch.cat(pair_columns(cfg.d_model, cfg.layout)).to(here.device)
    return (there - apply_shift(here, k, cfg.base, layout=cfg.layout))[:, paired].abs().max().item()


def div_term_difference(d_model: int, base: float = 10000.0, *, device=None) -> float:
    """Seed 000's point: exp(2i * -ln(base)/d) equals base^(-2i/d). Largest float32 difference of the two."""
    two_i = torch.arange(0, d_model, 2, device=device, dtype=torch.float32)
    via_log = torch.exp(two_i * -(math.log(base) / d_model))
    direct = torch.pow(torch.tensor(base, device=device, dtype=torch.float32), -two_i / d_model)
    return (via_log - direct).abs().max().item()


def similarity_by_offset(table: Tensor, max_offset: int) -> Tensor:
    """Mean cosine similarity of rows m and m + k over all m, for k = 0..max_offset: how similarity decays.

    Returns:
        (max_offset + 1,)
    """
    unit = nn.functional.normalize(table, dim=1)  # (n, d)
    return torch.stack([(unit[: len(unit) - k] * unit[k:]).sum(1).mean() for k in range(max_offset + 1)])
