"""The positional-encoding page's tables, computed once per server for their settings and shared by every learner:
a window of the table, B − A over a window, chosen columns, the similarity of positions, dot products by offset,
and the checks of the shift and of the frequencies.

st.cache_resource: a hit returns the array itself, where st.cache_data would unpickle a copy on every rerun. The
arrays are shared, so they are read-only (`flags.writeable = False`): a page that tried to change one would fail
instead of changing every learner's.
"""

from __future__ import annotations

import numpy as np
import streamlit as st
import torch

from core import positional as pe
from core.positional import PEConfig
from ui.device import device

CHECKED_ROWS = 500  # the shift is checked on this many rows at each end of a long table


def _shared(values: torch.Tensor) -> np.ndarray:
    array = values.cpu().numpy()
    array.flags.writeable = False
    return array


@st.cache_resource(max_entries=64, show_spinner=False)
def table_window(cfg: PEConfig, p0: int, p1: int, d0: int, d1: int) -> np.ndarray:
    """PE rows [p0, p1), columns [d0, d1): (p1 - p0, d1 - d0)."""
    return _shared(pe.pe_window(cfg, p0, p1, d0, d1, device=device()))


@st.cache_resource(max_entries=64, show_spinner=False)
def difference(a: PEConfig, b: PEConfig, p0: int, p1: int, d0: int, d1: int) -> np.ndarray:
    """B's table less A's over the window, where both have it."""
    return _shared(pe.pe_difference(a, b, p0, p1, d0, d1, device=device()))


@st.cache_resource(max_entries=64, show_spinner=False)
def table_columns(cfg: PEConfig, p0: int, p1: int, dims: tuple[int, ...]) -> np.ndarray:
    """The chosen columns over rows [p0, p1): (p1 - p0, len(dims))."""
    return _shared(pe.pe_columns(cfg, p0, p1, list(dims), device=device()))


@st.cache_resource(max_entries=64, show_spinner=False)
def similarity(cfg: PEConfig, p0: int, p1: int, metric: str) -> np.ndarray:
    """The similarity of positions [p0, p1) with each other: (p1 - p0, p1 - p0)."""
    return _shared(pe.position_similarity(pe.pe_window(cfg, p0, p1, device=device()), metric))


@st.cache_resource(max_entries=64, show_spinner=False)
def offset_curves(cfg: PEConfig, refs: tuple[int, ...], k: int) -> np.ndarray:
    """PE[n] · PE[n + k] for k in [0, k], one row per reference n."""
    return _shared(pe.dot_by_offset(cfg, list(refs), k, device=device()))


@st.cache_resource(max_entries=64, show_spinner=False)
def checks(cfg: PEConfig, k: int) -> tuple[float, float]:
    """The largest error of the shift by k (on CHECKED_ROWS rows at each end), and of exp(log) frequencies."""
    first = pe.shift_error(cfg, k, 0, CHECKED_ROWS, device=device())
    last = pe.shift_error(cfg, k, max(cfg.max_len - k - CHECKED_ROWS, 0), cfg.max_len, device=device())
    shift_err = max((e for e in (first, last) if not np.isnan(e)), default=float("nan"))
    return shift_err, pe.div_term_difference(cfg.d_model, cfg.base, device=device())
