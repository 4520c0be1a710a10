"""Long work a learner starts (training, a projection, an evaluation): submitted to a shared queue, per session."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import streamlit as st

from core.jobs import Job, JobRunner
from core.problems import Problem
from ui.i18n import problem

TRAINING_QUEUE = 12  # training jobs waiting in all; one Train press on the learned page is three jobs


@st.cache_resource
def training_runner() -> JobRunner:
    """One training queue per server process, shared by the pages: the learned page submits to it, the attention
    page reads its finished jobs. One job at a time, results shared by every learner; one Train press (three
    models) per learner in the queue, at most TRAINING_QUEUE jobs waiting in all."""
    return JobRunner(workers=1, per_owner=3, max_waiting=TRAINING_QUEUE)


def session_id() -> str:
    """An id for this browser session, so shared queues can bound what one learner asks for."""
    return st.session_state.setdefault("_session_id", uuid.uuid4().hex)


def submit(runner, key, work, total: int, refused_key: str) -> None:
    """Submit a job for this session; a refusal (queue bounds) is kept in state[refused_key] for the page to show."""
    st.session_state.pop(refused_key, None)
    try:
        runner.submit(key, work, total, owner=session_id())
    except Problem as err:
        st.session_state[refused_key] = problem(err)


@st.fragment(run_every=1.0)
def job_progress(runner, key, describe: Callable[[Job], str], draw: Callable[[Job], None] | None = None) -> None:
    """A job's progress bar, redrawn every second in a fragment; a full rerun once the job is done, so that the
    page shows its result.

    Args:
        describe: the bar's text for the job as it is now (waiting, starting, at step n of total).
        draw: what to show under the bar while the job runs (t-SNE's latest intermediate layout), or None.
    """
    job = runner.get(key)
    if job is None or job.done:
        st.rerun()
    st.progress(job.step / job.total if job.started else 0.0, text=describe(job))
    if draw is not None and job.started:
        draw(job)
