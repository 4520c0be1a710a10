"""Rotary positions and long context: RoPE, the base, PI / NTK / YaRN / llama3 scaling, ALiBi."""

import math

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from core import claims, rotary
from core.rotary import SCALINGS, RopeConfig
from figures.rotary import ab_figure, alibi_figure, rotation_figure
from figures.training import lines_figure
from ui import live_chart
from ui.compare import pin_ui, settings_table
from ui.device import device
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import problem, t
from ui.link import IN_LINK
from ui.pages import page_link
from ui.parse import parse_number
from ui.presets import take_pick
from ui.window import window_start

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
# Pinning A (ui.compare) keeps these settings as A in the link's "rp_a"; the widgets are then B.
ROPE = "rp_rope"
SCALING = dict(on_change=st.rerun, args=(ROPE,), **IN_LINK)
head_box, base_box, c3 = st.columns(3)
c3.number_input(t("rp.original"), value=RopeConfig.original, step=1024, key="rp_original", **SCALING)
c3.number_input(t("rp.target"), value=RopeConfig.target, step=1024, key="rp_target", **SCALING)
c0, c1, c2, c3 = st.columns(4)
# the options are Hugging Face's rope_type codes, the same in every language: a bound selectbox writes its text
c0.selectbox(
    t("rp.method"),
    SCALINGS,
    index=SCALINGS.index(RopeConfig.method),
    key="rp_method",
    help=t("rp.method_help"),
    **SCALING,
)
c1.number_input(t("rp.factor"), value=RopeConfig.factor, step=0.5, key="rp_factor", help=t("rp.factor_help"), **SCALING)
c2.number_input("llama3 low_freq_factor", value=RopeConfig.low_freq, step=0.5, key="rp_low_freq", **SCALING)
c3.number_input("llama3 high_freq_factor", value=RopeConfig.high_freq, step=0.5, key="rp_high_freq", **SCALING)


SAME_SCORE = 0.05  # two mean scores within 5% of each other are "about the same"


def distance_said(same: np.ndarray) -> str:
    """The q = k curve in words: its mean score over the nearer half of the distances against the farther half."""
    mid = len(same) // 2
    near, far = claims.region_means(same.tolist(), mid)
    tolerance = max(SAME_SCORE * max(abs(near), abs(far)), 1e-12)
    direction = claims.trend({0: near, 1: far}, tolerance).direction
    values = dict(near=f"{near:.3g}", far=f"{far:.3g}", mid=mid - 1, start=mid, end=len(same) - 1)
    return t(f"rp.distance_{direction}", **values)


