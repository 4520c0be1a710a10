"""Positional encoding: the sinusoidal table, its wavelengths, and why it encodes relative position."""

import io

import numpy as np
import streamlit as st

from core import positional as pe
from core.positional import LAYOUTS, PEConfig
from figures import positional as fig
from ui import (
    device,
    explain,
    parse_indices,
    parse_number,
    set_defaults,
    show_code,
    take_pick,
    window_start,
)

DEFAULTS = dict(d_model=128, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7")
WINDOW_DEFAULTS = dict(pos_span=100, dim_span=512, curve_span=100, sim_span=100, sim_metric="dot", shift_k=5)
CHECKED_ROWS = 500
PRESETS = {
    "Custom": {},
    "The paper: d_model 512, base 10000": dict(
        d_model=512, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7"
    ),
    "Annotated Transformer: d 20, 100 positions, dims 4–7": dict(
        d_model=20, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7"
    ),
    "Kazemnejad's post: d 128, 50 positions": dict(
        d_model=128, max_len=50, base="10000", layout="interleaved", dims="0, 1, 10, 11"
    ),
    "Illustrated Transformer: 512 × 20, sines then cosines": dict(
        d_model=512, max_len=20, base="10000", layout="concatenated", dims="0, 255, 256, 511"
    ),
    "Transformer Explainer: 768 × 40": dict(
        d_model=768, max_len=40, base="10000", layout="interleaved", dims="0, 1, 2, 3"
    ),
}


def apply_preset() -> None:
    for name, value in PRESETS[st.session_state.pe_preset].items():
        st.session_state[f"pe_{name}"] = value
    for key in ("pe_pos_start", "pe_dim_start", "pe_curve_start", "pe_sim_start"):
        st.session_state[key] = 0


def mark_custom() -> None:
    st.session_state.pe_preset = "Custom"


def pick_base() -> None:
    take_pick("pe_base_pick", "pe_base")
    mark_custom()


@st.cache_data(max_entries=64)
def table_window(cfg: PEConfig, p0: int, p1: int, d0: int, d1: int) -> np.ndarray:
    return pe.pe_window(cfg, p0, p1, d0, d1, device=device()).cpu().numpy()


@st.cache_data(max_entries=64)
def table_columns(cfg: PEConfig, p0: int, p1: int, dims: tuple[int, ...]) -> np.ndarray:
    return pe.pe_window(cfg, p0, p1, device=device())[:, list(dims)].cpu().numpy()


@st.cache_data(max_entries=64)
def similarity(cfg: PEConfig, p0: int, p1: int, metric: str) -> np.ndarray:
    return pe.position_similarity(pe.pe_window(cfg, p0, p1, device=device()), metric).cpu().numpy()


@st.cache_data(max_entries=64)
def offset_curves(cfg: PEConfig, refs: tuple[int, ...], k: int) -> np.ndarray:
    return pe.dot_by_offset(cfg, list(refs), k, device=device()).cpu().numpy()


@st.cache_data(max_entries=64)
def checks(cfg: PEConfig, k: int) -> tuple[float, float]:
    first = pe.shift_error(cfg, k, 0, CHECKED_ROWS, device=device())
    last = pe.shift_error(cfg, k, max(cfg.max_len - k - CHECKED_ROWS, 0), cfg.max_len, device=device())
    shift_err = max((e for e in (first, last) if not np.isnan(e)), default=float("nan"))
    return shift_err, pe.div_term_difference(cfg.d_model, cfg.base, device=device())


def whole_table_npy(cfg: PEConfig) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, pe.sinusoidal_encoding(cfg.max_len, cfg.d_model, cfg.base, layout=cfg.layout).numpy())
    return buffer.getvalue()


st.title("Positional encoding")
st.markdown(
    "Self-attention sees a set, not a sequence: *I love you* and *you love I* give it the same vectors. "
    "The Transformer adds a position vector to each token vector. The paper's vectors are sines and cosines "
    "of the position at wavelengths that grow geometrically across the dimensions."
)

