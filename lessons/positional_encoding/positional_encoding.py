"""Positional encoding: the sinusoidal table, its wavelengths, and why it encodes relative position."""

import functools

import numpy as np
import streamlit as st

from core import claims
from core import positional as pe
from core.positional import PEConfig
from figures import positional as fig
from figures.rotary import ab_figure
from lessons.positional_encoding.settings import (
    BASE,
    CURVES_WINDOW,
    PRESETS,
    SETTINGS,
    SIMILARITY_WINDOW,
    TABLE_WINDOW,
    WindowConfig,
)
from lessons.positional_encoding.tables import (
    CHECKED_ROWS,
    checks,
    difference,
    fit_dim_span,
    offset_curves,
    place,
    similarity,
    table_columns,
    table_window,
    table_window_on,
    window_link,
)
from ui import live_chart
from ui.cache import cached
from ui.compare import pin_ui, settings_table
from ui.device import device
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import problem, t
from ui.parse import parse_indices, parse_number
from ui.presenter import presented
from ui.presets import take_pick
from ui.tables import downloads, npy_bytes

WINDOWS = (TABLE_WINDOW, CURVES_WINDOW, SIMILARITY_WINDOW)

st.title(t("pe.title"))
st.markdown(t("pe.intro"))


# --- Settings ---------------------------------------------------------------------------------------------------------
# Declared in lessons/positional_encoding/settings.py; drawn here. A preset sets the page's pe_<name> widgets and moves
# every window back to its first row and column; a change of any setting it sets makes it "custom" again.
def apply_preset() -> None:
    """The chosen preset's values into its widgets, and every window back to its first row and column."""
    for name, value in PRESETS[st.session_state.pe_preset].items():
        st.session_state[f"pe_{name}"] = value
    for window in WINDOWS:
        for start in window.keys[1::2]:  # rows shown, first row[, columns shown, first column]
            st.session_state[start] = 0


def mark_custom() -> None:
    st.session_state.pe_preset = "custom"


def pick_base() -> None:
    take_pick("pe_base_pick", "pe_base")
    mark_custom()


def settings_ui() -> PEConfig:
    """The settings' widgets, and the PEConfig they make (the last valid one, after a message, when it refuses them)."""
    SETTINGS["pe_preset"].draw(on_change=apply_preset)
    c1, c2, c3, c4 = st.columns([1, 1, 1.4, 1.2])
    d_model = SETTINGS["pe_d_model"].draw(c1, on_change=mark_custom)
    max_len = SETTINGS["pe_max_len"].draw(c2, on_change=mark_custom)
    base_text = SETTINGS["pe_base"].draw(c3, on_change=mark_custom)
    # in a column the pills would stay on one row and scroll (wrap): presenter mode cut off 500000
    SETTINGS["pe_base_pick"].draw(c3, wrap=True, on_change=pick_base, label_visibility="collapsed")
    layout = SETTINGS["pe_layout"].draw(c4, on_change=mark_custom)
    try:
        cfg = PEConfig(int(d_model), int(max_len), parse_number(base_text, "base", BASE), layout)
        st.session_state.pe_last_valid = cfg
    except ValueError as err:
        cfg = st.session_state.get("pe_last_valid", PEConfig())
        st.error(t("pe.kept", problem=problem(err), d_model=cfg.d_model, max_len=cfg.max_len, base=f"{cfg.base:g}"))
    if cfg.d_model == 1:
        st.warning(t("pe.d_model_1"))
    elif cfg.d_model % 2:
        st.info(t("pe.d_model_odd", d_model=cfg.d_model, n_sin=cfg.n_sin, n_cos=cfg.d_model // 2))
    return cfg


# The settings change the chapter shown and nothing above it, so they and the chapter are one fragment: a move reruns
# that part alone, not app.py, the title and the introduction. The sections with controls of their own are fragments
# inside it: those controls rerun their section alone.
@st.fragment
def lesson() -> None:
    cfg = settings_ui()  # a preset, d_model, max_len, base, layout

    # Pinning A (ui.compare) keeps these settings as A in the link's pe_a; the settings above are then B, and the
    # table and wavelength chapters show A against B.
    a = pin_ui(SETTINGS["pe_a"].key, cfg)
    if a is not None:
        settings_table(a, cfg)

    # The windows' sliders are the chart's own (ui.live_chart moves them in the browser), not widgets that Streamlit
    # binds to the link: their values go into the link by hand, read when the session opens the page and on Back or
    # Forward.
    table = table_window_on(TABLE_WINDOW, cfg.d_model)
    fit_dim_span(table, cfg.d_model)
    for window in (table, CURVES_WINDOW, SIMILARITY_WINDOW):
        window_link(window)

    # The chapters' names are translated, so the chapter is kept in the link by hand (?pe_chapter=similarity).
    chapter = SETTINGS["pe_chapter"].draw(required=True, label_visibility="collapsed")
    if chapter == "table":
        table_chapter(cfg, a, table)
    elif chapter == "wavelengths":
        wavelengths_chapter(cfg, a)
    elif chapter == "similarity":
        similarity_chapter(cfg)
    elif chapter == "checks":
        checks_chapter(cfg)
    elif chapter == "model":
        model_chapter(cfg)
    else:
        try_this("pe")


# --- 1. The table -----------------------------------------------------------------------------------------------------
def table_chapter(cfg: PEConfig, a: PEConfig | None, window: WindowConfig) -> None:
    st.header(t("pe.h_table"))
    table_section(cfg, a, window)
    explain(
        r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{base^{2i/d_{model}}}\right),\quad "
        r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{base^{2i/d_{model}}}\right)",
        t("pe.table_notice"),
    )
    show_code(pe.inverse_frequencies, pe.sinusoidal_rows)


