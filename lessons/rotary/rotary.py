"""Rotary positions and long context: RoPE, the base, PI / NTK / YaRN / llama3 scaling, ALiBi."""

import math

import numpy as np
import streamlit as st

from core import claims, rotary
from core.rotary import RopeConfig
from lessons.rotary import charts
from lessons.rotary.settings import SETTINGS
from ui import live_chart
from ui.compare import pin_ui, settings_table
from ui.device import device
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import problem, t
from ui.link import to_link
from ui.pages import page_link
from ui.parse import parse_number
from ui.presets import take_pick

st.title(t("rp.title"))
st.markdown(t("rp.intro"))


# --- Settings ---------------------------------------------------------------------------------------------
# The settings change sections 1 to 3 alone, so those sections are a fragment (key ROPE): a move reruns that part
# alone (the browser writes the URL). head_dim and the base, the settings a learner moves most, are the fragment's
# own widgets, drawn into the first row; the scaling settings sit outside it, so that a move of the base does not
# redraw them, and a change of one of them reruns the fragment alone (st.rerun(ROPE) from its callback), which
# reads them from the session. With settings it cannot use, the fragment says why and shows none of its sections;
# ALiBi and the rest of the page do not use them, so they stay (a stop there would leave them out until the next
# full run). The number boxes have no bounds: a value core refuses gets core's message, which says what to change.
# Pinning A (ui.compare) keeps these settings as A in the link's rp_a; the widgets are then B.
ROPE = "rp_rope"
SCALING = dict(on_change=st.rerun, args=(ROPE,))


def method_changed() -> None:
    """The method into the link here (it is kept there by hand, shown translated): its rerun is the fragment's,
    which does not draw the method's box again."""
    method = SETTINGS["rp_method"]
    chosen = st.session_state[method.key]
    to_link(method.key, None if chosen == method.default else chosen)
    st.rerun(ROPE)


head_box, base_box, c3 = st.columns(3)
SETTINGS["rp_original"].draw(c3, **SCALING)
SETTINGS["rp_target"].draw(c3, **SCALING)
c0, c1, c2, c3 = st.columns(4)
SETTINGS["rp_method"].draw(c0, on_change=method_changed)
SETTINGS["rp_factor"].draw(c1, **SCALING)
SETTINGS["rp_low_freq"].draw(c2, **SCALING)
SETTINGS["rp_high_freq"].draw(c3, **SCALING)


SAME_SCORE = 0.05  # two mean scores within 5% of each other are "about the same"


def distance_said(same: np.ndarray) -> str:
    """The q = k curve in words: its mean score over the nearer half of the distances against the farther half."""
    mid = len(same) // 2
    near, far = claims.region_means(same.tolist(), mid)
    tolerance = max(SAME_SCORE * max(abs(near), abs(far)), 1e-12)
    direction = claims.trend({0: near, 1: far}, tolerance).direction
    values = dict(near=f"{near:.3g}", far=f"{far:.3g}", mid=mid - 1, start=mid, end=len(same) - 1)
    return t(f"rp.distance_{direction}", **values)


def rope_settings(head_box, base_box) -> tuple[RopeConfig, RopeConfig | None] | None:
    """The RopeConfig B the settings make and A when pinned, or None, after core's message, when it refuses them."""
    head_dim = int(SETTINGS["rp_head_dim"].draw(head_box))
    base_text = SETTINGS["rp_base"].draw(base_box)
    SETTINGS["rp_base_pick"].draw(
        base_box,
        wrap=True,  # in a column they would stay on one row and scroll: presenter mode cut off 500000
        on_change=take_pick,
        args=("rp_base_pick", "rp_base"),
        label_visibility="collapsed",
    )
    s = st.session_state
    method, factor, low_freq, high_freq = s.rp_method, s.rp_factor, s.rp_low_freq, s.rp_high_freq
    original, target = int(s.rp_original), int(s.rp_target)
    try:
        base = parse_number(base_text, "base", SETTINGS["rp_base"].default)
        cfg = RopeConfig(head_dim, base, method, original, target, factor, low_freq, high_freq)
    except ValueError as err:
        st.error(t("rp.invalid", problem=problem(err)))
        return None
    a = pin_ui(SETTINGS["rp_a"].key, cfg)  # A, when pinned and not B
    if a is not None:
        settings_table(a, cfg)
    return cfg, a


@st.fragment(key=ROPE)
def rope_sections(head_box, base_box) -> None:
    if (configs := rope_settings(head_box, base_box)) is None:
        return
    cfg, a = configs
    # Each figure's text is built by lessons/rotary/charts.py, once per server for what it shows (the settings it is a
    # function of, and the language), so a move back to a value seen before sends its text alone.
    pair_chapter(cfg)
    scaling_chapter(cfg, a)
    distance_chapter(cfg, a)


