"""Learned vs sinusoidal positions: train both live, test past the trained length, compare with a real model."""

import math

import numpy as np
import streamlit as st
import torch

from core import claims, pretrained, training
from core import positional as pe
from core.projection import pca
from core.training import POSITIONS, TrainConfig
from figures.positional import colour_limit, pe_heatmap_figure, similarity_figure
from figures.training import drawn_heatmap, lines_figure, positions_pca_figure
from lessons.learned_vs_sinusoidal.settings import SETTINGS, train_config
from ui.cache import cached
from ui.device import device
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import Message, problem, t
from ui.jobs import QUEUES, held, refusal_notice, submit, training_runner
from ui.presenter import presented
from ui.resources import minilm_positions
from ui.tables import downloads

# The target each task asks for at position i of a sequence of L tokens (core.training.make_batch).
TARGETS = {"copy-back": r"y_i = x_{i-k}", "reverse": r"y_i = x_{L-1-i}"}
PERCENT = 0.01  # accuracies within a percentage point count as equal: the notices print whole percents
NEAR_SAME = 0.05  # a change of the neighbouring rows' mean cosine below this is noise, not structure


def label(position: str) -> str:
    """The legend name of a model: learned nn.Embedding, sinusoidal (fixed), no positions (control)."""
    return t(f"lv.model_{position}")


