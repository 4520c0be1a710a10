"""The embedding space at scale: thousands of words, PCA / t-SNE / UMAP, search and isolate (seed 004, 4.3)."""

import functools
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from core import cloud, neighbours
from core.cloud import GROUPS, METHODS, SIZES, CloudConfig
from core.jobs import Job, JobRunner
from core.problems import Problem
from core.vectors import WordVectors, lookup_words, resolve_word
from figures.cloud import cloud_figure
from figures.neighbours import frames_figure, kept_figure, sweep_figure
from ui.caching import page_cache_data
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import problem, t
from ui.jobs import QUEUES, job_progress, job_runner, refusal_notice, submit
from ui.link import IN_LINK, translated_choice
from ui.parse import parse_number
from ui.tables import downloads, table
from ui.vectors import choose_vectors

SIZE = 5000  # the cloud's words at first: enough to show clusters, drawn at once by PCA
GROUPS_SHOWN = ["animals", "countries", "capitals", "numbers"]  # the ready-made groups coloured at first
NEIGHBOURS_K = (1, 50, 10)  # the search's k: least, most, default
SEEDS = (0, 2**31 - 1)  # numpy's random seeds
PERPLEXITIES = (1.0, 5000.0)  # the box's ends; CloudConfig.problem_with says what suits a cloud of n points
LEARNING_RATES = (0, 10, 50, 100, 200, 500, 1000, 2000)  # 0: openTSNE's auto
ITERATIONS = (300, 500, 750, 1000, 1500, 2000)  # each above cloud.EXAGGERATION_ITERS
N_NEIGHBORS = (2, 5000)
MIN_DISTS = (0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.8, 0.99)
LAYOUT_EVERY = 50  # t-SNE's intermediate layouts kept while it runs: one every 50 iterations
SWEEP_DATA = ("sizes", "gaps", "cloud")  # core.neighbours.DEMOS, then the page's own cloud
MOST_PANELS = 4  # the sweep's small multiples: each one is a whole t-SNE run


def runner() -> JobRunner:
    """The projection queue (t-SNE, UMAP, the sweep): one at a time, results shared by every learner."""
    return job_runner("projections")


@st.cache_resource(max_entries=16)
def pca_coords(_wv: WordVectors, _rows: list[int], cloud_id: tuple, dims: int) -> np.ndarray:
    return cloud.project(_wv.vectors[_rows].cpu().numpy(), CloudConfig("PCA", dims))


@st.cache_resource
def layouts() -> dict[tuple, list[tuple[int, np.ndarray]]]:
    """t-SNE's intermediate layouts per projection job (core.neighbours.layouts_every), kept while runner() keeps
    the job: the progress fragment draws the latest, the replay all of them."""
    return {}


def start(key: tuple, x: np.ndarray, cfg: CloudConfig) -> None:
    kept, snapshot = neighbours.layouts_every(LAYOUT_EVERY)
    store = layouts()
    for old in [k for k in store if runner().get(k) is None]:
        del store[old]
    store[key] = kept
    work = functools.partial(cloud.project, x, cfg, snapshot=snapshot if cfg.method == "t-SNE" else None)
    submit(runner(), [(key, lambda progress: work(progress=progress), cfg.steps(len(x)))], "es_refused")


@page_cache_data(max_entries=8)
def kept_counts(_wv: WordVectors, _rows: list[int], cloud_id: tuple, cfg: CloudConfig, k: int, _coords) -> np.ndarray:
    """(n,) how many of each word's k neighbours the projection `cfg` of these rows kept: once per projection."""
    return neighbours.preservation(_wv.vectors[_rows].cpu().numpy(), _coords, k).kept


@page_cache_data(max_entries=8)
def trust(_wv: WordVectors, _rows: list[int], cloud_id: tuple, cfg: CloudConfig, k: int, _coords) -> float:
    return neighbours.trustworthiness(_wv.vectors[_rows].cpu().numpy(), _coords, k)


