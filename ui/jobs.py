"""Long work a learner starts (training, a projection, an evaluation): submitted to a shared queue, per session.

A press past the learner's own bound is deferred by core.jobs (it runs after their previous job, and the page's
progress bar says so); a press refused all the same is remembered, and the page says why only while that still
holds (`refusal`): the notice goes, and the button works again, as soon as it does not.

A session holds the jobs it reads (`hold`, `held`: the last HOLD of them, in its state), so that the shared queue
keeps them reachable for it however many others a class asks for (core.jobs) and a fragment's rerun never looks up a
result that is gone; they are let go when the session ends or moves on to HOLD others.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Callable, Hashable, MutableMapping, Sequence
from typing import Any

import streamlit as st

from core.jobs import Job, JobRunner, Work
from core.problems import Problem
from ui.i18n import problem, t

# Every queue's bounds, in one place: the pages read them for their texts, tests/core/test_jobs.py drives them.
QUEUES = {
    # One Train press is three jobs (learned, sinusoidal, none): one press queued or running per learner.
    "training": dict(workers=1, keep=64, per_owner=3, max_waiting=12),
    # t-SNE, UMAP and the perplexity sweep: one waiting or running per learner.
    "projections": dict(workers=1, keep=32, per_owner=1, max_waiting=6),
    "evaluation": dict(workers=1, keep=32, per_owner=1, max_waiting=6),
    # A large cloud's neighbours kept and trustworthiness, and each method's curve as k grows: the embedding-space
    # page asks for up to four at once (the measure, three curves), so two queued and two deferred per learner.
    "honesty": dict(workers=1, keep=64, per_owner=2, max_waiting=16),
    # BPE trainings (the text-to-tokens page): the learner's own, and English's and Chinese's up to 50,000 tokens.
    "tokens": dict(workers=1, keep=16, per_owner=3, max_waiting=12),
}
Request = tuple[Hashable, Work, int]  # (key, work, total), as JobRunner.submit_all takes them
HELD = "_jobs_held"  # session state: the jobs this session reads, {(queue, key): job}, least recently read first
HOLD = 16  # the most jobs one session holds (a page reads at most four at once: a training, two curves, a hand-off)


# Not ui.cache.cached, whose results are never changed: a shared store, its jobs added and let go under its own lock,
# bounded by QUEUES.
@st.cache_resource
def job_runner(name: str) -> JobRunner:
    """One queue per server process and kind of work (QUEUES), shared by every learner and page."""
    return JobRunner(**QUEUES[name])


def training_runner() -> JobRunner:
    """The training queue: the learned page submits to it, the attention page reads its finished jobs."""
    return job_runner("training")


def session_id() -> str:
    """An id for this browser session, so shared queues can bound what one learner asks for."""
    return st.session_state.setdefault("_session_id", uuid.uuid4().hex)


def hold(state: MutableMapping, runner: JobRunner, job: Job) -> Job:
    """Keep `job` in this session's state (the last HOLD it read), so that the runner finds it by its key for this
    session even after evicting it. Streamlit-free (the tests' sessions are dicts)."""
    kept = state.setdefault(HELD, OrderedDict())
    kept[(id(runner), job.key)] = job
    kept.move_to_end((id(runner), job.key))
    while len(kept) > HOLD:
        kept.popitem(last=False)
    return job


def held(runner: JobRunner, key: Hashable, state: MutableMapping | None = None) -> Job | None:
    """runner.get(key), held by this session (`hold`) when there is one: every page's way to read a job."""
    job = runner.get(key)
    if job is not None:
        hold(st.session_state if state is None else state, runner, job)
    return job


def press(
    runner: JobRunner, requests: Sequence[Request], owner: Hashable, state: MutableMapping, refused_key: str
) -> list[Job] | None:
    """One press: its jobs (held by the session: `hold`), or None when the queue refuses it; then the keys pressed
    are kept in state[refused_key] for `refusal`. Streamlit-free, so that tests drive it as the pages do (submit)."""
    state.pop(refused_key, None)
    try:
        jobs = runner.submit_all(requests, owner)
    except Problem:
        state[refused_key] = [key for key, _, _ in requests]
        return None
    for job in jobs:
        hold(state, runner, job)
    return jobs


def refusal(runner: JobRunner, owner: Hashable, state: MutableMapping, refused_key: str) -> Problem | None:
    """Why this learner's refused press would still be refused now; None, and the press forgotten, once it would not."""
    keys = state.get(refused_key)
    if keys is None:
        return None
    why = runner.refusal(keys, owner)
    if why is None:
        del state[refused_key]
    return why


def submit(runner: JobRunner, requests: Sequence[Request], refused_key: str) -> None:
    """A press of this session's (in a button's on_click): `press` with st.session_state."""
    press(runner, requests, session_id(), st.session_state, refused_key)


def refusal_notice(runner: JobRunner, refused_key: str) -> None:
    """Where the page's button is: the warning for this session's refused press, while the refusal holds."""
    if refusal(runner, session_id(), st.session_state, refused_key) is not None:
        _refusal_live(runner, refused_key)


@st.fragment(run_every=1.0)
def _refusal_live(runner: JobRunner, refused_key: str) -> None:
    """The warning, checked every second; once the refusal no longer holds, a full rerun draws the page without it."""
    why = refusal(runner, session_id(), st.session_state, refused_key)
    if why is None:
        st.rerun()
    st.warning(problem(why))


@st.fragment(run_every=1.0)
def job_progress(
    runner: JobRunner, key: Hashable, describe: Callable[[Job], str], draw: Callable[[Job], None] | None = None
) -> None:
    """A job's progress bar, redrawn every second in a fragment; once the job is done, the bar full and saying that
    its result is being drawn, and a full rerun, which draws it (the bar stays on screen until then: it stood at its
    last step, "step 650 of 750", while a loaded server's rerun drew the map; issue 51).

    Args:
        describe: the bar's text for the job as it is now (deferred, waiting, starting, at step n of total).
        draw: what to show under the bar while the job runs (t-SNE's latest intermediate layout), or None.
    """
    job = held(runner, key)
    if job is not None and job.done:
        st.progress(1.0, text=t("ui.job_drawing"))
    if job is None or job.done:
        st.rerun()
    st.progress(job.step / job.total if job.started else 0.0, text=describe(job))
    if draw is not None and job.started:
        draw(job)


def job_result(
    runner: JobRunner,
    key: Hashable,
    start: Callable[[], None],
    *,
    label: str,
    button_key: str,
    refused_key: str,
    describe: Callable[[Job], str],
    failed: Callable[[str], str],
) -> Any:
    """A job a button starts, in one of its states: done, its result; running or waiting, None and its progress bar
    (job_progress); not asked for yet or failed, None and the button (`start` its on_click, which submits with
    `refused_key`) under the error it failed with, and, while a press of it is refused, why (refusal_notice).

    Args:
        failed: the error message's text for the job's error.
    """
    job = held(runner, key)
    if job is not None and job.done and not job.error:
        return job.result
    if job is not None and not job.done:
        job_progress(runner, key, describe)
        return None
    if job is not None:
        st.error(failed(job.error or ""))
    st.button(label, key=button_key, on_click=start)
    refusal_notice(runner, refused_key)
    return None


def describe_projection(method: str, job: Job) -> str:
    """A projection's progress text (the shared "projections" queue: the embedding space's and the sentence map's):
    deferred behind the learner's own run, waiting behind others, its start (its process, the neighbours; UMAP's
    compiling), its step, or its last step done and the layout on its way back."""
    if job.deferred:
        return t("es.deferred", method=method)
    if not job.started:
        return t("es.waiting", method=method, n=job_runner("projections").ahead(job.key))
    if job.step == 0:
        return t("es.umap_starting" if method == "UMAP" else "es.starting", method=method)
    if job.step >= job.total:
        return t("es.finishing", method=method, total=job.total)
    return t("es.step", method=method, step=job.step, total=job.total)