# The window charts' figures, without their values (the browser puts the window's in: into the heatmap's z, or each
# line's y), each built once per server for what it shows (ui.cache).
@cached(max_entries=64)
def heatmap_text(axes: tuple[str, str]) -> str:
    return live_chart.figure_json(fig.pe_heatmap_figure(np.zeros((0, 0), np.float32), 0, 0, axis_titles=axes))


@cached(max_entries=64)
def curves_text(dims: tuple[int, ...], titles: tuple[str, str, str]) -> str:
    return live_chart.figure_json(fig.pe_curves_figure(np.zeros((0, len(dims)), np.float32), 0, list(dims), titles))


@cached(max_entries=64)
def similarity_text(metric: str, titles: tuple[str, str, str]) -> str:
    return live_chart.figure_json(fig.similarity_figure(np.zeros((0, 0), np.float32), 0, metric, titles))


# Each section's controls and the charts they change are a fragment: a control there reruns and redraws that part
# alone. Formulas and code, which no slider changes, stay outside, so a rerun does not redraw them.
# The three window charts move their window in the browser, inside a block of the table they were sent (all of it,
# when small): their sliders redraw the chart as the thumb is dragged, and the fragment's rerun that follows brings
# the caption, download, offset chart and link up to date (benchmarks/rerun.py compares it with st.plotly_chart).
@st.fragment
def table_section(cfg: PEConfig, a: PEConfig | None, window: WindowConfig) -> None:
    axes = (t("pe.ax_dimension"), t("pe.ax_position"))
    placed = place(window, (cfg.max_len, cfg.d_model))
    b0, b1, bc0, bc1 = placed.block
    block = ((b0, bc0), table_window(cfg, b0, b1, bc0, bc1))
    live_chart.draw(heatmap_text(axes), placed.window, block, "pe_table_chart", window.keys)
    p0, p1, d0, d1 = placed.shown
    capped = p1 < min(p0 + st.session_state.pe_pos_span, cfg.max_len)  # a wide window shows fewer rows
    shown = (p1 - p0) * (d1 - d0)
    caption = t(
        "pe.table_caption", p0=p0, p1=p1 - 1, d0=d0, d1=d1 - 1, max_len=cfg.max_len, d_model=cfg.d_model, cells=shown
    )
    turns = [
        float(pe.wavelengths(cfg.d_model, cfg.base)[claims.column_pair(d, cfg.d_model, cfg.layout)])
        for d in (d0, d1 - 1)
    ]
    columns = t("pe.table_columns", d0=d0, d1=d1 - 1, w0=f"{turns[0]:,.1f}", w1=f"{turns[1]:,.1f}")
    st.caption(caption + (t("pe.table_capped", cols=d1 - d0, rows=p1 - p0) if capped else "") + columns)
    window_values = functools.partial(pe.pe_window, cfg, p0, p1, d0, d1, device=device())  # made when pressed
    downloads(f"pe_rows{p0}-{p1 - 1}_dims{d0}-{d1 - 1}", array=window_values, key="pe_window")
    if a is not None:
        ab_difference(a, cfg, placed.shown, axes)


