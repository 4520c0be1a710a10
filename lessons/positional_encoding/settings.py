"""The positional-encoding page's settings, declared once (`SETTINGS`): a preset from a well-known explanation,
d_model, max_len, the base and the layout (the PEConfig they make), the A pinned to compare with, the chapter, the
windows on the table, the curves and the similarity, the dimensions plotted, the similarity's metric and the shift
checked. A value PEConfig refuses gets its message, and the page keeps the last valid settings. The table window's
choices of columns follow d_model (table_window_on)."""

from __future__ import annotations

import dataclasses

import streamlit as st

from core.positional import LAYOUTS, PEConfig
from figures.positional import HEATMAP_MAX_CELLS
from ui.i18n import problem, t
from ui.parse import parse_number
from ui.presets import take_pick
from ui.settings import Setting, Settings
from ui.window import WindowConfig

BASE = f"{PEConfig.base:g}"  # the text box's default, "10000"
# The lesson's chapters, shown one at a time: after a fragment runs, Streamlit redraws every element on the page,
# so the delay after a slider move grows with the page's length (benchmarks/rerun.py).
CHAPTERS = ("table", "wavelengths", "similarity", "checks", "model", "exercises")
TABLE_WINDOW = WindowConfig(
    keys=("pe_pos_span", "pe_pos_start", "pe_dim_span", "pe_dim_start"),
    spans=((10, 20, 50, 100, 200, 500, 1000), (8, 16, 32, 64, 128, 256, 512, 1024)),
    defaults=(100, 512),
    max_cells=HEATMAP_MAX_CELLS,
)  # its choices of dimensions shown, cut at the table's width: table_window_on
CURVES_WINDOW = WindowConfig(
    keys=("pe_curve_span", "pe_curve_start"),
    spans=((20, 50, 100, 200, 500, 1000, 2000),),
    defaults=(100,),
    lines=True,
)
SIMILARITY_WINDOW = WindowConfig(
    keys=("pe_sim_span", "pe_sim_start"), spans=((10, 20, 50, 100, 200, 500),), defaults=(100,), tied=True
)
METRICS = ("dot", "cosine")
PRESETS = {  # shown as t("pe.preset_<name>"); each sets the page's pe_<name> widgets
    "custom": {},
    "paper": dict(d_model=512, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7"),
    "annotated": dict(d_model=20, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7"),
    "kazemnejad": dict(d_model=128, max_len=50, base="10000", layout="interleaved", dims="0, 1, 10, 11"),
    "illustrated": dict(d_model=512, max_len=20, base="10000", layout="concatenated", dims="0, 255, 256, 511"),
    "explainer": dict(d_model=768, max_len=40, base="10000", layout="interleaved", dims="0, 1, 2, 3"),
}

# Every setting of the page, in the order it draws them. The sizes' boxes have no min or max: PEConfig checks them and
# the page says what to change (and keeps the last valid). Streamlit would write a bound radio's or chapter's label,
# in the reader's language, into the link: the layouts, chapters and metrics are shown translated and kept in the
# link by hand, as core names them (`translated`: ?pe_layout=concatenated, as old links say).
SETTINGS = Settings(
    "pe",
    (
        # the preset is not in the link: the settings it sets are
        Setting("pe_preset", "selectbox", "custom", "pe.preset", options=tuple(PRESETS), option_text="pe.preset_{}",
                in_link=False),
        Setting("pe_d_model", "number_input", PEConfig.d_model, "d_model", step=1),
        Setting("pe_max_len", "number_input", PEConfig.max_len, "pe.max_len", step=1),
        Setting("pe_base", "text_input", BASE, "base", help="pe.base_help"),
        Setting("pe_base_pick", "pills", None, "pe.common_bases", options=("100", "10000", "500000"), in_link=False),
        Setting("pe_layout", "radio", PEConfig.layout, "pe.layout", options=LAYOUTS, option_text="pe.layout_{}",
                translated=True, help="pe.layout_help"),
        Setting("pe_a", "pinned", None, "ui.ab_pin"),  # ui.compare.pin_ui: A, these settings pinned
        *TABLE_WINDOW.settings(("pe.pos_span", "pe.pos_start", "pe.dim_span", "pe.dim_start")),
        *CURVES_WINDOW.settings(("pe.curve_span", "pe.from_position")),
        *SIMILARITY_WINDOW.settings(("pe.sim_span", "pe.from_position")),
        Setting("pe_chapter", "segmented_control", CHAPTERS[0], "pe.chapter", options=CHAPTERS,
                option_text="pe.ch_{}", translated=True),
        Setting("pe_dims", "text_input", "4, 5, 6, 7", "pe.dims"),  # the columns the curves plot by default
        Setting("pe_sim_metric", "radio", METRICS[0], "pe.similarity", options=METRICS, option_text="pe.metric_{}",
                translated=True),
        Setting("pe_shift_k", "number_input", 5, "pe.shift_k", step=1),
    ),
)  # fmt: skip


def apply_preset(windows: tuple[WindowConfig, ...]) -> None:
    """The chosen preset's values into its widgets, and every window back to its first row and column."""
    for name, value in PRESETS[st.session_state.pe_preset].items():
        st.session_state[f"pe_{name}"] = value
    for window in windows:
        for start in window.keys[1::2]:  # rows shown, first row[, columns shown, first column]
            st.session_state[start] = 0


def mark_custom() -> None:
    st.session_state.pe_preset = "custom"


def pick_base() -> None:
    take_pick("pe_base_pick", "pe_base")
    mark_custom()


def pe_settings_ui(windows: tuple[WindowConfig, ...]) -> PEConfig:
    """The settings' widgets, and the PEConfig they make (the last valid one, after a message, when it refuses them).

    Args:
        windows: the page's windows on the table, which a preset moves back to the table's start.
    """
    SETTINGS["pe_preset"].draw(on_change=apply_preset, args=(windows,))
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


def table_window_on(window: WindowConfig, d_model: int) -> WindowConfig:
    """The table's window (rows, first row, columns, first column) on a table d_model wide: its choices of columns
    shown stop at d_model (the whole width, when it is no more than the largest choice), and its default is the
    whole width up to the window's own default."""
    most = window.spans[1]
    columns = tuple(s for s in most if s < d_model) + ((d_model,) if d_model <= most[-1] else ())
    default = min(window.defaults[1], columns[-1])
    return dataclasses.replace(window, spans=(window.spans[0], columns), defaults=(window.defaults[0], default))


def fit_dim_span(window: WindowConfig, d_model: int) -> None:
    """Keep the dimensions shown among the choices d_model leaves (table_window_on): a window that showed the whole
    of the last table shows this one's default; one wider than this table shows all of it, with a notice."""
    key, whole = window.keys[2], window.spans[1][-1]
    asked, last_whole = st.session_state.get(key), st.session_state.get("pe_dim_whole")
    st.session_state["pe_dim_whole"] = whole
    if asked is None:
        return
    if asked == last_whole != whole:  # "all of it" follows d_model
        st.session_state[key] = window.default(key)
        return
    if asked in window.spans[1]:
        return
    st.session_state[key] = max((s for s in window.spans[1] if s <= asked), default=whole)
    st.info(t("pe.dim_span_fitted", label=t("pe.dim_span"), asked=asked, d_model=d_model, now=st.session_state[key]))
