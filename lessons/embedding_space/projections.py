"""The embedding-space page's projections: PCA in the rerun; t-SNE, UMAP and the perplexity sweep as jobs in the
shared projection queue, with t-SNE's intermediate layouts; and the projections of a cloud a learner has drawn."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Hashable
from typing import overload

import numpy as np
import streamlit as st

from core import cloud, neighbours
from core.cloud import METHODS, CloudConfig
from core.jobs import Job, JobRunner, in_child
from core.problems import Problem
from core.vectors import WordVectors
from figures.cloud import cloud_figure
from ui.cache import cached
from ui.i18n import problem, t
from ui.jobs import QUEUES, describe_projection, held, job_progress, job_runner, refusal_notice, submit
from ui.parse import parse_number
from ui.presenter import presented

LAYOUT_EVERY = 50  # t-SNE's intermediate layouts kept while it runs: one every 50 iterations
MOST_PANELS = 4  # the sweep's small multiples: each one is a whole t-SNE run
DRAWN = "_es_drawn"  # session state: (cloud id, {method: the CloudConfig last drawn on that cloud})


def runner() -> JobRunner:
    """The projection queue (t-SNE, UMAP, the sweep): one at a time, results shared by every learner."""
    return job_runner("projections")


@cached(max_entries=16)
def pca_coords(wv: WordVectors, rows: list[int], dims: int) -> np.ndarray:
    """The cloud `rows` of the vectors by PCA in `dims` dimensions: (len(rows), dims), read-only."""
    coords = cloud.project(wv.vectors[rows].cpu().numpy(), CloudConfig("PCA", dims))
    coords.flags.writeable = False
    return coords


Layout = list[tuple[int, np.ndarray]]  # a job's layouts: (iteration, (n, dims) coordinates), as t-SNE made them


class Layouts:
    """t-SNE's intermediate layouts per projection job (core.neighbours.layouts_every), kept while runner() keeps the
    job, and for at most `most` jobs (the oldest let go first): the progress fragment draws the latest, the replay all
    of them. Every learner's session adds and reads them from its own thread: under a lock."""

    def __init__(self, most: int) -> None:
        self._lock = threading.Lock()
        self._kept: dict[Hashable, Layout] = {}
        self.most = most

    def add(self, key: Hashable, kept: Layout, alive: Callable[[Hashable], bool]) -> None:
        """Keep a job's layouts (`kept`, filled as the job runs), letting go of those whose job is not `alive`."""
        with self._lock:
            for old in [k for k in self._kept if not alive(k)]:
                del self._kept[old]
            self._kept.pop(key, None)  # a job asked again goes last
            self._kept[key] = kept
            while len(self._kept) > self.most:
                del self._kept[next(iter(self._kept))]

    @overload
    def get(self, key: Hashable) -> Layout | None: ...
    @overload
    def get(self, key: Hashable, default: Layout) -> Layout: ...

    def get(self, key: Hashable, default: Layout | None = None) -> Layout | None:
        with self._lock:
            return self._kept.get(key, default)

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)


# Not ui.cache.cached, whose results are never changed: a shared store, one per process, under its lock and bound (as
# many jobs as the queue keeps and lets wait).
@st.cache_resource
def layouts() -> Layouts:
    queue = QUEUES["projections"]
    return Layouts(queue["keep"] + queue["max_waiting"])


def start(key: tuple, x: np.ndarray, cfg: CloudConfig) -> None:
    kept, snapshot = neighbours.layouts_every(LAYOUT_EVERY)
    layouts().add(key, kept, alive=lambda k: runner().get(k) is not None)
    # In a child process (core.jobs.in_child): t-SNE's loop and UMAP's epochs hold the GIL, which in a thread of the
    # server kept every learner's page waiting (issue 55); t-SNE's layouts come back to `kept` as it runs.
    work = in_child(cloud.project_in_steps, x, cfg, snapshot=snapshot if cfg.method == "t-SNE" else None)
    submit(runner(), [(key, work, cfg.steps(len(x)))], "es_refused")


