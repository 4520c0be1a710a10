"""Learned vs sinusoidal positions: train both live, test past the trained length, compare with a real model."""

import math

import numpy as np
import streamlit as st
import torch

from core import positional as pe
from core import pretrained, training
from core.jobs import JobRunner
from core.projection import pca
from core.training import POSITIONS, TASKS, TrainConfig
from figures.positional import pe_heatmap_figure, similarity_figure
from figures.training import lines_figure, positions_pca_figure
from ui import device, explain, parse_number, set_defaults, show_code

DEFAULTS = dict(task="copy-back", shift=3, d_model=64, train_len=16, steps=200, lr="3e-3", seed=0, test_len=32)
LABELS = {"learned": "learned nn.Embedding", "sinusoidal": "sinusoidal (fixed)", "none": "no positions (control)"}


@st.cache_resource
def runner() -> JobRunner:
    """One training queue per server process: one job at a time, results shared by every learner."""
    return JobRunner(workers=1)


@st.cache_resource(show_spinner="Reading all-MiniLM-L6-v2's position table…")
def minilm_table() -> np.ndarray:
    return pretrained.minilm_position_table().numpy()


@st.cache_data
def table_views(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cosine-similarity matrix, 2D PCA of the rows, and mean similarity against offset (0..128)."""
    rows = torch.from_numpy(table)
    sim = pe.position_similarity(rows, "cosine").numpy()
    return sim, pca(table, 2).coords, pe.similarity_by_offset(rows, min(128, len(table) - 1)).numpy()


def start_training(cfgs: dict[str, TrainConfig]) -> None:
    dev = device()  # resolved here, in the script's thread; the job thread only computes
    for cfg in cfgs.values():
        runner().submit(cfg, lambda progress, cfg=cfg: training.train(cfg, progress, device=dev), cfg.steps)


@st.fragment(run_every=1.0)
def live_progress(cfgs: dict[str, TrainConfig]) -> None:
    """Progress bars and loss curves while the jobs run; a full rerun once they are all done."""
    jobs = {p: runner().get(cfg) for p, cfg in cfgs.items()}
    if all(job.done for job in jobs.values()):
        st.rerun()
    for p, job in jobs.items():
        state = "waiting in the queue" if not job.started else f"step {job.step} of {job.total}"
        st.progress(job.step / job.total, text=f"{LABELS[p]}: {state}")
    curves = {LABELS[p]: job.losses for p, job in jobs.items() if job.losses}
    if curves:
        st.plotly_chart(lines_figure(curves, "Training loss", "step", "cross-entropy", x0=1, log_y=True))


set_defaults("lv", DEFAULTS)

st.title("Learned vs sinusoidal positions")
st.markdown(
    "BERT and GPT-2 learn their position vectors as a table, `nn.Embedding(max_len, d_model)`; the original "
    "Transformer computes them with sines and cosines. The table adapts to the task but has no row for a position "
    "past `max_len`; the formula is defined everywhere. Train both below on a task that content alone cannot solve."
)

# --- Settings ---------------------------------------------------------------------------------------
c1, c2, c3, c4 = st.columns(4)
task = c1.selectbox(
    "Task", TASKS, key="lv_task", help="copy-back: output the token k places back. reverse: the sequence backwards."
)
shift = c1.number_input("k (copy-back)", step=1, key="lv_shift", disabled=task != "copy-back")
d_model = c2.select_slider("d_model", [16, 32, 64, 128, 256], key="lv_d_model")
train_len = c2.number_input("Trained length (max_len)", step=1, key="lv_train_len")
steps = c3.number_input("Steps", step=50, key="lv_steps")
lr_text = c3.text_input("Learning rate", key="lv_lr")
seed = c4.number_input("Seed", step=1, key="lv_seed")
test_len = c4.number_input("Test length", step=1, key="lv_test_len", help="Longer than trained: extrapolation.")

cfgs = None
try:
    base = dict(
        task=task,
        shift=int(shift),
        d_model=d_model,
        train_len=int(train_len),
        steps=int(steps),
        lr=parse_number(lr_text, "The learning rate"),
        seed=int(seed),
    )
    cfgs = {p: TrainConfig(position=p, **base) for p in POSITIONS}
    if not cfgs["learned"].train_len <= int(test_len) <= 4 * training.MAX_TRAIN_LEN:
        raise ValueError(
            f"The test length must be between the trained length ({int(train_len)}) and "
            f"{4 * training.MAX_TRAIN_LEN}; it is {int(test_len)}."
        )
except ValueError as err:
    st.error(f"{err} Nothing is trained until the settings are valid; the pretrained comparison below still works.")
    cfgs = None

st.button("Train", key="lv_train", type="primary", disabled=cfgs is None, on_click=start_training, args=(cfgs,))
st.caption(
    f"Training runs on this server's {device().type}, one job at a time for everyone "
    f"({runner().waiting()} waiting now). Results are kept per settings: the same settings, from anyone, "
    "come back at once. Leaving the page does not stop or repeat a run."
)

# --- 1. Training ------------------------------------------------------------------------------------
jobs = {p: runner().get(cfg) for p, cfg in cfgs.items()} if cfgs else {}
if jobs and all(jobs.values()) and not all(job.done for job in jobs.values()):
    live_progress(cfgs)
elif jobs and all(job is not None and job.done for job in jobs.values()):
    failed = [job.error for job in jobs.values() if job.error]
    if failed:
        st.error(f"Training failed: {failed[0]}. Press Train to try again.")
    else:
        results = {p: job.result for p, job in jobs.items()}
        st.header("1. What each model learned")
        cols = st.columns(3)
        for col, (p, r) in zip(cols, results.items(), strict=True):
            col.metric(LABELS[p], f"{r.final_accuracy:.1%}", help=f"{r.cfg.steps} steps in {r.seconds:.1f} s")
        st.plotly_chart(
            lines_figure(
                {LABELS[p]: r.losses for p, r in results.items()},
                "Training loss",
                "step",
                "cross-entropy",
                x0=1,
                log_y=True,
            )
        )

        explain(
            r"h = E_{tok}[x] + P,\quad y_i = x_{i-k},\quad \mathcal{L} = -\frac{1}{N}\sum \log p(y_i \mid x)",
            "Without P the attention block sees a set: it cannot know which token is k places back, so the control "
            "stays near chance whatever it is trained on.",
        )
        show_code(training.TinyAttention.forward, training.train)

        # --- 2. Past the trained length ----------------------------------------------------------------
        st.header("2. Past the trained length")
        length = int(test_len)
        accuracy = {LABELS[p]: training.accuracy_by_position(r.model, length) for p, r in results.items()}
        st.plotly_chart(
            lines_figure(
                accuracy,
                f"Accuracy at each position, sequences of {length}",
                "position",
                "accuracy",
                marker_x=cfgs["learned"].train_len - 0.5,
                marker_label="max_len: the learned table ends",
            )
        )
        past = [a for a in accuracy[LABELS["sinusoidal"]][cfgs["learned"].train_len :] if not math.isnan(a)]
        st.markdown(
            f"The learned table has rows 0…{cfgs['learned'].train_len - 1} only: a longer input is cut there "
            "(as BERT cuts at 512), and every later position scores 0, with no vector to look up. The sinusoidal "
            f"model runs on all {length} positions"
            + (
                f" and averages {np.mean(past):.0%} past the trained length: defined is not the same as "
                "generalised, since its attention learned only the angles it saw."
                if past
                else "."
            )
        )
        show_code(training.accuracy_by_position, training.TinyAttention.positions)

        # --- 3. The tables ------------------------------------------------------------------------------
        st.header("3. The position tables")
        learned = results["learned"]
        tables = {
            "learned, random init": learned.initial_table.numpy(),
            "learned, trained": learned.table.numpy(),
            "sinusoidal": pe.sinusoidal_encoding(learned.cfg.train_len, learned.cfg.d_model).numpy(),
        }
        for col, (name, table) in zip(st.columns(3), tables.items(), strict=True):
            col.plotly_chart(pe_heatmap_figure(table, title=name, zmax=None), key=f"lv_table_{name}")
            col.plotly_chart(similarity_figure(table_views(table)[0], 0, "cosine"), key=f"lv_sim_{name}")
        explain(
            r"\cos(p_m, p_n) = \frac{p_m \cdot p_n}{\lVert p_m \rVert\,\lVert p_n \rVert}",
            "The random table is noise: each position is like no other. Training gives it structure from the "
            "task; the sinusoidal table has its band structure from the start.",
        )

# --- 4. A real learned table ------------------------------------------------------------------------
st.header("4. A real learned table: all-MiniLM-L6-v2")
try:
    real = minilm_table()
except pretrained.PretrainedMissing as err:
    st.info(str(err))
else:
    sinus = pe.sinusoidal_encoding(*real.shape).numpy()
    st.caption(
        f"{pretrained.MODEL_NAME}: {real.shape[0]} learned positions × {real.shape[1]} dimensions, read "
        f"from the package's model.safetensors with safetensors alone. License: {pretrained.LICENSE}."
    )
    offsets = {}
    for col, (name, table) in zip(st.columns(2), (("all-MiniLM-L6-v2", real), ("sinusoidal", sinus)), strict=True):
        sim, coords, offsets[name] = table_views(table)
        col.plotly_chart(pe_heatmap_figure(table, title=name, zmax=None), key=f"lv_real_table_{name}")
        col.plotly_chart(similarity_figure(sim, 0, "cosine"), key=f"lv_real_sim_{name}")
        col.plotly_chart(positions_pca_figure(coords, f"{name}: positions, PCA"), key=f"lv_real_pca_{name}")
    st.plotly_chart(lines_figure(offsets, "Mean cosine similarity against offset k", "offset k", "cos(p_m, p_m+k)"))
    explain(
        r"\overline{\cos}(k) = \frac{1}{n-k}\sum_m \cos(p_m, p_{m+k})",
        "Training alone gave the real table what the formula builds in: neighbours are similar, and "
        "similarity falls with distance. Its rows past 512 do not exist.",
    )
    show_code(pretrained.minilm_position_table, pe.similarity_by_offset)
