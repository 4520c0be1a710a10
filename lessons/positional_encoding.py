"""Positional encoding: the sinusoidal table, its wavelengths, and why it encodes relative position."""

import functools

import numpy as np
import streamlit as st

from core import positional as pe
from core.positional import LAYOUTS, PEConfig
from figures import positional as fig
from ui import (
    Between,
    device,
    downloads,
    explain,
    npy_bytes,
    parse_indices,
    parse_number,
    set_defaults,
    show_code,
    take_pick,
)
from ui.caching import page_cache_data
from ui.exercises import try_this
from ui.i18n import problem, t
from ui.live_chart import TableWindow, figure_json, live_chart, window_chart

DEFAULTS = dict(d_model=128, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7")
# The lesson's chapters, shown one at a time: Streamlit redraws every element on the page after a fragment
# runs, so the delay after a slider move grows with the page's length (see benchmarks/rerun.py).
CHAPTERS = ["table", "wavelengths", "similarity", "checks", "model", "exercises"]
WINDOW_DEFAULTS = dict(
    chapter="table",
    pos_span=100,
    dim_span=512,
    curve_span=100,
    sim_span=100,
    sim_metric="dot",
    shift_k=5,
    pos_start=0,
    dim_start=0,
    curve_start=0,
    sim_start=0,
)
CHECKED_ROWS = 500
CHOICES = dict(
    chapter=CHAPTERS,
    layout=list(LAYOUTS),
    pos_span=[10, 20, 50, 100, 200, 500, 1000],
    dim_span=[8, 16, 32, 64, 128, 256, 512, 1024],
    curve_span=[20, 50, 100, 200, 500, 1000, 2000],
    sim_span=[10, 20, 50, 100, 200, 500],
    sim_metric=["dot", "cosine"],
    pos_start=Between(0, pe.MAX_LEN),
    dim_start=Between(0, pe.MAX_D_MODEL),
    curve_start=Between(0, pe.MAX_LEN),
    sim_start=Between(0, pe.MAX_LEN),
)
TABLE_WINDOW = TableWindow(
    keys=("pe_pos_start", "pe_pos_span", "pe_dim_start", "pe_dim_span"),
    spans=(CHOICES["pos_span"], CHOICES["dim_span"]),
    max_cells=fig.HEATMAP_MAX_CELLS,
)
SIMILARITY_WINDOW = TableWindow(keys=("pe_sim_start", "pe_sim_span"), spans=(CHOICES["sim_span"],), tied=True)
CURVES_WINDOW = TableWindow(keys=("pe_curve_start", "pe_curve_span"), spans=(CHOICES["curve_span"],), lines=True)
PRESETS = {  # shown as t("pe.preset_<name>")
    "custom": {},
    "paper": dict(d_model=512, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7"),
    "annotated": dict(d_model=20, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7"),
    "kazemnejad": dict(d_model=128, max_len=50, base="10000", layout="interleaved", dims="0, 1, 10, 11"),
    "illustrated": dict(d_model=512, max_len=20, base="10000", layout="concatenated", dims="0, 255, 256, 511"),
    "explainer": dict(d_model=768, max_len=40, base="10000", layout="interleaved", dims="0, 1, 2, 3"),
}


def apply_preset() -> None:
    for name, value in PRESETS[st.session_state.pe_preset].items():
        st.session_state[f"pe_{name}"] = value
    for key in ("pe_pos_start", "pe_dim_start", "pe_curve_start", "pe_sim_start"):
        st.session_state[key] = 0


def mark_custom() -> None:
    st.session_state.pe_preset = "custom"


def pick_base() -> None:
    take_pick("pe_base_pick", "pe_base")
    mark_custom()


@page_cache_data(max_entries=64)
def table_window(cfg: PEConfig, p0: int, p1: int, d0: int, d1: int) -> np.ndarray:
    return pe.pe_window(cfg, p0, p1, d0, d1, device=device()).cpu().numpy()


# The heatmap without its values, which the browser takes from the block it holds (ui.window_chart).
@page_cache_data(max_entries=8)
def table_figure(axes: tuple[str, str]) -> str:
    return figure_json(fig.pe_heatmap_figure(np.zeros((0, 0)), axis_titles=axes))


@page_cache_data(max_entries=64)
def table_columns(cfg: PEConfig, p0: int, p1: int, dims: tuple[int, ...]) -> np.ndarray:
    return pe.pe_columns(cfg, p0, p1, list(dims), device=device()).cpu().numpy()


# The curves without their values, which the browser takes from the columns it holds (ui.window_chart).
@page_cache_data(max_entries=8)
def curves_figure(dims: tuple[int, ...], titles: tuple[str, str, str]) -> str:
    return figure_json(fig.pe_curves_figure(np.zeros((0, len(dims))), 0, list(dims), titles))


@page_cache_data(max_entries=64)
def similarity(cfg: PEConfig, p0: int, p1: int, metric: str) -> np.ndarray:
    return pe.position_similarity(pe.pe_window(cfg, p0, p1, device=device()), metric).cpu().numpy()


# The similarity matrix without its values, which the browser takes from the block it holds (ui.window_chart).
@page_cache_data(max_entries=8)
def similarity_figure(metric: str, titles: tuple[str, str, str]) -> str:
    return figure_json(fig.similarity_figure(np.zeros((0, 0)), 0, metric, titles))


@page_cache_data(max_entries=64)
def offset_curves(cfg: PEConfig, refs: tuple[int, ...], k: int) -> np.ndarray:
    return pe.dot_by_offset(cfg, list(refs), k, device=device()).cpu().numpy()


@page_cache_data(max_entries=64)
def checks(cfg: PEConfig, k: int) -> tuple[float, float]:
    first = pe.shift_error(cfg, k, 0, CHECKED_ROWS, device=device())
    last = pe.shift_error(cfg, k, max(cfg.max_len - k - CHECKED_ROWS, 0), cfg.max_len, device=device())
    shift_err = max((e for e in (first, last) if not np.isnan(e)), default=float("nan"))
    return shift_err, pe.div_term_difference(cfg.d_model, cfg.base, device=device())


st.title(t("pe.title"))
st.markdown(t("pe.intro"))

# --- Settings ---------------------------------------------------------------------------------------
link = set_defaults("pe", {**DEFAULTS, **WINDOW_DEFAULTS}, CHOICES)
st.selectbox(
    t("pe.preset"), list(PRESETS), format_func=lambda p: t(f"pe.preset_{p}"), key="pe_preset", on_change=apply_preset
)
c1, c2, c3, c4 = st.columns([1, 1, 1.4, 1.2])
d_model = c1.number_input("d_model", step=1, key="pe_d_model", on_change=mark_custom)
max_len = c2.number_input(t("pe.max_len"), step=1, key="pe_max_len", on_change=mark_custom)
base_text = c3.text_input("base", key="pe_base", on_change=mark_custom, help=t("pe.base_help"))
c3.pills(
    t("pe.common_bases"),
    ["100", "10000", "500000"],
    key="pe_base_pick",
    wrap=True,  # in a column they would stay on one row and scroll: presenter mode cut off 500000
    on_change=pick_base,
    label_visibility="collapsed",
)
layout = c4.radio(
    t("pe.layout"),
    LAYOUTS,
    format_func=lambda v: t(f"pe.layout_{v}"),
    key="pe_layout",
    on_change=mark_custom,
    help=t("pe.layout_help"),
)

try:
    cfg = PEConfig(int(d_model), int(max_len), parse_number(base_text, "base", "10000"), layout)
    st.session_state.pe_last_valid = cfg
except ValueError as err:
    cfg = st.session_state.get("pe_last_valid", PEConfig())
    st.error(t("pe.kept", problem=problem(err), d_model=cfg.d_model, max_len=cfg.max_len, base=f"{cfg.base:g}"))
if cfg.d_model == 1:
    st.warning(t("pe.d_model_1"))
elif cfg.d_model % 2:
    st.info(t("pe.d_model_odd", d_model=cfg.d_model, n_sin=cfg.n_sin, n_cos=cfg.d_model // 2))


# Each section's controls and what they change are a fragment: a slider there reruns and redraws that
# part alone, and writes the URL. Formulas and code, which no slider changes, stay outside so a rerun does
# not redraw them.
# The table's window moves in the browser, inside a block of the table it was sent (all of it, when small): its
# sliders redraw the heatmap at once, and the fragment's rerun that follows updates the caption, download and link.
@link.fragment
def table_section(cfg: PEConfig) -> None:
    labels = (t("pe.pos_start"), t("pe.pos_span"), t("pe.dim_start"), t("pe.dim_span"))
    figure = table_figure((t("pe.ax_dimension"), t("pe.ax_position")))
    block = functools.partial(table_window, cfg)
    table = (cfg.max_len, cfg.d_model)
    (p0, p1, d0, d1), window = window_chart(figure, table, TABLE_WINDOW, labels, "pe_table_chart", block)
    capped = p1 < min(p0 + st.session_state.pe_pos_span, cfg.max_len)  # a wide window shows fewer rows
    st.caption(
        t(
            "pe.table_caption",
            p0=p0,
            p1=p1 - 1,
            d0=d0,
            d1=d1 - 1,
            max_len=cfg.max_len,
            d_model=cfg.d_model,
            cells=(p1 - p0) * (d1 - d0),
        )
        + (t("pe.table_capped", cols=d1 - d0, rows=p1 - p0) if capped else "")
    )
    downloads(f"pe_rows{p0}-{p1 - 1}_dims{d0}-{d1 - 1}", array=window, key="pe_window")


# The curves' window moves in the browser too, over the chosen columns of the table.
@link.fragment
def curves_section(cfg: PEConfig) -> None:
    c1, _ = st.columns([1, 2])
    dims, dropped = parse_indices(c1.text_input(t("pe.dims"), key="pe_dims"), cfg.d_model, most=8)
    if dropped:
        st.warning(t("pe.dims_dropped", dropped=", ".join(dropped), last=cfg.d_model - 1))
    if dims:
        figure = curves_figure(tuple(dims), (t("pe.curves_title"), t("pe.ax_position"), t("pe.ax_value")))
        labels = (t("pe.from_position"), t("pe.curve_span"))

        def block(p0: int, p1: int, *_columns) -> np.ndarray:  # every chosen dimension
            return table_columns(cfg, p0, p1, tuple(dims))

        window_chart(figure, (cfg.max_len, len(dims)), CURVES_WINDOW, labels, "pe_curves_chart", block)


def wavelength_section(cfg: PEConfig) -> None:
    lam = pe.wavelengths(cfg.d_model, cfg.base, device=device()).cpu().numpy()
    titles = (t("pe.wl_title", d_model=cfg.d_model), t("pe.wl_x"), t("pe.wl_y"))
    live_chart(fig.wavelength_figure(lam, titles, (t("pe.wl_wavelength"), t("pe.wl_frequency"))), key="pe_wl_chart")
    c1, c2 = st.columns(2)
    positions = [f"{n:,.0f}" if n >= 1000 else f"{n:.4g}" for n in (lam[0], lam[-1])]  # 54,410, not 5.441e+04
    c1.metric(t("pe.shortest"), positions[0])
    c2.metric(t("pe.longest", pair=len(lam) - 1), positions[1])
    explain(
        r"\lambda_i = \frac{2\pi}{\omega_i} = 2\pi \cdot base^{2i/d_{model}},\qquad "
        r"\lambda \in \left[2\pi,\; 2\pi \cdot base^{2(\lceil d/2 \rceil - 1)/d}\right]",
        t("pe.wl_notice"),
    )


# The similarity's window moves in the browser too: a square on the diagonal of the positions' matrix. The
# offset chart, whose second reference is the first position, follows with the rerun after the move.
@link.fragment
def similarity_section(cfg: PEConfig) -> None:
    c1, _ = st.columns([1, 2])
    metric = c1.radio(t("pe.similarity"), CHOICES["sim_metric"], key="pe_sim_metric", horizontal=True)
    position = t("pe.ax_position")
    figure = similarity_figure(metric, (t("pe.sim_title", metric=metric), position + " m", position + " n"))
    labels = (t("pe.from_position"), t("pe.sim_span"))

    def block(p0: int, p1: int, *_columns) -> np.ndarray:  # the same positions along both axes
        return similarity(cfg, p0, p1, metric)

    # every pair of positions is sent when there are at most 256 of them
    (p0, _, _, _), _ = window_chart(
        figure, (cfg.max_len, cfg.max_len), SIMILARITY_WINDOW, labels, "pe_sim_chart", block
    )
    span = st.session_state.pe_sim_span
    refs = (0, p0) if p0 else (0, cfg.max_len // 2)
    k_max = min(span, cfg.max_len - 1 - max(refs))
    if k_max >= 1:
        titles = (t("pe.offset_title"), t("pe.offset_x"), "PE[n] · PE[n+k]")
        live_chart(fig.offset_figure(offset_curves(cfg, refs, k_max), list(refs), titles), key="pe_offset_chart")


@link.fragment
def checks_section(cfg: PEConfig) -> None:
    k = int(st.number_input(t("pe.shift_k"), step=1, key="pe_shift_k"))
    if not 0 <= k < cfg.max_len:
        fallback = min(1, cfg.max_len - 1)
        st.error(t("pe.k_range", last=cfg.max_len - 1, k=k, fallback=fallback))
        k = fallback
    shift_err, div_err = checks(cfg, k)
    c1, c2 = st.columns(2)
    rows = t("pe.rows_ends", n=f"{CHECKED_ROWS:,}") if cfg.max_len > 2 * CHECKED_ROWS else t("pe.rows_all")
    c1.metric(f"max |PE[p+{k}] − M_{k} PE[p]|, p ∈ {rows}", "n/a" if np.isnan(shift_err) else f"{shift_err:.2e}")
    c2.metric("max |exp(−2i·ln(base)/d) − base^(−2i/d)|", f"{div_err:.2e}")


chapter = st.segmented_control(
    t("pe.chapter"),
    CHAPTERS,
    format_func=lambda c: t(f"pe.ch_{c}"),
    key="pe_chapter",
    required=True,
    label_visibility="collapsed",
)

# --- 1. The table -----------------------------------------------------------------------------------
if chapter == "table":
    st.header(t("pe.h_table"))
    table_section(cfg)
    explain(
        r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{base^{2i/d_{model}}}\right),\quad "
        r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{base^{2i/d_{model}}}\right)",
        t("pe.table_notice"),
    )
    show_code(pe.inverse_frequencies, pe.sinusoidal_rows)

# --- 2. Curves and wavelengths ----------------------------------------------------------------------
elif chapter == "wavelengths":
    st.header(t("pe.h_wavelengths"))
    curves_section(cfg)
    explain(
        r"PE_{(pos,\,2i)} = \sin(\omega_i \cdot pos),\quad PE_{(pos,\,2i+1)} = \cos(\omega_i \cdot pos),\quad "
        r"\omega_i = base^{-2i/d_{model}}",
        t("pe.curves_caption"),
    )
    show_code(pe.pe_columns, pe.inverse_frequencies)
    wavelength_section(cfg)
    show_code(pe.inverse_frequencies, pe.wavelengths)

# --- 3. Position similarity -------------------------------------------------------------------------
elif chapter == "similarity":
    st.header(t("pe.h_similarity"))
    similarity_section(cfg)
    explain(r"PE_m \cdot PE_n = \sum_i \cos\big(\omega_i (m - n)\big)", t("pe.sim_notice"))
    show_code(pe.position_similarity, pe.dot_by_offset)

# --- 4. Checks --------------------------------------------------------------------------------------
elif chapter == "checks":
    st.header(t("pe.h_checks"))
    checks_section(cfg)
    explain(
        r"\begin{pmatrix}\sin\omega(p+k)\\ \cos\omega(p+k)\end{pmatrix} = "
        r"\begin{pmatrix}\cos\omega k & \sin\omega k\\ -\sin\omega k & \cos\omega k\end{pmatrix}"
        r"\begin{pmatrix}\sin\omega p\\ \cos\omega p\end{pmatrix}",
        t("pe.checks_notice"),
    )
    show_code(pe.apply_shift, pe.shift_operator, pe.div_term_difference)

# --- 5. In a model ----------------------------------------------------------------------------------
elif chapter == "model":
    st.header(t("pe.h_model"))
    st.markdown(t("pe.model"))
    show_code(pe.SinusoidalPositionalEncoding)
    if over := cfg.over_budget():
        st.warning(t("pe.over_budget", problem=problem(over)))
    else:
        st.download_button(
            t("pe.download_table"),
            lambda: npy_bytes(
                pe.sinusoidal_encoding(cfg.max_len, cfg.d_model, cfg.base, layout=cfg.layout, device=device())
            ),
            key="pe_download",
            file_name=f"pe_{cfg.max_len}x{cfg.d_model}_{cfg.layout}.npy",
            on_click="ignore",
        )

# --- Try this ---------------------------------------------------------------------------------------
else:
    try_this("pe")

st.caption(t("pe.computed_on", device=device().type))
