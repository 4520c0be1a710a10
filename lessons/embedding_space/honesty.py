"""The embedding-space page's "How honest is the picture?": neighbours kept and trustworthiness of the projection
drawn, and both as k grows for each method drawn on the cloud.

A cloud of at most INLINE_MOST points is measured in the rerun (ui.cache.cached). A larger one is measured in the shared
"honesty" queue (ui.jobs), with progress: once per projection and k for every learner, like the projections.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable
from typing import Any

import numpy as np
import streamlit as st

from core import claims, neighbours, trustworthiness
from core.cloud import METHODS, CloudConfig
from core.jobs import Job, JobRunner, Progress, Work
from core.neighbours import Curve
from core.problems import Problem
from core.vectors import WordVectors
from figures.neighbours import curves_figure
from ui.cache import cached
from ui.i18n import Message, problem, t
from ui.jobs import held, job_progress, job_runner, session_id
from ui.presenter import presented

# Points measured inside a rerun. Trustworthiness compares every pair of points (core.trustworthiness), so its time
# grows with n^2: above this a measure takes longer than a rerun should (benchmarks/trustworthiness.py).
INLINE_MOST = 6_000

PANEL_WIDTHS = {1: [1, 1], 2: [2, 1]}  # the curve's share of the page's width (st.columns) for 1 and 2 panels
Measure = tuple[np.ndarray, float | None]  # (n,) neighbours kept per point, and T(k) (None: k too large for it)


def runner() -> JobRunner:
    return job_runner("honesty")


def fit_k(k: int, n_points: int) -> int:
    """k, lowered to every other point for a cloud that small (and said so)."""
    if n_points - 1 < k:
        k = max(n_points - 1, 1)
        st.info(t("es.kept_k_lowered", k=k, n=n_points))
    return k


def measures_ui(
    wv: WordVectors, rows: list[int], cloud_id: tuple, cfg: CloudConfig, k: int, coords: np.ndarray, columns: list
) -> np.ndarray | None:
    """Neighbours kept and trustworthiness at k as two metrics in `columns`, or the measure's progress.

    Returns:
        (n,) neighbours kept per point (for the colour), or None while there are none.
    """
    if bad := neighbours.check_k(k, len(rows)):
        st.error(problem(bad))
        return None
    trust_too = (bad := trustworthiness.check_k(k, len(rows))) is None
    if bad:
        st.warning(problem(bad))
    measured: Measure | None
    if len(rows) <= INLINE_MOST:
        measured = _measured(wv, rows, cfg, k, trust_too, coords)
    else:
        work = functools.partial(_measure, wv.vectors[rows].cpu().numpy(), coords, k, trust_too)
        what = t("es.trust", k=k) if trust_too else t("es.kept_share", k=k)
        measured = _from_job(("measure", cloud_id, cfg, k), work, len(rows), what)
    if measured is None:
        return None
    kept, value = measured
    columns[0].metric(t("es.kept_share", k=k), f"{kept.mean() / k:.1%}", help=t("es.kept_share_help"))
    if value is not None:
        columns[1].metric(t("es.trust", k=k), f"{value:.3f}", help=t("es.trust_help"))
    return kept


def curves_ui(wv: WordVectors, rows: list[int], cloud_id: tuple, drawn: dict[str, tuple]) -> None:
    """Both measures at each of core.neighbours.CURVE_KS, one panel per method drawn on this cloud
    (lessons.embedding_space.projections.drawn_on), and what to notice."""
    if not (ks := neighbours.curve_ks(len(rows))):
        st.info(t("es.curve_too_few", n=len(rows)))
        return
    panels = {}
    for cfg, coords in drawn.values():
        name = f"{cfg.method} {cfg.dims}D"
        curve: Curve | None
        if len(rows) <= INLINE_MOST:
            curve = _curve(wv, rows, cfg, ks, coords)
        else:
            work = functools.partial(_measure_curve, wv.vectors[rows].cpu().numpy(), coords, ks)
            curve = _from_job(("curve", cloud_id, cfg, ks), work, len(rows), t("es.curve_of", name=name))
        if curve is not None:
            panels[name] = {t("es.curve_trust"): curve.trust, t("es.curve_kept"): curve.kept}
    if panels:  # each panel about a third of the page wide, one alone half of it (its title and legend fit)
        where = st.columns(PANEL_WIDTHS[len(panels)])[0] if len(panels) in PANEL_WIDTHS else st.container()
        where.plotly_chart(presented(curves_figure(panels, t("es.curve_title", n=len(rows)))), key="es_curve_plot")
    missing = [method for method in METHODS if method not in drawn]
    st.caption(curves_notice(panels) + (t("es.curve_missing", methods=" / ".join(missing)) if missing else ""))


def curves_notice(panels: dict[str, dict[str, dict[int, float]]]) -> str:
    """What to notice in the curves, read from them (core.claims): each panel's two lines, where they start, where
    they go and where they peak, and, with two panels or more, which keeps the most neighbours at the first k and
    at the last."""
    kept, trust = t("es.curve_kept"), t("es.curve_trust")
    text = t("es.curve_notice")
    for name, lines in panels.items():
        text += t("es.curve_panel", name=name, kept=trend_text(lines[kept]), trust=trend_text(lines[trust]))
    ks = [k for k in next(iter(panels.values()), {}).get(kept, {})]
    for k in dict.fromkeys(ks[:1] + ks[-1:]) if len(panels) > 1 else ():
        scores = {name: lines[kept][k] for name, lines in panels.items()}
        names = claims.leaders(scores)
        text += t("es.curve_leads", k=k, names=t("es.and").join(names), value=f"{scores[names[0]]:.3f}")
    return text


def trend_text(series: dict[int, float]) -> str:
    """One line of the curves in words: "rises from 0.140 at k = 5 to 0.240 at k = 100" (core.claims.trend)."""
    seen = claims.trend(series)
    key = "one" if len(series) == 1 else seen.direction
    numbers = dict(first=f"{seen.first:.3f}", last=f"{seen.last:.3f}", best=f"{seen.best:.3f}")
    text = t(f"es.trend_{key}", first_x=seen.first_x, last_x=seen.last_x, **numbers)
    return text + (t("es.trend_best", best_x=seen.best_x, best=numbers["best"]) if seen.peak else "")


def replay_said(frames: list[tuple[int, np.ndarray]]) -> str:
    """Whether t-SNE's layout grew, shrank or kept its size from the replay's first frame to its last (core.claims)."""
    (first, start), (last, end) = frames[0], frames[-1]
    sizes = {first: claims.spread(start), last: claims.spread(end)}
    grew = claims.trend(sizes).direction
    return t(f"es.replay_{grew}", first=first, last=last, start=f"{sizes[first]:.3g}", end=f"{sizes[last]:.3g}")


def sweep_said(data: str, perplexities: tuple[float, ...], layouts: list[np.ndarray], labels: np.ndarray | None) -> str:
    """What each panel of a demo's sweep draws of the clusters' sizes ("sizes") or gaps ("gaps"), as a ratio the data
    makes 10 (core.neighbours.demo_clusters); "" for the cloud's words."""
    if labels is None:
        return ""
    ratio = claims.size_ratio if data == "sizes" else claims.gap_ratio
    drawn = t("tf.sep").join(f"{p:g}: {ratio(xy, labels):.1f}" for p, xy in zip(perplexities, layouts, strict=True))
    return t(f"es.sweep_drawn_{data}", drawn=Message(drawn))