def draw_latest(job: Job, words: list[str], roles: dict, axis_titles: tuple[str, ...]) -> None:
    """Inside the progress fragment: the latest intermediate layout of a running t-SNE."""
    if not (kept := layouts().get(job.key)):
        return
    iteration, xy = kept[-1]
    st.plotly_chart(cloud_figure(xy, words, **roles, axis_titles=axis_titles), key="es_snapshot")
    st.caption(t("es.snapshot", iteration=iteration, total=job.total, exaggerated=cloud.EXAGGERATION_ITERS))


def start_sweep(key: tuple, x: np.ndarray, cfg: CloudConfig, perplexities: tuple[float, ...]) -> None:
    work = functools.partial(neighbours.perplexity_sweep, x, cfg, perplexities)
    total = len(perplexities) * cfg.iterations
    submit(runner(), [(key, lambda progress: work(progress=progress), total)], "es_sweep_refused")


def describe(method: str, job: Job) -> str:
    """The progress bar's text for a projection: deferred behind the learner's own run, waiting, UMAP's start
    (neighbours, compiling), or its step."""
    if job.deferred:
        return t("es.deferred", method=method)
    if not job.started:
        return t("es.waiting", method=method, n=runner().ahead(job.key))
    if job.step == 0 and method == "UMAP":
        return t("es.umap_starting")
    return t("es.step", method=method, step=job.step, total=job.total)


def read_perplexities(text: str) -> tuple[float, ...]:
    """The sweep's box, "5, 30, 100" -> (5.0, 30.0, 100.0); ValueError with a message a learner can act on."""
    example = ", ".join(f"{p:g}" for p in neighbours.SWEEP)
    values = tuple(parse_number(part, t("es.sweep"), example) for part in text.split(",") if part.strip())
    if not 1 <= len(values) <= MOST_PANELS:
        raise ValueError(t("es.sweep_count", most=MOST_PANELS, n=len(values), example=example))
    return values


st.title(t("es.title"))
st.markdown(t("es.intro"))
wv, source_key = choose_vectors("es")

# --- 1. The cloud ---------------------------------------------------------------------------------------
st.header(t("es.h_cloud"))
c1, c2 = st.columns(2)
size = c1.select_slider(t("es.size"), SIZES, SIZE, key="es_size", **IN_LINK)
look = lookup_words(wv, c2.text_input(t("es.words"), "man, woman, king, queen", key="es_words", **IN_LINK))
if look.unknown:
    c2.warning(t("we.unknown_rest_shown", words=", ".join(look.unknown)))
if look.left_out:
    c2.warning(t("we.left_out", most=len(look.found), n=len(look.left_out), words=", ".join(look.left_out)))
if size > len(wv):
    st.warning(t("es.too_big", name=wv.name, n=len(wv), size=size))

st.subheader(t("es.h_colour"))
c1, c2 = st.columns(2)
# The boxes show the groups' names as core has them (like the words they hold): a bound multiselect puts its
# options' texts into the link, which must open in either language. The legend names them in the reader's.
picked = c1.multiselect(
    t("es.groups"), list(GROUPS), GROUPS_SHOWN, key="es_groups", placeholder=t("es.groups_placeholder"), **IN_LINK
)
own = c2.text_area(t("es.own_groups"), "", key="es_own_groups", placeholder=t("es.own_placeholder"), **IN_LINK)
named = {t(f"es.group_{name.replace(' ', '_')}"): list(GROUPS[name]) for name in picked}
groups = cloud.resolve_groups(wv, named | cloud.parse_groups(own))
if groups.malformed:
    c2.warning(t("es.malformed", words=" ".join(groups.malformed)))
if groups.unknown:
    c2.info(t("es.group_unknown", words=", ".join(groups.unknown)))

st.subheader(t("es.h_find"))
c1, c2, c3 = st.columns([2, 2, 1])
typed = c1.text_input(t("we.word"), "", key="es_find", placeholder="queen", **IN_LINK)
k = c2.slider(t("es.k"), *NEIGHBOURS_K, key="es_k", **IN_LINK)
isolate = c3.toggle(t("es.isolate"), False, key="es_isolate", help=t("es.isolate_help"), **IN_LINK)
found = resolve_word(wv, typed) if typed.strip() else None
try:
    near = cloud.neighbours(wv, found, k) if found else []
