"""Rotary positions and long context: RoPE, the base, PI / NTK / YaRN / llama3 scaling, ALiBi."""

import math

import numpy as np
import streamlit as st
import torch

from core import rotary
from figures.rotary import alibi_figure, rotation_figure
from figures.training import lines_figure
from ui import explain, parse_number, set_defaults, show_code, take_pick, window_start

DEFAULTS = dict(
    head_dim=128,
    base="10000",
    pair=8,
    positions=64,
    factor=4.0,
    original=4096,
    target=16384,
    low_freq=1.0,
    high_freq=4.0,
    distance=512,
    seed=0,
    heads=8,
    head=0,
    alibi_len=32,
)


set_defaults("rp", DEFAULTS)
st.title("Rotary positions and long context")
st.markdown(
    "RoPE (RoFormer; LLaMA, GPT-NeoX) adds nothing to the token vector. It rotates each pair of "
    "dimensions of the query and the key by an angle proportional to the position, so their dot product "
    "sees only the distance m − n. Stretching the angles is how models are extended past the length "
    "they were trained on."
)

# --- Settings ---------------------------------------------------------------------------------------
c1, c2, c3 = st.columns(3)
head_dim = int(c1.number_input("head_dim", step=2, key="rp_head_dim"))
base_text = c2.text_input("base", key="rp_base", help="10000: LLaMA 1/2, GPT-NeoX. 500000: Llama 3.")
c2.pills(
    "Common bases",
    ["10000", "500000"],
    key="rp_base_pick",
    on_change=take_pick,
    args=("rp_base_pick", "rp_base"),
    label_visibility="collapsed",
)
original = int(c3.number_input("Original (trained) length", step=1024, key="rp_original"))
target = int(c3.number_input("Target length", step=1024, key="rp_target"))
c1, c2, c3 = st.columns(3)
factor = c1.number_input("Scaling factor", step=0.5, key="rp_factor", help="How many times longer the context is.")
low_freq = c2.number_input("llama3 low_freq_factor", step=0.5, key="rp_low_freq")
high_freq = c3.number_input("llama3 high_freq_factor", step=0.5, key="rp_high_freq")

