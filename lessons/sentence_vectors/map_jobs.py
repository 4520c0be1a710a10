"""Chapter 4's projections of the shipped sentences: PCA in the rerun; t-SNE and UMAP as jobs in the shared projection
queue (ui.jobs' "projections", the embedding space page's too), run once per server for each vector space and
settings, whoever pressed Run, each in a child process (core.jobs.in_child), which leaves the server's GIL to its
learners."""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

from core.cloud import CloudConfig, project_in_steps
from core.jobs import JobRunner, in_child
from lessons.sentence_vectors import views
from ui.i18n import t
from ui.jobs import QUEUES, describe_projection, held, job_progress, job_runner, refusal_notice, submit


def runner() -> JobRunner:
    """The projection queue: one job at a time per server, results shared by every learner."""
    return job_runner("projections")


def map_coords(space: str, cfg: CloudConfig) -> np.ndarray | None:
    """(n, 2) the collection on the map when there are coordinates: PCA at once; t-SNE or UMAP once its job is done,
    until then its Run button, or its progress bar."""
    if cfg.method == "PCA":
        return views.pca_map(space)[0]
    key = ("sv_map", space, cfg)
    job = held(runner(), key)
    if job is not None and job.done and not job.error:
        return job.result
    if job is not None and not job.done:
        job_progress(runner(), key, functools.partial(describe_projection, cfg.method))
        return None
    if job is not None:
        st.error(t("es.failed", method=cfg.method, error=job.error))
    x = views.collection_array(space)
    work = [(key, in_child(project_in_steps, x, cfg), cfg.steps(len(x)))]  # a child process: as the embedding space's
    run = t("es.run", method=cfg.method, n=len(x))
    st.button(run, key="sv_run", type="primary", on_click=submit, args=(runner(), work, "sv_refused"))
    st.caption(t("es.slow", method=cfg.method, queue=QUEUES["projections"]["max_waiting"]))
    refusal_notice(runner(), "sv_refused")
    return None