def ab_difference(a: PEConfig, cfg: PEConfig, shown: tuple[int, int, int, int], axes: tuple[str, str]) -> None:
    """B - A over the same window, where both tables have it."""
    st.subheader(t("pe.ab_h_diff"))
    p0, p1, d0, d1 = shown
    diff = difference(a, cfg, p0, p1, d0, d1)
    if diff.size:
        titles = (t("pe.ab_diff_title"), *axes)
        st.plotly_chart(presented(fig.difference_figure(diff, p0, d0, titles)), key="pe_ab_diff_chart")
        p_last, d_last = p0 + diff.shape[0] - 1, d0 + diff.shape[1] - 1
        largest = f"{np.abs(diff).max():.3g}"
        st.caption(t("pe.ab_diff_caption", p0=p0, p1=p_last, d0=d0, d1=d_last, largest=largest))
    else:
        sizes = dict(a_len=a.max_len, a_d=a.d_model, b_len=cfg.max_len, b_d=cfg.d_model)
        st.info(t("pe.ab_diff_none", **sizes))


# --- 2. Curves and wavelengths ----------------------------------------------------------------------------------------
def wavelengths_chapter(cfg: PEConfig, a: PEConfig | None) -> None:
    st.header(t("pe.h_wavelengths"))
    curves_section(cfg)
    explain(
        r"PE_{(pos,\,2i)} = \sin(\omega_i \cdot pos),\quad PE_{(pos,\,2i+1)} = \cos(\omega_i \cdot pos),\quad "
        r"\omega_i = base^{-2i/d_{model}}",
        t(f"pe.curves_caption_{cfg.layout}", half=cfg.n_sin),
    )
    show_code(pe.pe_columns, pe.inverse_frequencies)
    wavelength_section(cfg, a)
    show_code(pe.inverse_frequencies, pe.wavelengths)


@st.fragment
def curves_section(cfg: PEConfig) -> None:
    c1, _ = st.columns([1, 2])
    dims, dropped = parse_indices(SETTINGS["pe_dims"].draw(c1), cfg.d_model, most=8)
    if dropped:
        st.warning(t("pe.dims_dropped", dropped=", ".join(dropped), last=cfg.d_model - 1))
    if dims:
        titles = (t("pe.curves_title"), t("pe.ax_position"), t("pe.ax_value"))
        placed = place(CURVES_WINDOW, (cfg.max_len, len(dims)))
        b0, b1, *_ = placed.block  # every chosen dimension
        block = ((b0, 0), table_columns(cfg, b0, b1, tuple(dims)))
        live_chart.draw(curves_text(tuple(dims), titles), placed.window, block, "pe_curves_chart", CURVES_WINDOW.keys)


def wavelength_section(cfg: PEConfig, a: PEConfig | None) -> None:
    lam = pe.wavelengths(cfg.d_model, cfg.base, device=device()).cpu().numpy()
    titles = (t("pe.wl_title", d_model=cfg.d_model), t("pe.wl_x"), t("pe.wl_y"))
    st.plotly_chart(
        presented(fig.wavelength_figure(lam, titles, (t("pe.wl_wavelength"), t("pe.wl_frequency")))), key="pe_wl_chart"
    )
    c1, c2 = st.columns(2)
    positions = [f"{n:,.0f}" if n >= 1000 else f"{n:.4g}" for n in (lam[0], lam[-1])]  # 54,410, not 5.441e+04
    c1.metric(t("pe.shortest"), positions[0])
    c2.metric(t("pe.longest", pair=len(lam) - 1), positions[1])
    explain(
        r"\lambda_i = \frac{2\pi}{\omega_i} = 2\pi \cdot base^{2i/d_{model}},\qquad "
        r"\lambda \in \left[2\pi,\; 2\pi \cdot base^{2(\lceil d/2 \rceil - 1)/d}\right]",
        t("pe.wl_notice"),
    )
    if a is not None:  # A's wavelengths dashed under B's
        st.subheader(t("pe.ab_wl_title"))
        wavelength, lam_a = t("pe.wl_wavelength"), pe.wavelengths(a.d_model, a.base, device=device()).cpu().numpy()
        curves = ({wavelength: lam_a}, {wavelength: lam}, t("pe.ab_wl_title"), t("pe.wl_x"), wavelength)
        st.plotly_chart(presented(ab_figure(*curves, log_y=True)), key="pe_ab_wl_chart")
        st.caption(t("pe.ab_wl_caption"))