@cached(max_entries=8, copy=True)
def _measured(
    wv: WordVectors, rows: list[int], cfg: CloudConfig, k: int, trust_too: bool, coords: np.ndarray
) -> Measure:
    """measure() of projection `cfg` (its coordinates `coords`) of the cloud `rows`, at k: once per projection and k."""
    return _measure(wv.vectors[rows].cpu().numpy(), coords, k, trust_too)


@cached(max_entries=16, copy=True)
def _curve(wv: WordVectors, rows: list[int], cfg: CloudConfig, ks: tuple, coords: np.ndarray) -> Curve:
    return _measure_curve(wv.vectors[rows].cpu().numpy(), coords, ks)


def _measure(x: np.ndarray, coords: np.ndarray, k: int, trust_too: bool, progress: Progress | None = None) -> Measure:
    """Neighbours kept per point, then T(k) with its progress (points ranked so far) when trust_too."""
    kept = neighbours.preservation(x, coords, k).kept
    if not trust_too:
        return kept, None
    return kept, trustworthiness.trustworthiness(x, coords, k, on_progress=_ranked(progress))


def _measure_curve(x: np.ndarray, coords: np.ndarray, ks: tuple, progress: Progress | None = None) -> Curve:
    return neighbours.honesty_curve(x, coords, ks, on_progress=_ranked(progress))


def _ranked(progress: Progress | None):
    """core.trustworthiness's on_progress(done, n) for a job's progress(step, loss)."""
    return None if progress is None else lambda done, n: progress(done, 0.0)


def _from_job(key: Hashable, work: Work, total: int, what: str) -> Any | None:
    """A job's result, once it is done; until then it is asked for (once, by this learner) and its progress shown;
    a failed one says so, with a button to try again."""
    job = held(runner(), key)
    if job is None:
        _ask(key, work, total, what)
        if (job := held(runner(), key)) is None:
            return None  # refused: _ask said so
    if job.error:
        st.error(t("es.measure_failed", what=what, error=job.error))
        st.button(t("es.measure_again"), key=f"es_again_{what}", on_click=_retry, args=(key, work, total))
    elif not job.done:
        job_progress(runner(), key, functools.partial(_describe, what))
    else:
        return job.result
    return None


def _ask(key: Hashable, work: Work, total: int, what: str) -> None:
    """Submit the job; when the queue refuses it, a notice that reruns the page once it would take it."""
    try:
        runner().submit(key, work, total, session_id())
    except Problem:
        _room_later(key, what)


def _retry(key: Hashable, work: Work, total: int) -> None:
    """The button's press: a refused one leaves the failed job, and the button, as they are."""
    try:
        runner().submit(key, work, total, session_id())
    except Problem:
        pass


@st.fragment(run_every=1.0)
def _room_later(key: Hashable, what: str) -> None:
    if runner().refusal([key], session_id()) is None:
        st.rerun()
    st.info(t("es.measure_later", what=what))


def _describe(what: str, job: Job) -> str:
    """The progress bar's text: deferred behind the learner's own measures, waiting, finding neighbours, ranking."""
    if job.deferred:
        return t("es.measure_deferred", what=what)
    if not job.started:
        return t("es.measure_waiting", what=what, n=runner().ahead(job.key))
    if job.step == 0:
        return t("es.measure_starting", what=what)
    return t("es.measure_step", what=what, done=job.step, n=job.total)
