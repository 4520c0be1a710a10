"""Rotary positions and long context: RoPE, the base, PI / NTK / YaRN / llama3 scaling, ALiBi."""

import math

import numpy as np
import streamlit as st

from core import rotary
from core.rotary import RopeConfig
from figures.rotary import ab_figure, alibi_figure, rotation_figure
from figures.training import lines_figure
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


# The settings change sections 1 to 3 alone, so they and those sections are a fragment: a move reruns that part
# alone (the browser writes the URL). With settings it cannot use, it says why and shows none of its sections; ALiBi
# and the rest of the page do not use them, so they stay (a stop there would leave them out until the next full run).
# The number boxes have no bounds: a value core refuses gets core's message, which says what to change.
# Pinning A (ui.compare) keeps these settings as A in the link's "rp_a"; the widgets are then B.
@st.fragment
def rope_sections() -> None:
    # --- Settings ---------------------------------------------------------------------------------------
    c1, c2, c3 = st.columns(3)
    head_dim = int(c1.number_input("head_dim", value=RopeConfig.head_dim, step=2, key="rp_head_dim", **IN_LINK))
    base_text = c2.text_input("base", value=f"{RopeConfig.base:g}", key="rp_base", help=t("rp.base_help"), **IN_LINK)
    c2.pills(
        t("pe.common_bases"),
        ["10000", "500000"],
        key="rp_base_pick",
        wrap=True,  # in a column they would stay on one row and scroll: presenter mode cut off 500000
        on_change=take_pick,
        args=("rp_base_pick", "rp_base"),
        label_visibility="collapsed",
    )
    original = int(
        c3.number_input(t("rp.original"), value=RopeConfig.original, step=1024, key="rp_original", **IN_LINK)
    )
    target = int(c3.number_input(t("rp.target"), value=RopeConfig.target, step=1024, key="rp_target", **IN_LINK))
    c0, c1, c2, c3 = st.columns(4)
    # the options are Hugging Face's rope_type codes, the same in every language: a bound selectbox writes its text
    method = c0.selectbox(
        t("rp.method"),
        rotary.SCALINGS,
        index=rotary.SCALINGS.index(RopeConfig.method),
        key="rp_method",
        help=t("rp.method_help"),
        **IN_LINK,
    )
    factor = c1.number_input(
        t("rp.factor"), value=RopeConfig.factor, step=0.5, key="rp_factor", help=t("rp.factor_help"), **IN_LINK
    )
    low_freq = c2.number_input(
        "llama3 low_freq_factor", value=RopeConfig.low_freq, step=0.5, key="rp_low_freq", **IN_LINK
    )
    high_freq = c3.number_input(
        "llama3 high_freq_factor", value=RopeConfig.high_freq, step=0.5, key="rp_high_freq", **IN_LINK
    )
    methods = {
        t("rp.none"): "default",
        "linear (PI)": "linear",
        "dynamic NTK": "dynamic",
        "YaRN": "yarn",
        "llama3": "llama3",
    }
    try:
        base = parse_number(base_text, "base", "10000")
        cfg = RopeConfig(head_dim, base, method, original, target, factor, low_freq, high_freq)
        inv_freqs = {name: cfg.inv_freq(code, device=device()) for name, code in methods.items()}
    except ValueError as err:
        st.error(t("rp.invalid", problem=problem(err)))
        return
    own = cfg.inv_freq(device=device())  # (head_dim // 2,) under the chosen scaling
    a = pin_ui("rp_a", cfg)  # A, when pinned and not B
    if a is not None:
        settings_table(a, cfg)

    # --- 1. One pair, rotating ----------------------------------------------------------------------------
    st.header(t("rp.h_pair"))
    c1, c2 = st.columns(2)
    # a bound slider's default must lie inside its range, or moving it back inside (keep_inside) does not hold
    start = dict(value=min(8, head_dim // 2 - 1), **IN_LINK)
    pair = window_start("rp_pair", t("rp.pair"), total=head_dim // 2, span=1, where=c1, **start)
    count = c2.slider(t("rp.positions"), 4, 256, 64, key="rp_positions", **IN_LINK)
    theta = own[pair].item()
    st.plotly_chart(rotation_figure(np.arange(count) * theta, t("rp.rotation_title", pair=pair), t("rp.position_m")))
    st.caption(t("rp.theta_caption", pair=pair, theta=f"{theta:.3g}", turn=f"{2 * math.pi / theta:,.1f}"))
    explain(
        r"\begin{pmatrix} q'_i \\ q'_{i+d/2} \end{pmatrix} = \begin{pmatrix}\cos m\theta_i & -\sin m\theta_i\\ "
        r"\sin m\theta_i & \cos m\theta_i\end{pmatrix} \begin{pmatrix} q_i \\ q_{i+d/2} \end{pmatrix},\quad "
        r"\theta_i = base^{-2i/d}",
        t("rp.pair_notice"),
    )
    show_code(rotary.apply_rope)

    # --- 2. Context extension -------------------------------------------------------------------------------
    st.header(t("rp.h_scaling"))
    wavelengths = {name: (2 * math.pi / f).cpu().numpy() for name, f in inv_freqs.items()}
    st.plotly_chart(
        lines_figure(
            wavelengths,
            t("rp.wl_title"),
            t("rp.ax_pair"),
            t("rp.ax_wavelength"),
            log_y=True,
            hlines={t("rp.original_line", n=f"{original:,}"): original, t("rp.target_line", n=f"{target:,}"): target},
        )
    )
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
        st.plotly_chart(
            ab_figure(
                {wavelength: rotary.wavelengths(a, device=device()).cpu().numpy()},
                {wavelength: rotary.wavelengths(cfg, device=device()).cpu().numpy()},
                t("rp.ab_wl_title"),
                t("rp.ax_pair"),
                wavelength,
                log_y=True,
            )
        )
        ratio = rotary.wavelength_ratio(a, cfg, device=device())
        if ratio is None:
            st.info(t("rp.ab_heads_differ", a=a.head_dim, b=cfg.head_dim))
        else:
            figure = lines_figure(
                {t("rp.ab_ratio"): ratio.cpu().numpy()},
                t("rp.ab_ratio_title"),
                t("rp.ax_pair"),
                t("rp.ab_ratio"),
                log_y=True,
                hlines={t("rp.ab_equal"): 1.0},
            )
            st.plotly_chart(figure)
            st.caption(t("rp.ab_ratio_notice"))
        show_code(rotary.wavelength_ratio)

    # --- 3. Attention and distance --------------------------------------------------------------------------
    st.header(t("rp.h_distance"))
    c1, c2 = st.columns(2)
    distance = c1.slider(t("rp.distance"), 16, 4096, 512, key="rp_distance", **IN_LINK)
    seed = int(c2.number_input(t("rp.seed"), value=0, step=1, key="rp_seed", **IN_LINK))

    def distance_curves(c: RopeConfig) -> tuple[dict, dict]:
        """One configuration's scores (q = k, random q and k from the seed) and RoFormer's bound, as cpu arrays."""
        same, random = rotary.score_curves(c, distance, seed, device=device())
        bound = rotary.long_term_decay(c.head_dim, c.base, distance, device=device())
        return {"q = k": same.cpu().numpy(), t("rp.random_qk"): random.cpu().numpy()}, {
            t("rp.bound"): bound.cpu().numpy()
        }

    scores, bound = distance_curves(cfg)
    score_axes = (t("rp.score_title"), t("rp.ax_distance") + " m − n", t("rp.ax_score"))
    decay_axes = (t("rp.decay_title"), t("rp.ax_distance"), t("rp.ax_bound"))
    if a is None:
        st.plotly_chart(lines_figure(scores, *score_axes))
        st.plotly_chart(lines_figure(bound, *decay_axes))
    else:  # the same seed draws A's q and k (of A's head_dim)
        a_scores, a_bound = distance_curves(a)
        st.plotly_chart(ab_figure(a_scores, scores, *score_axes))
        st.plotly_chart(ab_figure(a_bound, bound, *decay_axes))
    explain(
        r"q_m^\top k_n = \mathrm{Re}\Big[\sum_j h_j\, e^{i(m-n)\theta_j}\Big],\qquad "
        r"\big|\ldots\big| \le \max_j |h_{j+1} - h_j| \sum_j |S_j|",
        t("rp.distance_notice"),
    )
    show_code(rotary.score_curves, rotary.scores_by_distance, rotary.long_term_decay)


rope_sections()

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
        bias = rotary.alibi_bias(slopes[head], length, device=device()).cpu().numpy()
        titles = (t("rp.ax_key"), t("rp.ax_query"))
        st.plotly_chart(alibi_figure(bias, t("rp.alibi_title", slope=f"{slopes[head]:.4g}"), titles))
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