def start_sweep(key: tuple, x: np.ndarray, cfg: CloudConfig, perplexities: tuple[float, ...]) -> None:
    work = in_child(neighbours.sweep_in_steps, x, cfg, perplexities)  # a child process, as `start`'s
    submit(runner(), [(key, work, len(perplexities) * cfg.iterations)], "es_sweep_refused")


def projection_ui(
    wv: WordVectors, rows: list[int], source_key: str, cloud_id: tuple, cfg: CloudConfig, draw: Callable[[Job], None]
) -> tuple[np.ndarray | None, tuple | None]:
    """The projection's coordinates when there are some: PCA at once; t-SNE or UMAP once its job is done, until then
    its Run button, or its progress with `draw` under it (t-SNE's latest layout).

    Returns:
        (n, dims) coordinates or None, and the projection job's key (None for PCA).
    """
    if cfg.method == "PCA":
        try:
            return remember(cloud_id, cfg, pca_coords(wv, rows, cfg.dims)), None
        except Problem as err:  # every vector of the cloud the same
            st.error(problem(err))
            return None, None
    key = (source_key, tuple(rows), cfg)
    job = held(runner(), key)
    if job is None or job.error:
        if job is not None:
            st.error(t("es.failed", method=cfg.method, error=job.error))
        x = wv.vectors[rows].cpu().numpy()
        st.button(
            t("es.run", method=cfg.method, n=len(rows)),
            key="es_run",
            type="primary",
            on_click=start,
            args=(key, x, cfg),
        )
        st.caption(t("es.slow", method=cfg.method, queue=QUEUES["projections"]["max_waiting"]))
        refusal_notice(runner(), "es_refused")
    elif not job.done:
        job_progress(runner(), key, functools.partial(describe_projection, cfg.method), draw)
    else:
        return remember(cloud_id, cfg, job.result), key
    return None, key


def remember(cloud_id: tuple, cfg: CloudConfig, coords: np.ndarray) -> np.ndarray:
    """Note that this learner drew `cfg` on this cloud (the last one per method; another cloud starts afresh)."""
    cloud_seen, cfgs = st.session_state.get(DRAWN, (None, {}))
    st.session_state[DRAWN] = (cloud_id, {**(cfgs if cloud_seen == cloud_id else {}), cfg.method: cfg})
    return coords


def drawn_on(wv: WordVectors, rows: list[int], source_key: str, cloud_id: tuple) -> dict[str, tuple]:
    """{method: (its CloudConfig, (n, dims) coordinates)} for each method this learner drew on this cloud, in
    METHODS' order, while its coordinates are kept (a projection job the queue has let go of is left out)."""
    cloud_seen, cfgs = st.session_state.get(DRAWN, (None, {}))
    out = {}
    for method in METHODS if cloud_seen == cloud_id else ():
        if (cfg := cfgs.get(method)) is None:
            continue
        if method == "PCA":
            out[method] = (cfg, pca_coords(wv, rows, cfg.dims))  # drawn before: it projects
        elif (job := held(runner(), (source_key, tuple(rows), cfg))) is not None and job.done and not job.error:
            out[method] = (cfg, job.result)
    return out


def draw_latest(job: Job, words: list[str], roles: dict, axis_titles: tuple[str, ...]) -> None:
    """Inside the progress fragment: the latest intermediate layout of a running t-SNE."""
    if not (kept := layouts().get(job.key)):
        return
    iteration, xy = kept[-1]
    st.plotly_chart(presented(cloud_figure(xy, words, **roles, axis_titles=axis_titles)), key="es_snapshot")
    st.caption(t("es.snapshot", iteration=iteration, total=job.total, exaggerated=cloud.EXAGGERATION_ITERS))


def read_perplexities(text: str) -> tuple[float, ...]:
    """The sweep's box, "5, 30, 100" -> (5.0, 30.0, 100.0); ValueError with a message a learner can act on."""
    example = ", ".join(f"{p:g}" for p in neighbours.SWEEP)
    values = tuple(parse_number(part, t("es.sweep"), example) for part in text.split(",") if part.strip())
    if not 1 <= len(values) <= MOST_PANELS:
        raise ValueError(t("es.sweep_count", most=MOST_PANELS, n=len(values), example=example))
    return values