@cached(max_entries=32, copy=True)
def table_views(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cosine-similarity matrix, 2D PCA of the rows, and mean similarity against offset (0..128)."""
    rows = torch.from_numpy(table).to(device())
    sim = pe.position_similarity(rows, "cosine").cpu().numpy()
    return sim, pca(table, 2).coords, pe.similarity_by_offset(rows, min(128, len(table) - 1)).cpu().numpy()


def percent(value: float) -> str:
    return f"{value:.0%}"


def learned_claim(final: dict[str, float], control: str, vocab: int) -> str:
    """Which model scores best at the trained length (core.claims.leaders), and the control against chance."""
    best = claims.leaders(final, PERCENT)
    return t(
        "lv.learned_best", names=Message(t("es.and").join(best)), value=percent(final[best[0]]),
        control=percent(final[control]), chance=percent(1 / vocab), vocab=vocab,
    )  # fmt: skip


def past_claims(accuracy: dict[str, list[float]], train_len: int, length: int, chance: float) -> str:
    """The extrapolation plot in words: which model scores best inside the trained length and which past it, each
    model's two means, and whether the sinusoidal one holds up past the trained length (core.claims)."""
    means = {name: claims.region_means(a, train_len) for name, a in accuracy.items()}
    text = ""
    for i, (region, first, last) in enumerate((("inside", 0, train_len - 1), ("beyond", train_len, length - 1))):
        scores = {name: m[i] for name, m in means.items()}
        if best := claims.leaders(scores, PERCENT):
            names = Message(t("es.and").join(best))
            text += t(f"lv.past_{region}", first=first, last=last, names=names, value=percent(scores[best[0]]))
    if length <= train_len:  # tested at the trained length: nothing lies past it
        return text
    each = Message(
        t("tf.sep").join(
            t("lv.past_means", name=name, inside=percent(a), beyond=percent(b)) for name, (a, b) in means.items()
        )
    )
    text += t("lv.past_each", each=each)
    inside, beyond = means[label("sinusoidal")]
    if not (math.isnan(inside) or math.isnan(beyond)):
        held = claims.trend({0: inside, 1: beyond}, PERCENT).direction
        numbers = dict(inside=percent(inside), beyond=percent(beyond), chance=percent(chance))
        text += t("lv.past_sinusoidal_falls" if held == "falls" else "lv.past_sinusoidal_holds", **numbers)
    return text


def start_training(cfgs: dict[str, TrainConfig]) -> None:
    dev = device()  # resolved here, in the script's thread; the job thread only computes
    press = [
        (cfg, lambda progress, cfg=cfg: training.train(cfg, progress, device=dev), cfg.steps) for cfg in cfgs.values()
    ]
    submit(training_runner(), press, "lv_refused")  # the three models, all queued (or deferred) or none


# Not ui.jobs.job_progress: that draws one job's bar, and a Train press is three jobs whose loss curves the learner
# watches grow side by side.
@st.fragment(run_every=1.0)
def live_progress(cfgs: dict[str, TrainConfig]) -> None:
    """Progress bars and loss curves while the jobs run; a full rerun once they are all done."""
    jobs = {p: job for p, cfg in cfgs.items() if (job := held(training_runner(), cfg)) is not None}
    if len(jobs) < len(cfgs) or all(job.done for job in jobs.values()):  # done, or let go of: the page says which
        st.rerun()
    for p, job in jobs.items():
        if job.started:
            state = t("lv.step", step=job.step, total=job.total)
        else:  # behind this learner's previous press, or in the queue
            state = t("lv.deferred") if job.deferred else t("lv.queued")
        st.progress(job.step / job.total, text=f"{label(p)}: {state}")
    curves = {label(p): job.losses for p, job in jobs.items() if job.losses}
    if curves:
        st.plotly_chart(
            presented(lines_figure(curves, t("lv.loss_title"), t("lv.ax_step"), "cross-entropy", x0=1, log_y=True))
        )


axes = (t("pe.ax_dimension"), t("pe.ax_position"))
sim_titles = (t("pe.sim_title", metric=t("pe.metric_cosine")), t("pe.ax_position") + " m", t("pe.ax_position") + " n")
st.title(t("lv.title"))
st.markdown(t("lv.intro"))

# --- Settings ---------------------------------------------------------------------------------------
# Declared in lessons/learned_vs_sinusoidal/settings.py, with the TrainConfig they make (train_config), which the
# attention page reads too.
c1, c2, c3, c4 = st.columns(4)
task = SETTINGS["lv_task"].draw(c1)
SETTINGS["lv_shift"].draw(c1, disabled=task != "copy-back")
SETTINGS["lv_d_model"].draw(c2)
train_len = SETTINGS["lv_train_len"].draw(c2)
SETTINGS["lv_steps"].draw(c3)
SETTINGS["lv_lr"].draw(c3)
SETTINGS["lv_seed"].draw(c4)
test_len = SETTINGS["lv_test_len"].draw(c4)

cfgs: dict[str, TrainConfig] | None = None
try:
    cfgs = {p: train_config(st.session_state, p) for p in POSITIONS}
    if not train_len <= test_len <= 4 * training.MAX_TRAIN_LEN:
        raise ValueError(t("lv.test_len_range", train_len=train_len, most=4 * training.MAX_TRAIN_LEN, value=test_len))
except ValueError as err:
    cfgs = None  # also when only the test length is wrong
    st.error(t("lv.invalid", problem=problem(err)))

st.button(t("lv.train"), key="lv_train", type="primary", disabled=cfgs is None, on_click=start_training, args=(cfgs,))
waiting, queue = training_runner().waiting(), QUEUES["training"]["max_waiting"]
st.caption(t("lv.policy", device=device().type, waiting=waiting, queue=queue))
refusal_notice(training_runner(), "lv_refused")

# --- 1. Training ------------------------------------------------------------------------------------
asked = {p: held(training_runner(), cfg) for p, cfg in cfgs.items()} if cfgs else {}
jobs = {p: job for p, job in asked.items() if job is not None}  # none: not pressed yet, or let go of
if cfgs and jobs and len(jobs) == len(asked) and not all(job.done for job in jobs.values()):
    live_progress(cfgs)
elif cfgs and jobs and len(jobs) == len(asked) and all(job.done for job in jobs.values()):
    failed = [job.error for job in jobs.values() if job.error]
    if failed:
        st.error(t("lv.failed", error=failed[0]))
    else:
        results = {p: job.result for p, job in jobs.items()}
        st.header(t("lv.h_learned"))
        cols = st.columns(3)
        for col, (p, r) in zip(cols, results.items(), strict=True):
            col.metric(label(p), f"{r.final_accuracy:.1%}", help=t("lv.took", steps=r.cfg.steps, s=f"{r.seconds:.1f}"))
        st.plotly_chart(
            presented(
                lines_figure(
                    {label(p): r.losses for p, r in results.items()},
                    t("lv.loss_title"),
                    t("lv.ax_step"),
                    "cross-entropy",
                    x0=1,
                    log_y=True,
                )
            )
        )

        final = {label(p): r.final_accuracy for p, r in results.items()}
        explain(
            rf"h = E_{{tok}}[x] + P,\quad {TARGETS[task]},\quad \mathcal{{L}} = -\frac{{1}}{{N}}\sum \log p(y_i \mid x)",
            t(f"lv.learned_notice_{task.replace('-', '_')}") + learned_claim(final, label("none"), cfgs["none"].vocab),
        )
        show_code(training.TinyAttention.forward, training.train)

        # --- 2. Past the trained length ----------------------------------------------------------------
        st.header(t("lv.h_past"))
        accuracy = {label(p): training.accuracy_by_position(r.model, test_len) for p, r in results.items()}
        st.plotly_chart(
            presented(
                lines_figure(
                    accuracy,
                    t("lv.accuracy_title", length=test_len),
                    t("pe.ax_position"),
                    t("we.accuracy"),
                    marker_x=cfgs["learned"].train_len - 0.5,
                    marker_label=t("lv.table_ends"),
                )
            )
        )
        st.markdown(
            t("lv.past", last=cfgs["learned"].train_len - 1, length=test_len)
            + past_claims(accuracy, cfgs["learned"].train_len, test_len, 1 / cfgs["none"].vocab)
            + (t("lv.past_reverse", train_len=cfgs["learned"].train_len) if task == "reverse" else "")
        )
        show_code(training.accuracy_by_position, training.TinyAttention.positions)

        # --- 3. The tables ------------------------------------------------------------------------------
        st.header(t("lv.h_tables"))
        learned = results["learned"]
        sinusoidal = pe.sinusoidal_encoding(learned.cfg.train_len, learned.cfg.d_model, device=device())
        tables = {
            "init": learned.initial_table.numpy(),
            "trained": learned.table.numpy(),
            "sinusoidal": sinusoidal.cpu().numpy(),
        }
        for col, (name, table) in zip(st.columns(3), tables.items(), strict=True):
            heat = pe_heatmap_figure(table, title=t(f"lv.table_{name}"), zmax=None, axis_titles=axes)
            col.plotly_chart(presented(drawn_heatmap(heat)), key=f"lv_table_{name}")
            sim_fig = similarity_figure(table_views(table)[0], 0, "cosine", sim_titles)
            col.plotly_chart(presented(drawn_heatmap(sim_fig)), key=f"lv_sim_{name}")
            downloads(f"positions_{name}", array=table, where=col)
        near = {name: float(table_views(table)[2][1]) for name, table in tables.items()}  # mean cos(p_m, p_m+1)
        moved = claims.trend({0: near["init"], 1: near["trained"]}, NEAR_SAME).direction
        explain(
            r"\cos(p_m, p_n) = \frac{p_m \cdot p_n}{\lVert p_m \rVert\,\lVert p_n \rVert}",
            t("lv.tables_notice") + t(f"lv.tables_{moved}", **{name: f"{c:.2f}" for name, c in near.items()}),
        )

# --- 4. A real learned table ------------------------------------------------------------------------
st.header(t("lv.h_real"))
try:
    real = minilm_positions()
except pretrained.PretrainedMissing as err:
    st.info(problem(err))
else:
    sinus = pe.sinusoidal_encoding(*real.shape, device=device()).cpu().numpy()
    largest = np.abs(real).max(axis=1)  # per position
    st.caption(
        t("lv.real_caption", model=pretrained.MODEL_NAME, n=real.shape[0], d=real.shape[1], license=t("lv.license"))
        + " "
        + t("lv.real_colours", limit=f"{colour_limit(real):.3f}", largest=f"{largest.max():.2f}", row=largest.argmax())
    )
    offsets = {}
    names = {"all-MiniLM-L6-v2": real, t("lv.table_sinusoidal"): sinus}
    for i, (col, (name, table)) in enumerate(zip(st.columns(2), names.items(), strict=True)):
        sim, coords, offsets[name] = table_views(table)
        # the browser gets each table as the chart draws it (figures.training.drawn_heatmap): 512 x 512 cells in
        # float32 were 1.75 MB a chart, 5.6 MB for the page on open
        heat = pe_heatmap_figure(table, title=name, zmax=None, axis_titles=axes)
        col.plotly_chart(presented(drawn_heatmap(heat)), key=f"lv_real_table_{i}")
        col.plotly_chart(
            presented(drawn_heatmap(similarity_figure(sim, 0, "cosine", sim_titles))), key=f"lv_real_sim_{i}"
        )
        pca_fig = positions_pca_figure(coords, t("lv.pca_title", name=name), colour_title=t("pe.ax_position"))
        col.plotly_chart(presented(pca_fig), key=f"lv_real_pca_{i}")
        downloads(f"positions_{'minilm' if i == 0 else 'sinusoidal_512'}", array=table, where=col)
    st.plotly_chart(presented(lines_figure(offsets, t("lv.offset_title"), t("pe.offset_x"), "cos(p_m, p_m+k)")))
    explain(
        r"\overline{\cos}(k) = \frac{1}{n-k}\sum_m \cos(p_m, p_{m+k})",
        t("lv.real_notice"),
    )
    show_code(pretrained.minilm_position_table, pe.similarity_by_offset)

# --- Try this ---------------------------------------------------------------------------------------
try_this("lv")