# --- Settings ---------------------------------------------------------------------------------------
set_defaults("pe", {**DEFAULTS, **WINDOW_DEFAULTS})
st.selectbox("Preset", list(PRESETS), key="pe_preset", on_change=apply_preset)
c1, c2, c3, c4 = st.columns([1, 1, 1.4, 1.2])
d_model = c1.number_input("d_model", step=1, key="pe_d_model", on_change=mark_custom)
max_len = c2.number_input("max_len (positions)", step=1, key="pe_max_len", on_change=mark_custom)
base_text = c3.text_input("base", key="pe_base", on_change=mark_custom, help="Above 1, up to 1e7.")
c3.pills(
    "Common bases", ["100", "10000", "500000"], key="pe_base_pick", on_change=pick_base, label_visibility="collapsed"
)
layout = c4.radio(
    "Column layout",
    LAYOUTS,
    key="pe_layout",
    on_change=mark_custom,
    help="interleaved: sin, cos, sin, cos (the paper). concatenated: all sines, then all cosines.",
)

try:
    cfg = PEConfig(int(d_model), int(max_len), parse_number(base_text, "base"), layout)
    st.session_state.pe_last_valid = cfg
except ValueError as err:
    cfg = st.session_state.get("pe_last_valid", PEConfig())
    st.error(
        f"{err} The figures below keep the last valid settings: d_model {cfg.d_model}, "
        f"max_len {cfg.max_len}, base {cfg.base:g}."
    )
if cfg.d_model == 1:
    st.warning(
        "d_model = 1 leaves a single sine column and no cosine: PE[pos] = sin(pos) cannot tell pos "
        "from π − pos and repeats every 2π positions. Use d_model ≥ 2 (the paper: 512)."
    )
elif cfg.d_model % 2:
    st.info(
        f"Odd d_model = {cfg.d_model}: {cfg.n_sin} sine and {cfg.d_model // 2} cosine columns. The last "
        "sine has no cosine partner, so the shift check below covers the paired columns only."
    )


# Each section is a fragment: a slider inside it reruns and redraws that section alone.
@st.fragment
def table_section(cfg: PEConfig) -> None:
    st.header("1. The table")
    c1, c2 = st.columns(2)
    pos_span = c1.select_slider("Positions shown", [10, 20, 50, 100, 200, 500, 1000], key="pe_pos_span")
    dim_span = c2.select_slider("Dimensions shown", [8, 16, 32, 64, 128, 256, 512, 1024], key="pe_dim_span")
    p0 = window_start("pe_pos_start", "First position", total=cfg.max_len, span=pos_span, where=c1)
    d0 = window_start("pe_dim_start", "First dimension", total=cfg.d_model, span=dim_span, where=c2)
    p1, d1 = min(p0 + pos_span, cfg.max_len), min(d0 + dim_span, cfg.d_model)
    p1_heat = min(p1, p0 + fig.HEATMAP_MAX_CELLS // (d1 - d0))
    st.plotly_chart(fig.pe_heatmap_figure(table_window(cfg, p0, p1_heat, d0, d1), p0, d0))
    st.caption(
        f"Positions {p0}–{p1_heat - 1} × dimensions {d0}–{d1 - 1} of the {cfg.max_len:,} × {cfg.d_model:,} "
        f"table: {(p1_heat - p0) * (d1 - d0):,} cells, one per value, nothing averaged."
        + (f" A {d1 - d0}-column window shows at most {p1_heat - p0} rows at full resolution." if p1_heat < p1 else "")
    )
    explain(
        r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{base^{2i/d_{model}}}\right),\quad "
        r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{base^{2i/d_{model}}}\right)",
        "Left columns flip sign every few positions, right columns barely change: each pair is a clock at its own speed.",
    )
    show_code(pe.inverse_frequencies, pe.sinusoidal_rows)


@st.fragment
def curves_section(cfg: PEConfig) -> None:
    c1, c2, c3 = st.columns([1.2, 1, 1])
    dims, dropped = parse_indices(c1.text_input("Dimensions to plot", key="pe_dims"), cfg.d_model, most=8)
    span = c2.select_slider("Positions plotted", [20, 50, 100, 200, 500, 1000, 2000], key="pe_curve_span")
    p0 = window_start("pe_curve_start", "From position", total=cfg.max_len, span=span, where=c3)
    p1 = min(p0 + span, cfg.max_len)
    if dropped:
        st.warning(f"Ignored {', '.join(dropped)}: give up to 8 distinct dimensions between 0 and {cfg.d_model - 1}.")
    if dims:
        st.plotly_chart(fig.pe_curves_figure(table_columns(cfg, p0, p1, tuple(dims)), p0, dims))
        st.caption("Even columns are sines, odd columns cosines (interleaved); a pair shares one wavelength.")