@st.fragment(key=ROPE)
def rope_sections(head_box, base_box) -> None:
    head_dim = int(head_box.number_input("head_dim", value=RopeConfig.head_dim, step=2, key="rp_head_dim", **IN_LINK))
    base_text = base_box.text_input(
        "base", value=f"{RopeConfig.base:g}", key="rp_base", help=t("rp.base_help"), **IN_LINK
    )
    base_box.pills(
        t("pe.common_bases"),
        ["10000", "500000"],
        key="rp_base_pick",
        wrap=True,  # in a column they would stay on one row and scroll: presenter mode cut off 500000
        on_change=take_pick,
        args=("rp_base_pick", "rp_base"),
        label_visibility="collapsed",
    )
    s = st.session_state
    method, factor, low_freq, high_freq = s.rp_method, s.rp_factor, s.rp_low_freq, s.rp_high_freq
    original, target = int(s.rp_original), int(s.rp_target)
    try:
        base = parse_number(base_text, "base", "10000")
        cfg = RopeConfig(head_dim, base, method, original, target, factor, low_freq, high_freq)
    except ValueError as err:
        st.error(t("rp.invalid", problem=problem(err)))
        return
    own = cfg.inv_freq(device=device())  # (head_dim // 2,) under the chosen scaling
    a = pin_ui("rp_a", cfg)  # A, when pinned and not B
    if a is not None:
        settings_table(a, cfg)

    # --- 1. One pair, rotating ----------------------------------------------------------------------------
    # Each figure is drawn by ui.live_chart.cached_chart: built and serialised once per server for what it shows
    # (the settings it depends on, the language), so a move back to a value seen before sends its text alone.
    st.header(t("rp.h_pair"))
    c1, c2 = st.columns(2)
    # a bound slider's default must lie inside its range, or moving it back inside (keep_inside) does not hold
    start = dict(value=min(8, head_dim // 2 - 1), **IN_LINK)
    pair = window_start("rp_pair", t("rp.pair"), total=head_dim // 2, span=1, where=c1, **start)
    count = c2.slider(t("rp.positions"), 4, 256, 64, key="rp_positions", **IN_LINK)
    theta = own[pair].item()
    live_chart.cached_chart(
        "rp_rotation_chart",
        lambda: rotation_figure(np.arange(count) * theta, t("rp.rotation_title", pair=pair), t("rp.position_m")),
        (theta, pair, count),
    )
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

    # --- 2. Context extension -------------------------------------------------------------------------------
    st.header(t("rp.h_scaling"))

    def wavelengths_figure():
        """The five methods' wavelengths, pair by pair, with the original and target lengths."""
        names = (t("rp.none"), "linear (PI)", "dynamic NTK", "YaRN", "llama3")  # rotary.SCALINGS, in order
        curves = {
            n: (2 * math.pi / cfg.inv_freq(code, device=device())).cpu().numpy()
            for n, code in zip(names, SCALINGS, strict=True)
        }
        lines = {t("rp.original_line", n=f"{original:,}"): original, t("rp.target_line", n=f"{target:,}"): target}
        return lines_figure(curves, t("rp.wl_title"), t("rp.ax_pair"), t("rp.ax_wavelength"), log_y=True, hlines=lines)

    live_chart.cached_chart("rp_wavelength_chart", wavelengths_figure, (cfg,))
    yarn_scale = rotary.attention_scaling(cfg.scaling("yarn"))
    st.caption(t("rp.scaling_caption", factor=f"{factor:g}", target=f"{target:,}", yarn=f"{yarn_scale:.3f}"))
    explain(
        r"\theta_i' = \theta_i / s \;\text{(linear)},\qquad b' = b\,\big(\tfrac{sL'}{L} - (s-1)\big)^{d/(d-2)}"
        r"\;\text{(NTK)},\qquad \theta_i' = (1-\gamma_i)\,\tfrac{\theta_i}{s} + \gamma_i\,\theta_i \;\text{(YaRN, llama3)}",
        t("rp.scaling_notice"),
    )
    show_code(rotary.rope_inv_freq)
    if a is not None:
        st.subheader(t("rp.h_ab"))
        st.caption(t("rp.ab_intro"))
        wavelength = t("rp.ax_wavelength")
        live_chart.cached_chart(
            "rp_ab_wavelength_chart",
            lambda: ab_figure(
                {wavelength: rotary.wavelengths(a, device=device()).cpu().numpy()},
                {wavelength: rotary.wavelengths(cfg, device=device()).cpu().numpy()},
                t("rp.ab_wl_title"),
                t("rp.ax_pair"),
                wavelength,
                log_y=True,
            ),
            (a, cfg),
        )
        if a.head_dim != cfg.head_dim:  # rotary.wavelength_ratio has no ratio pair by pair
            st.info(t("rp.ab_heads_differ", a=a.head_dim, b=cfg.head_dim))
        else:
            live_chart.cached_chart(
                "rp_ab_ratio_chart",
                lambda: lines_figure(
                    {t("rp.ab_ratio"): rotary.wavelength_ratio(a, cfg, device=device()).cpu().numpy()},
                    t("rp.ab_ratio_title"),
                    t("rp.ax_pair"),
                    t("rp.ab_ratio"),
                    log_y=True,
                    hlines={t("rp.ab_equal"): 1.0},
                ),
                (a, cfg),
            )
            st.caption(t("rp.ab_ratio_notice"))
        show_code(rotary.wavelength_ratio)

    # --- 3. Attention and distance --------------------------------------------------------------------------
    st.header(t("rp.h_distance"))
    c1, c2 = st.columns(2)
    distance = c1.slider(t("rp.distance"), 16, 4096, 512, key="rp_distance", **IN_LINK)
    seed = int(c2.number_input(t("rp.seed"), value=0, step=1, key="rp_seed", **IN_LINK))

    score_axes = (t("rp.score_title"), t("rp.ax_distance") + " m − n", t("rp.ax_score"))
    decay_axes = (t("rp.decay_title"), t("rp.ax_distance"), t("rp.ax_bound"))

    def scores(c: RopeConfig) -> dict:
        """q = k, and a random q and k drawn from the seed (of c's head_dim), against distance."""
        same, random = rotary.score_curves(c, distance, seed, device=device())
        return {"q = k": same.cpu().numpy(), t("rp.random_qk"): random.cpu().numpy()}

    def bound(c: RopeConfig) -> dict:
        return {t("rp.bound"): rotary.long_term_decay(c.head_dim, c.base, distance, device=device()).cpu().numpy()}

    def against_a(curves, axes) -> go.Figure:
        """B's curves alone, or A's dashed against B's."""
        return lines_figure(curves(cfg), *axes) if a is None else ab_figure(curves(a), curves(cfg), *axes)

    live_chart.cached_chart("rp_scores_chart", lambda: against_a(scores, score_axes), (cfg, a, distance, seed))
    decay_inputs = ((cfg.head_dim, cfg.base), a and (a.head_dim, a.base), distance)  # all the bound depends on
    live_chart.cached_chart("rp_decay_chart", lambda: against_a(bound, decay_axes), decay_inputs)
    explain(
        r"q_m^\top k_n = \mathrm{Re}\Big[\sum_j h_j\, e^{i(m-n)\theta_j}\Big],\qquad "
        r"\big|\ldots\big| \le \max_j |h_{j+1} - h_j| \sum_j |S_j|",
        distance_said(scores(cfg)["q = k"]) + t("rp.distance_notice"),
    )
    show_code(rotary.score_curves, rotary.scores_by_distance, rotary.long_term_decay)


rope_sections(head_box, base_box)

# --- 4. ALiBi -------------------------------------------------------------------------------------------
st.header(t("rp.h_alibi"))


@st.fragment
def alibi_section() -> None:
    c1, c2, c3 = st.columns(3)
    heads = int(c1.number_input(t("rp.heads"), value=8, step=1, key="rp_heads", **IN_LINK))
    try:
        slopes = rotary.alibi_slopes(heads)
    except ValueError as err:
        st.error(t("rp.heads_invalid", problem=problem(err)))
    else:
        head = window_start("rp_head", t("rp.head"), total=heads, span=1, where=c2, value=0, **IN_LINK)
        length = c3.slider(t("rp.alibi_len"), 4, 128, 32, key="rp_alibi_len", **IN_LINK)
        live_chart.cached_chart(
            "rp_alibi_chart",
            lambda: alibi_figure(
                rotary.alibi_bias(slopes[head], length, device=device()).cpu().numpy(),
                t("rp.alibi_title", slope=f"{slopes[head]:.4g}"),
                (t("rp.ax_key"), t("rp.ax_query")),
            ),
            (slopes[head], length),
        )
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