except Problem as err:  # the word's vector is all zeros: cosine is 0/0
    st.error(problem(err))
    near = []
if typed.strip() and found is None:
    close = cloud.suggest(wv, typed)
    st.warning(
        t("we.not_in_vocabulary", word=repr(typed.strip()))
        + " "
        + (t("es.did_you_mean", words=", ".join(close)) if close else t("es.no_close"))
    )

# --- 2. Projection --------------------------------------------------------------------------------------
st.header(t("es.h_projection"))
c1, c2, c3, c4 = st.columns(4)
method = c1.radio(
    t("es.method"), METHODS, METHODS.index(CloudConfig.method), key="es_method", horizontal=True, **IN_LINK
)
dims = int(c1.radio(t("we.dims"), ("2D", "3D"), CloudConfig.dims - 2, key="es_dims", horizontal=True, **IN_LINK)[0])
seed = c1.number_input(t("es.seed"), *SEEDS, CloudConfig.seed, step=1, key="es_seed", **IN_LINK)
if method == "t-SNE":
    perplexity = c2.number_input(
        t("es.perplexity"), *PERPLEXITIES, CloudConfig.perplexity, step=1.0, format="%g", key="es_perplexity", **IN_LINK
    )
    rate = c3.select_slider(
        t("es.learning_rate"), LEARNING_RATES, CloudConfig.learning_rate, key="es_learning_rate", **IN_LINK
    )
    iterations = c4.select_slider(
        t("es.iterations"), ITERATIONS, CloudConfig.iterations, key="es_iterations", **IN_LINK
    )
    settings = dict(perplexity=float(perplexity), learning_rate=float(rate), iterations=iterations)
elif method == "UMAP":
    n_neighbors = c2.number_input(
        t("es.n_neighbors"), *N_NEIGHBORS, CloudConfig.n_neighbors, key="es_n_neighbors", **IN_LINK
    )
    min_dist = c3.select_slider("min_dist", MIN_DISTS, CloudConfig.min_dist, key="es_min_dist", **IN_LINK)
    settings = dict(n_neighbors=int(n_neighbors), min_dist=float(min_dist))
else:
    settings = {}
try:
    cfg = CloudConfig(method, dims, seed=int(seed), **settings)
except Problem as err:  # settings no cloud accepts (the widgets' ranges keep them out; core says so anyway)
    st.error(t("es.invalid", problem=problem(err)))
    cfg = CloudConfig("PCA", dims)
st.caption(t(f"es.caveat_{method.replace('-', '')}"))

shown = dict.fromkeys(look.found + [w for ws in groups.words.values() for w in ws])
extra = list(shown) + ([found] if found else []) + [w for w, _ in near]
rows, added = cloud.cloud_rows(wv, size, extra)
n_frequent = len(rows) - added
# The cloud's rows for a cache key: the n most frequent, then the few added ones (cloud_rows). Streamlit's hash of
# every row would cost more than the rest of a rerun's cached lookups (benchmarks/honesty.py).
cloud_id = (source_key, n_frequent, tuple(rows[n_frequent:]))
words = [wv.itos[r] for r in rows]
index = {w: i for i, w in enumerate(words)}
roles = dict(
    chosen=[index[w] for w in look.found],
    groups={name: [index[w] for w in ws] for name, ws in groups.words.items()},
    legend={role: t(f"es.legend_{role}") for role in ("cloud", "chosen", "neighbours", "found")},
)
st.markdown(
    t("es.count", n=len(rows), frequent=n_frequent, name=wv.name)
    + (t("es.count_added", added=added) if added else "")
    + t("es.no_sampling")
)

if invalid := cfg.problem_with(len(rows), wv.dim):
    st.error(t("es.invalid", problem=problem(invalid)))
    cfg = CloudConfig("PCA", dims)
axis_titles = tuple(f"{cfg.method} {i + 1}" for i in range(dims))
coords = key = None
if cfg.problem_with(len(rows), wv.dim):
    pass  # too few words or dimensions even for PCA: said above