def wavelength_section(cfg: PEConfig) -> None:
    st.header("2. Wavelengths")
    lam = pe.wavelengths(cfg.d_model, cfg.base, device=device()).cpu().numpy()
    st.plotly_chart(fig.wavelength_figure(lam, cfg.d_model))
    c1, c2 = st.columns(2)
    c1.metric("Shortest wavelength (pair 0)", f"{lam[0]:.4g} positions")
    c2.metric(f"Longest wavelength (pair {len(lam) - 1})", f"{lam[-1]:,.4g} positions")
    explain(
        r"\lambda_i = \frac{2\pi}{\omega_i} = 2\pi \cdot base^{2i/d_{model}},\qquad "
        r"\lambda \in \left[2\pi,\; 2\pi \cdot base^{2(\lceil d/2 \rceil - 1)/d}\right]",
        "A straight line on the log axis: wavelengths grow geometrically, so the base sets the longest one.",
    )


@st.fragment
def similarity_section(cfg: PEConfig) -> None:
    st.header("3. Similarity depends only on the offset")
    c1, c2, c3 = st.columns([1, 1, 1])
    metric = c1.radio("Similarity", ["dot", "cosine"], key="pe_sim_metric", horizontal=True)
    span = c2.select_slider("Positions compared", [10, 20, 50, 100, 200, 500], key="pe_sim_span")
    p0 = window_start("pe_sim_start", "From position", total=cfg.max_len, span=span, where=c3)
    p1 = min(p0 + span, cfg.max_len)
    st.plotly_chart(fig.similarity_figure(similarity(cfg, p0, p1, metric), p0, metric))
    refs = (0, p0) if p0 else (0, cfg.max_len // 2)
    k_max = min(span, cfg.max_len - 1 - max(refs))
    if k_max >= 1:
        st.plotly_chart(fig.offset_figure(offset_curves(cfg, refs, k_max), list(refs)))
    explain(
        r"PE_m \cdot PE_n = \sum_i \cos\big(\omega_i (m - n)\big)",
        "The bands run parallel to the diagonal and the curves for different n lie on top of each other.",
    )


@st.fragment
def checks_section(cfg: PEConfig) -> None:
    st.header("4. Two checks")
    k = int(st.number_input("Shift k", step=1, key="pe_shift_k"))
    if not 0 <= k < cfg.max_len:
        fallback = min(1, cfg.max_len - 1)
        st.error(f"k must be between 0 and max_len − 1 = {cfg.max_len - 1}; it is {k}. Using k = {fallback}.")
        k = fallback
    shift_err, div_err = checks(cfg, k)
    c1, c2 = st.columns(2)
    rows = f"the first and last {CHECKED_ROWS:,} rows" if cfg.max_len > 2 * CHECKED_ROWS else "every row"
    c1.metric(f"max |PE[p+{k}] − M_{k} PE[p]|, p in {rows}", "n/a" if np.isnan(shift_err) else f"{shift_err:.2e}")
    c2.metric("max |exp(−2i·ln(base)/d) − base^(−2i/d)|", f"{div_err:.2e}")
    explain(
        r"\begin{pmatrix}\sin\omega(p+k)\\ \cos\omega(p+k)\end{pmatrix} = "
        r"\begin{pmatrix}\cos\omega k & \sin\omega k\\ -\sin\omega k & \cos\omega k\end{pmatrix}"
        r"\begin{pmatrix}\sin\omega p\\ \cos\omega p\end{pmatrix}",
        "One matrix M_k, the same for every p, moves any position k steps: an offset is a linear map. "
        "And the seed's exp/log form of div_term gives the direct power to float32 rounding.",
    )
    show_code(pe.apply_shift, pe.shift_operator, pe.div_term_difference)


table_section(cfg)
curves_section(cfg)
wavelength_section(cfg)
similarity_section(cfg)
checks_section(cfg)

# --- 5. In a model ----------------------------------------------------------------------------------
st.header("5. In a model")
st.markdown(
    "`SinusoidalPositionalEncoding` keeps the table in a buffer (saved with the model, never trained) and "
    "adds its first `seq_len` rows to the token vectors, then applies dropout."
)
show_code(pe.SinusoidalPositionalEncoding)
if message := cfg.budget_message():
    st.warning(f"{message} The figures above still work: they compute only the rows they draw.")
else:
    st.download_button(
        "Download the whole table (.npy)",
        lambda: whole_table_npy(cfg),
        key="pe_download",
        file_name=f"pe_{cfg.max_len}x{cfg.d_model}_{cfg.layout}.npy",
        on_click="ignore",
    )
st.caption(f"Computed with torch on {device().type}.")