scalings = {
    "none": None,
    "linear (PI)": {"rope_type": "linear", "factor": factor},
    "dynamic NTK": {"rope_type": "dynamic", "factor": factor, "original_max_position_embeddings": original},
    "YaRN": {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": original},
    "llama3": {
        "rope_type": "llama3",
        "factor": factor,
        "low_freq_factor": low_freq,
        "high_freq_factor": high_freq,
        "original_max_position_embeddings": original,
    },
}
try:
    base = parse_number(base_text, "base")
    rotary.check_extension(original, target)
    inv_freqs = {
        name: rotary.rope_inv_freq(head_dim, base, cfg, seq_len=target).numpy() for name, cfg in scalings.items()
    }
except ValueError as err:
    st.error(f"{err} Change it to see the figures.")
    st.stop()

# --- 1. One pair, rotating ----------------------------------------------------------------------------
st.header("1. One pair of dimensions, rotating with position")
c1, c2 = st.columns(2)
pair = window_start("rp_pair", "Pair i", total=head_dim // 2, span=1, where=c1)
count = c2.slider("Positions drawn", 4, 256, key="rp_positions")
theta = inv_freqs["none"][pair]
st.plotly_chart(rotation_figure(np.arange(count) * theta, pair))
st.caption(f"θ_{pair} = {theta:.3g} rad per position: one turn every {2 * math.pi / theta:,.1f} positions.")
explain(
    r"\begin{pmatrix} q'_i \\ q'_{i+d/2} \end{pmatrix} = \begin{pmatrix}\cos m\theta_i & -\sin m\theta_i\\ "
    r"\sin m\theta_i & \cos m\theta_i\end{pmatrix} \begin{pmatrix} q_i \\ q_{i+d/2} \end{pmatrix},\quad "
    r"\theta_i = base^{-2i/d}",
    "Low pairs spin fast and tell neighbours apart; high pairs turn slowly and measure long distances.",
)
show_code(rotary.apply_rope)

# --- 2. Context extension -------------------------------------------------------------------------------
st.header("2. Stretching the context: five methods on one plot")
wavelengths = {name: 2 * math.pi / f for name, f in inv_freqs.items()}
st.plotly_chart(
    lines_figure(
        wavelengths,
        "Wavelength of each pair (positions per turn)",
        "pair i",
        "wavelength",
        log_y=True,
        hlines={f"original {original:,}": original, f"target {target:,}": target},
    )
)
yarn_scale = rotary.attention_scaling(scalings["YaRN"])
st.caption(
    f"Linear divides every frequency by {factor:g}; dynamic NTK raises the base for length {target:,}; YaRN "
    f"leaves fast pairs alone, divides slow ones and ramps between (and scales attention by {yarn_scale:.3f}); "
    "llama3 does the same by wavelength bands, with a smooth blend between them."
)
explain(
    r"\theta_i' = \theta_i / s \;\text{(linear)},\qquad b' = b\,\big(\tfrac{sL'}{L} - (s-1)\big)^{d/(d-2)}"
    r"\;\text{(NTK)},\qquad \theta_i' = (1-\gamma_i)\,\tfrac{\theta_i}{s} + \gamma_i\,\theta_i \;\text{(YaRN, llama3)}",
    "Pairs whose wavelength is past the original length never made a full turn in training: those are the ones "
    "every method slows down.",
)
show_code(rotary.rope_inv_freq)

# --- 3. Attention and distance --------------------------------------------------------------------------
st.header("3. Attention score against distance")
c1, c2 = st.columns(2)
distance = c1.slider("Largest distance", 16, 4096, key="rp_distance")
seed = int(c2.number_input("Seed for random q, k", step=1, key="rp_seed"))
generator = torch.Generator().manual_seed(seed)
q, k = (
    torch.randn(head_dim, generator=generator, dtype=torch.float64),
    torch.randn(head_dim, generator=generator, dtype=torch.float64),
)
inv = torch.from_numpy(inv_freqs["none"])
scores = {
    "q = k": rotary.scores_by_distance(q, q, inv, distance).numpy(),
    "random q, k": rotary.scores_by_distance(q, k, inv, distance).numpy(),
}
st.plotly_chart(lines_figure(scores, "q_m · k_n against m − n", "distance m − n", "score"))
st.plotly_chart(
    lines_figure(
        {"RoFormer bound": rotary.long_term_decay(head_dim, base, distance).numpy()},
        "Long-term decay: mean |S_j| against distance",
        "distance",
        "bound",
    )
)
explain(
    r"q_m^\top k_n = \mathrm{Re}\Big[\sum_j h_j\, e^{i(m-n)\theta_j}\Big],\qquad "
    r"\big|\ldots\big| \le \max_j |h_{j+1} - h_j| \sum_j |S_j|",
    "The same q and k score high when close and less when far: RoPE builds in a mild preference for nearby "
    "tokens (RoFormer section 3.4.3).",
)
show_code(rotary.scores_by_distance, rotary.long_term_decay)

# --- 4. ALiBi -------------------------------------------------------------------------------------------
st.header("4. ALiBi: no position vector at all, a bias on the scores")
c1, c2, c3 = st.columns(3)
heads = int(c1.number_input("Heads", step=1, key="rp_heads"))
try:
    slopes = rotary.alibi_slopes(heads)
except ValueError as err:
    st.error(f"{err} Give 1 or more heads.")
else:
    head = window_start("rp_head", "Head", total=heads, span=1, where=c2)
    length = c3.slider("Sequence length", 4, 128, key="rp_alibi_len")
    st.plotly_chart(alibi_figure(rotary.alibi_bias(slopes[head], length).numpy(), slopes[head]))
    st.caption("Slopes: " + ", ".join(f"{s:.4g}" for s in slopes))
    explain(
        r"\mathrm{score}(i, j) = q_i^\top k_j - m_h\,(i - j),\qquad m_h = 2^{-8h/n}",
        "Each head forgets distant tokens at its own rate; nothing was learned per position, so longer inputs "
        "just get a larger penalty.",
    )
    show_code(rotary.alibi_slopes)

# --- 5. The seeds' question -----------------------------------------------------------------------------
st.header("5. Past the trained length")
st.markdown(
    "A sinusoidal table, and RoPE's angles, are defined for any position: the formula needs no row. "
    "A learned table has exactly `max_len` rows and nothing after them. Defined is not the same as "
    "understood: see what a model trained on 16 positions does at 32."
)
st.page_link(
    "lessons/learned_vs_sinusoidal.py",
    label="Learned vs sinusoidal: train both and test past max_len",
    icon=":material/straighten:",
)