elif cfg.method == "PCA":
    try:
        coords = pca_coords(wv, rows, cloud_id, dims)
    except Problem as err:  # every vector of the cloud the same
        st.error(problem(err))
else:
    key = (source_key, tuple(rows), cfg)
    job = runner().get(key)
    if job is None or job.error:
        if job is not None:
            st.error(t("es.failed", method=cfg.method, error=job.error))
        st.button(
            t("es.run", method=cfg.method, n=len(rows)),
            key="es_run",
            type="primary",
            on_click=start,
            args=(key, wv.vectors[rows].cpu().numpy(), cfg),
        )
        st.caption(t("es.slow", method=cfg.method, queue=QUEUES["projections"]["max_waiting"]))
        refusal_notice(runner(), "es_refused")
    elif not job.done:
        latest = functools.partial(draw_latest, words=words, roles=roles, axis_titles=axis_titles)
        job_progress(runner(), key, functools.partial(describe, cfg.method), latest)
    else:
        coords = job.result

# --- 3. The plot, and how honest it is -------------------------------------------------------------------
st.header(t("es.h_honest"))
if coords is None:
    st.caption(t("es.honest_later"))
    if found:
        table(pd.DataFrame(near, columns=["word", "cosine"]).set_index("word"), "neighbours", plain=True)
else:
    c1, c2, c3, c4 = st.columns(4)
    kept_k = c1.number_input(t("es.kept_k"), 1, neighbours.MAX_K, neighbours.K, key="es_kept_k", **IN_LINK)
    by_kept = c2.toggle(t("es.colour_kept"), False, key="es_colour_kept", help=t("es.colour_kept_help"), **IN_LINK)
    if len(rows) - 1 < kept_k:  # a small vectors file: every other point is a neighbour
        kept_k = max(len(rows) - 1, 1)
        st.info(t("es.kept_k_lowered", k=kept_k, n=len(rows)))
    measure = (rows, cloud_id, cfg, kept_k, coords)  # cached per projection and k
    kept = None
    if bad := neighbours.check_k(kept_k, len(rows)):
        st.error(problem(bad))
    else:
        kept = kept_counts(wv, *measure)
        c3.metric(t("es.kept_share", k=kept_k), f"{kept.mean() / kept_k:.1%}", help=t("es.kept_share_help"))
    if bad := neighbours.check_trustworthiness(kept_k, len(rows)):
        st.warning(problem(bad))
    else:
        c4.metric(t("es.trust", k=kept_k), f"{trust(wv, *measure):.3f}", help=t("es.trust_help"))
    revision = f"{source_key}:{cfg}:{len(rows)}"
    if by_kept and kept is not None:
        fig = kept_figure(
            coords, words, kept, kept_k, t("es.kept_title", k=kept_k), t("es.kept_colour"), revision=revision
        )
        drawn = len(coords)
    else:
        fig = cloud_figure(
            coords,
            words,
            **roles,
            found=index[found] if found else None,
            neighbours=[index[w] for w, _ in near],
            isolate=isolate and found is not None,
            axis_titles=axis_titles,
            revision=revision,
        )
        drawn = sum(len(trace.hovertext) for trace in fig.data)
    left, right = st.columns([3, 1]) if found else (st.container(), None)
    left.plotly_chart(fig, key="es_plot")
    left.caption(
        t("es.drawn", n=drawn)
        + (t("es.drawn_isolated", word=found, k=len(near)) if drawn < len(rows) else "")
        + t("es.hover")
    )
    if right is not None:
        right.markdown(t("es.nearest", word=found, dim=wv.dim))
        table(pd.DataFrame(near, columns=["word", "cosine"]).set_index("word"), "neighbours", where=right, plain=True)
    explain(
        r"\text{kept}_k(i) = \frac{|N_k(x_i) \cap N_k(y_i)|}{k} \qquad "
        r"T(k) = 1 - \frac{2}{nk(2n-3k-1)} \sum_{i=1}^{n} \sum_{j \in U_k(i)} \big(r(i,j) - k\big)",
        t("es.kept_notice"),
    )
    show_code(
        neighbours.preservation, neighbours.cosine_neighbours, neighbours.trustworthiness, figure=t("es.code_honest")
    )
    frames = layouts().get(key, []) if key else []
    if len(frames) > 1 and dims == 2 and st.toggle(t("es.replay"), False, key="es_replay", **IN_LINK):
        replay = frames_figure(frames, words, t("es.replay_title", every=LAYOUT_EVERY), t("es.iteration"))
        st.plotly_chart(replay, key="es_replay_plot")
        explain(
            r"\frac{\partial C}{\partial y_i} = 4 \sum_{j} \left(\alpha\, p_{ij} - q_{ij}\right)(y_i - y_j)"
            r"\left(1 + \lVert y_i - y_j \rVert^2\right)^{-1}",
            t("es.replay_notice", exaggerated=cloud.EXAGGERATION_ITERS),
        )
        show_code(neighbours.layouts_every, cloud._tsne)
    downloads(
        f"cloud_{cfg.method.lower()}_{len(rows)}",
        frame=pd.DataFrame(
            coords, index=pd.Index(words, name="word"), columns=[f"{cfg.method}_{i + 1}" for i in range(dims)]
        ),
    )

