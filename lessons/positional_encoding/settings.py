"""The positional-encoding page's settings: a preset from a well-known explanation, d_model, max_len, the base and
the layout, each bound to the link, and the PEConfig they make. A value PEConfig refuses gets its message, and the
page keeps the last valid settings. The table window's choices of columns follow d_model (table_window_on)."""

from __future__ import annotations

import dataclasses

import streamlit as st

from core.positional import LAYOUTS, PEConfig
from ui.i18n import problem, t
from ui.link import IN_LINK, translated_choice
from ui.parse import parse_number
from ui.presets import take_pick
from ui.window import WindowConfig

BASE = f"{PEConfig.base:g}"  # the text box's default, "10000"
PRESETS = {  # shown as t("pe.preset_<name>"); each sets the page's pe_<name> widgets
    "custom": {},
    "paper": dict(d_model=512, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7"),
    "annotated": dict(d_model=20, max_len=100, base="10000", layout="interleaved", dims="4, 5, 6, 7"),
    "kazemnejad": dict(d_model=128, max_len=50, base="10000", layout="interleaved", dims="0, 1, 10, 11"),
    "illustrated": dict(d_model=512, max_len=20, base="10000", layout="concatenated", dims="0, 255, 256, 511"),
    "explainer": dict(d_model=768, max_len=40, base="10000", layout="interleaved", dims="0, 1, 2, 3"),
}


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
    # The preset is not in the link: the settings it sets are.
    st.selectbox(
        t("pe.preset"),
        list(PRESETS),
        format_func=lambda p: t(f"pe.preset_{p}"),
        key="pe_preset",
        on_change=apply_preset,
        args=(windows,),
        persist_state="session",
    )
    c1, c2, c3, c4 = st.columns([1, 1, 1.4, 1.2])
    # No min or max on the sizes: PEConfig checks them and the page says what to change (and keeps the last valid).
    d_model = c1.number_input(
        "d_model", value=PEConfig.d_model, step=1, key="pe_d_model", on_change=mark_custom, **IN_LINK
    )
    max_len = c2.number_input(
        t("pe.max_len"), value=PEConfig.max_len, step=1, key="pe_max_len", on_change=mark_custom, **IN_LINK
    )
    base_text = c3.text_input(
        "base", value=BASE, key="pe_base", on_change=mark_custom, help=t("pe.base_help"), **IN_LINK
    )
    c3.pills(
        t("pe.common_bases"),
        ["100", "10000", "500000"],
        key="pe_base_pick",
        wrap=True,  # in a column they would stay on one row and scroll: presenter mode cut off 500000
        on_change=pick_base,
        label_visibility="collapsed",
    )
    # Streamlit would write a bound radio's label, in the reader's language, into the link: the layouts are shown
    # translated and kept in the link by hand, as core names them (?pe_layout=concatenated, as old links say).
    assert LAYOUTS[0] == PEConfig.layout  # translated_choice's default is the first option
    layout = translated_choice(
        c4.radio,
        t("pe.layout"),
        LAYOUTS,
        key="pe_layout",
        format_func=lambda v: t(f"pe.layout_{v}"),
        on_change=mark_custom,
        help=t("pe.layout_help"),
    )
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