# --- 3. Position similarity -------------------------------------------------------------------------------------------
def similarity_chapter(cfg: PEConfig) -> None:
    st.header(t("pe.h_similarity"))
    similarity_section(cfg)
    explain(
        r"PE_m \cdot PE_n = \sum_i \cos\big(\omega_i (m - n)\big)",
        t("pe.sim_notice_odd" if cfg.d_model % 2 else "pe.sim_notice"),
    )
    show_code(pe.position_similarity, pe.dot_by_offset)


# The offset chart's second reference is the similarity window's first position.
@st.fragment
def similarity_section(cfg: PEConfig) -> None:
    c1, _ = st.columns([1, 2])
    metric = SETTINGS["pe_sim_metric"].draw(c1, horizontal=True)
    position = t("pe.ax_position")
    titles = (t("pe.sim_title", metric=t(f"pe.metric_{metric}")), position + " m", position + " n")
    placed = place(SIMILARITY_WINDOW, (cfg.max_len, cfg.max_len))
    b0, b1, *_ = placed.block  # the same positions along both axes
    block = ((b0, b0), similarity(cfg, b0, b1, metric))
    live_chart.draw(similarity_text(metric, titles), placed.window, block, "pe_sim_chart", SIMILARITY_WINDOW.keys)
    p0 = placed.shown[0]
    refs = (0, p0) if p0 else (0, cfg.max_len // 2)
    k_max = min(st.session_state.pe_sim_span, cfg.max_len - 1 - max(refs))
    if k_max >= 1:
        titles = (t("pe.offset_title"), t("pe.offset_x"), "PE[n] · PE[n+k]")
        st.plotly_chart(
            presented(fig.offset_figure(offset_curves(cfg, refs, k_max), list(refs), titles)), key="pe_offset_chart"
        )


# --- 4. Checks --------------------------------------------------------------------------------------------------------
def checks_chapter(cfg: PEConfig) -> None:
    st.header(t("pe.h_checks"))
    checks_section(cfg)
    explain(
        r"\begin{pmatrix}\sin\omega(p+k)\\ \cos\omega(p+k)\end{pmatrix} = "
        r"\begin{pmatrix}\cos\omega k & \sin\omega k\\ -\sin\omega k & \cos\omega k\end{pmatrix}"
        r"\begin{pmatrix}\sin\omega p\\ \cos\omega p\end{pmatrix}",
        t("pe.checks_notice"),
    )
    show_code(pe.apply_shift, pe.shift_operator, pe.div_term_difference)


@st.fragment
def checks_section(cfg: PEConfig) -> None:
    k = int(SETTINGS["pe_shift_k"].draw())
    if not 0 <= k < cfg.max_len:
        fallback = min(1, cfg.max_len - 1)
        st.error(t("pe.k_range", last=cfg.max_len - 1, k=k, fallback=fallback))
        k = fallback
    shift_err, div_err = checks(cfg, k)
    c1, c2 = st.columns(2)
    rows = t("pe.rows_ends", n=f"{CHECKED_ROWS:,}") if cfg.max_len > 2 * CHECKED_ROWS else t("pe.rows_all")
    c1.metric(f"max |PE[p+{k}] − M_{k} PE[p]|, p ∈ {rows}", "n/a" if np.isnan(shift_err) else f"{shift_err:.2e}")
    c2.metric("max |exp(−2i·ln(base)/d) − base^(−2i/d)|", f"{div_err:.2e}")


# --- 5. In a model ----------------------------------------------------------------------------------------------------
def model_chapter(cfg: PEConfig) -> None:
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


lesson()
st.caption(t("pe.computed_on", device=device().type))