show_code(cloud.cloud_rows, cloud.project, cloud.neighbours, figure=t("es.code_cloud"))

# --- 4. A perplexity sweep --------------------------------------------------------------------------------
st.header(t("es.h_sweep"))
c1, c2 = st.columns(2)
data = translated_choice(
    c1.radio,
    t("es.sweep_data"),
    SWEEP_DATA,
    key="es_sweep_data",
    format_func=lambda d: t(f"es.sweep_{d}"),
    horizontal=True,
)
typed_sweep = c2.text_input(t("es.sweep"), ", ".join(f"{p:g}" for p in neighbours.SWEEP), key="es_sweep", **IN_LINK)
sweep_cfg = replace(cfg, dims=2) if cfg.method == "t-SNE" else CloudConfig("t-SNE", 2, seed=int(seed))
demo, labels = neighbours.demo_clusters(data) if data != "cloud" else (None, None)
n_sweep = len(rows) if demo is None else len(demo)
st.caption(t("es.sweep_about", n=n_sweep, iterations=sweep_cfg.iterations, seed=sweep_cfg.seed))
try:
    perplexities = read_perplexities(typed_sweep)
except ValueError as err:
    st.error(str(err))
    perplexities = ()
if perplexities and (bad := neighbours.check_sweep(sweep_cfg, perplexities, n_sweep)):
    st.error(problem(bad))
    perplexities = ()
if perplexities:
    sweep_key = ("sweep", data, (source_key, tuple(rows)) if demo is None else None, sweep_cfg, perplexities)
    job = runner().get(sweep_key)
    if job is None or job.error:
        if job is not None:
            st.error(t("es.failed", method="t-SNE", error=job.error))
        points = wv.vectors[rows].cpu().numpy() if demo is None else demo
        st.button(
            t("es.sweep_run", n=len(perplexities), points=n_sweep),
            key="es_sweep_run",
            on_click=start_sweep,
            args=(sweep_key, points, sweep_cfg, perplexities),
        )
        refusal_notice(runner(), "es_sweep_refused")
    elif not job.done:
        job_progress(runner(), sweep_key, functools.partial(describe, "t-SNE"))
    else:
        panels = {t("es.panel", perplexity=f"{p:g}"): xy for p, xy in zip(perplexities, job.result, strict=True)}
        hover = words if demo is None else [t("es.cluster", n=int(c) + 1) for c in labels]
        names = None if labels is None else [t("es.cluster", n=c + 1) for c in range(int(labels.max()) + 1)]
        fig = sweep_figure(panels, hover, t(f"es.sweep_{data}"), groups=labels, group_names=names)
        st.plotly_chart(fig, key="es_sweep_plot")
explain(r"\mathrm{Perp}(P_i) = 2^{H(P_i)}, \quad H(P_i) = -\sum_j p_{j|i} \log_2 p_{j|i}", t("es.sweep_notice"))
show_code(neighbours.perplexity_sweep, neighbours.demo_clusters)

# --- Try this ---------------------------------------------------------------------------------------
try_this("es", wv)