# --- 1. One pair, rotating ----------------------------------------------------------------------------------------
def pair_chapter(cfg: RopeConfig) -> None:
    st.header(t("rp.h_pair"))
    own = cfg.inv_freq(device=device())  # (head_dim // 2,) under the chosen scaling
    c1, c2 = st.columns(2)
    # a bound slider's default must lie inside its range, or moving it back inside (keep_inside) does not hold
    pair_setting = SETTINGS["rp_pair"]
    start = min(pair_setting.default, cfg.head_dim // 2 - 1)
    pair = pair_setting.draw_inside(c1, total=cfg.head_dim // 2, span=1, value=start)
    count = SETTINGS["rp_positions"].draw(c2)
    theta = own[pair].item()
    live_chart.chart(charts.rotation_chart(theta, pair, count), "rp_rotation_chart")
    turn = 2 * math.pi / theta  # finite: RopeConfig refuses wavelengths past rotary.MAX_WAVELENGTH
    turns = f"{turn:,.1f}" if turn < 1e9 else f"{turn:.3g}"
    st.caption(t("rp.theta_caption", pair=pair, theta=f"{theta:.3g}", turn=turns))
    if (turned := math.degrees((count - 1) * theta)) < 1:  # the points overlap on one dot
        st.info(t("rp.pair_still", pair=pair, degrees=f"{turned:.2g}", count=count))
    explain(
        r"\begin{pmatrix} q'_i \\ q'_{i+d/2} \end{pmatrix} = \begin{pmatrix}\cos m\theta_i & -\sin m\theta_i\\ "
        r"\sin m\theta_i & \cos m\theta_i\end{pmatrix} \begin{pmatrix} q_i \\ q_{i+d/2} \end{pmatrix},\quad "
        r"\theta_i = base^{-2i/d}",
        t("rp.pair_notice"),
    )
    show_code(rotary.apply_rope)


# --- 2. Context extension -----------------------------------------------------------------------------------------
def scaling_chapter(cfg: RopeConfig, a: RopeConfig | None) -> None:
    st.header(t("rp.h_scaling"))
    live_chart.chart(charts.wavelengths_chart(cfg), "rp_wavelength_chart")
    yarn_scale = rotary.attention_scaling(cfg.scaling("yarn"))
    factor, target = f"{cfg.factor:g}", f"{cfg.target:,}"
    st.caption(t("rp.scaling_caption", factor=factor, target=target, yarn=f"{yarn_scale:.3f}"))
    explain(
        r"\theta_i' = \theta_i / s \;\text{(linear)},\qquad b' = b\,\big(\tfrac{sL'}{L} - (s-1)\big)^{d/(d-2)}"
        r"\;\text{(NTK)},\qquad \theta_i' = (1-\gamma_i)\,\tfrac{\theta_i}{s} + \gamma_i\,\theta_i \;\text{(YaRN, llama3)}",
        t("rp.scaling_notice"),
    )
    show_code(rotary.rope_inv_freq)
    if a is not None:
        st.subheader(t("rp.h_ab"))
        st.caption(t("rp.ab_intro"))
        live_chart.chart(charts.ab_wavelengths_chart(a, cfg), "rp_ab_wavelength_chart")
        if a.head_dim != cfg.head_dim:  # rotary.wavelength_ratio has no ratio pair by pair
            st.info(t("rp.ab_heads_differ", a=a.head_dim, b=cfg.head_dim))
        else:
            live_chart.chart(charts.ab_ratio_chart(a, cfg), "rp_ab_ratio_chart")
            st.caption(t("rp.ab_ratio_notice"))
        show_code(rotary.wavelength_ratio)


# --- 3. Attention and distance ------------------------------------------------------------------------------------
def distance_chapter(cfg: RopeConfig, a: RopeConfig | None) -> None:
    st.header(t("rp.h_distance"))
    c1, c2 = st.columns(2)
    distance = SETTINGS["rp_distance"].draw(c1)
    seed = int(SETTINGS["rp_seed"].draw(c2))
    live_chart.chart(charts.scores_chart(cfg, a, distance, seed), "rp_scores_chart")
    b_head, a_head = (cfg.head_dim, cfg.base), None if a is None else (a.head_dim, a.base)  # all the bound uses
    live_chart.chart(charts.decay_chart(b_head, a_head, distance), "rp_decay_chart")
    explain(
        r"q_m^\top k_n = \mathrm{Re}\Big[\sum_j h_j\, e^{i(m-n)\theta_j}\Big],\qquad "
        r"\big|\ldots\big| \le \max_j |h_{j+1} - h_j| \sum_j |S_j|",
        distance_said(charts.score_lines(cfg, distance, seed)[0]) + t("rp.distance_notice"),
    )
    show_code(rotary.score_curves, rotary.scores_by_distance, rotary.long_term_decay)


rope_sections(head_box, base_box)

# --- 4. ALiBi -------------------------------------------------------------------------------------------
st.header(t("rp.h_alibi"))


@st.fragment
def alibi_section() -> None:
    c1, c2, c3 = st.columns(3)
    heads = int(SETTINGS["rp_heads"].draw(c1))
    try:
        slopes = rotary.alibi_slopes(heads)
    except ValueError as err:
        st.error(t("rp.heads_invalid", problem=problem(err)))
    else:
        head = SETTINGS["rp_head"].draw_inside(c2, total=heads, span=1)
        length = SETTINGS["rp_alibi_len"].draw(c3)
        live_chart.chart(charts.alibi_chart(slopes[head], length), "rp_alibi_chart")
        st.caption(t("rp.slopes", slopes=", ".join(f"{s:.4g}" for s in slopes)))
        explain(
            r"\mathrm{score}(i, j) = q_i^\top k_j - m_h\,(i - j),\qquad m_h = 2^{-8h/n}",
            t("rp.alibi_notice"),
        )
        show_code(rotary.alibi_slopes)


alibi_section()

# --- 5. The seeds' question -----------------------------------------------------------------------------
st.header(t("rp.h_past"))
st.markdown(t("rp.past"))
page_link("lv", t("rp.past_link"))

# --- Try this ---------------------------------------------------------------------------------------
try_this("rp")
