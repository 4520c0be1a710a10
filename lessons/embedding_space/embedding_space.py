"""The embedding space at scale: thousands of words, PCA / t-SNE / UMAP, search and isolate (seed 004, 4.3)."""

import functools
from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from core import cloud, neighbours, trustworthiness
from core.cloud import GROUPS, SIZES, CloudConfig
from core.problems import Problem
from core.vectors import lookup_words
from figures.cloud import cloud_figure, labels_figure
from figures.neighbours import frames_figure, kept_figure, sweep_figure
from lessons.embedding_space import found as finding
from lessons.embedding_space import honesty, projections
from lessons.embedding_space.settings import SETTINGS, group_text
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import problem, t
from ui.jobs import describe_projection, job_result
from ui.live_chart import cached_chart
from ui.presenter import presented
from ui.tables import downloads, table
from ui.vectors import choose_vectors, source_name

CLOUD_MOST = SIZES[-1]  # the most words a cloud holds: the frequent ones and the grouped ones outside them together

st.title(t("es.title"))
st.markdown(t("es.intro"))
wv, source_key = choose_vectors(SETTINGS)

# --- 1. The cloud ---------------------------------------------------------------------------------------
st.header(t("es.h_cloud"))
c1, c2 = st.columns(2)
size = SETTINGS["es_size"].draw(c1)
look = lookup_words(wv, SETTINGS["es_words"].draw(c2))
if look.unknown:
    c2.warning(t("we.unknown_rest_shown", words=", ".join(look.unknown)))
if look.left_out:
    c2.warning(t("we.left_out", most=len(look.found), n=len(look.left_out), words=", ".join(look.left_out)))
if size > len(wv):
    st.warning(t("es.too_big", name=source_name(wv), n=len(wv), size=size))

st.subheader(t("es.h_colour"))
c1, c2 = st.columns(2)
# The groups are named in the reader's language, in the box and the legend; the link keeps core's names
# (ui.link.translated_choices: a bound multiselect would write the translated names, and a link open in one language).
picked = SETTINGS["es_groups"].draw(c1, format_func=group_text, placeholder=t("es.groups_placeholder"))
own = SETTINGS["es_own_groups"].draw(c2, placeholder=t("es.own_placeholder"))
named = {group_text(name): list(GROUPS[name]) for name in picked}
groups = cloud.resolve_groups(wv, named | cloud.parse_groups(own))
if groups.malformed:
    c2.warning(t("es.malformed", words=" ".join(groups.malformed)))
if groups.unknown:
    c2.info(t("es.group_unknown", words=", ".join(groups.unknown)))
groups, past = cloud.cap_groups(wv, groups, size, look.found, CLOUD_MOST)
if past:
    c2.warning(
        t("es.groups_over_cap", most=CLOUD_MOST, frequent=min(size, len(wv)), n=len(past), words=", ".join(past))
    )

# --- 2. Projection --------------------------------------------------------------------------------------
st.header(t("es.h_projection"))
c1, c2, c3, c4 = st.columns(4)
method = SETTINGS["es_method"].draw(c1, horizontal=True)
dims = int(SETTINGS["es_dims"].draw(c1, horizontal=True)[0])
seed = SETTINGS["es_seed"].draw(c1)
if method == "t-SNE":
    perplexity = SETTINGS["es_perplexity"].draw(c2, format="%g")
    rate = SETTINGS["es_learning_rate"].draw(c3)
    iterations = SETTINGS["es_iterations"].draw(c4)
    settings = dict(perplexity=float(perplexity), learning_rate=float(rate), iterations=iterations)
elif method == "UMAP":
    n_neighbors = SETTINGS["es_n_neighbors"].draw(c2)
    min_dist = SETTINGS["es_min_dist"].draw(c3)
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
rows, added = cloud.cloud_rows(wv, size, list(shown))  # never the found words: a find leaves the cloud as it is
n_frequent = len(rows) - added
# The cloud, in short, for the honesty jobs' keys and the session's record of the projections drawn on it: the n most
# frequent rows, then the few added ones (cloud_rows). The cached views are keyed by the rows themselves (ui.cache).
cloud_id = (source_key, n_frequent, tuple(rows[n_frequent:]))
words = [wv.itos[r] for r in rows]
index = {w: i for i, w in enumerate(words)}
roles: dict[str, Any] = dict(  # cloud_figure's keywords: the chosen words, the groups, the legend's names
    chosen=[index[w] for w in look.found],
    groups={name: [index[w] for w in ws] for name, ws in groups.words.items()},
    legend={role: t(f"es.legend_{role}") for role in ("cloud", "chosen", "neighbours", "found")},
)
st.markdown(
    t("es.count", n=len(rows), frequent=n_frequent, name=source_name(wv))
    + (t("es.count_added", added=int(added)) if added else "")
    + t("es.no_sampling")
)

if invalid := cfg.problem_with(len(rows), wv.dim):
    st.error(t("es.invalid", problem=problem(invalid)))
    cfg = CloudConfig("PCA", dims)
axis_titles = tuple(f"{cfg.method} {i + 1}" for i in range(dims))
revision = f"{source_key}:{cfg}:{len(rows)}"  # the plot's revision; with what it shows, its charts' cache key
inputs = (revision, cloud_id, cfg, tuple(look.found), tuple((n, tuple(ws)) for n, ws in groups.words.items()))
coords = key = None
if not cfg.problem_with(len(rows), wv.dim):  # too few words or dimensions even for PCA: said above
    latest = functools.partial(projections.draw_latest, words=words, roles=roles, axis_titles=axis_titles)
    coords, key = projections.projection_ui(wv, rows, source_key, cloud_id, cfg, latest)

# --- 3. The plot, and how honest it is -------------------------------------------------------------------
st.header(t("es.h_honest"))
kept = None
if coords is None:
    st.caption(t("es.honest_later"))
else:
    c1, c2, c3, c4 = st.columns(4)
    kept_k = SETTINGS["es_kept_k"].draw(c1)
    by_kept = SETTINGS["es_colour_kept"].draw(c2)
    kept_k = honesty.fit_k(kept_k, len(rows))
    kept = honesty.measures_ui(wv, rows, cloud_id, cfg, kept_k, coords, [c3, c4])


# A find changes the highlight, the neighbours' table and nothing else, so the search and the plot are a fragment: a
# find reruns this part alone (the browser writes the URL), and the cloud's text under the highlight is the same.
@st.fragment
def find_section() -> None:
    st.subheader(t("es.h_find"))
    c1, c2, c3 = st.columns([2, 2, 1])
    typed = SETTINGS["es_find"].draw(c1, placeholder="queen")
    k = SETTINGS["es_k"].draw(c2)
    isolate = SETTINGS["es_isolate"].draw(c3)
    found, near = finding.lookup(wv, typed, k)
    if coords is None:
        if found:
            table(pd.DataFrame(near, columns=["word", "cosine"]).set_index("word"), "neighbours", plain=True)
        return
    spot = finding.place(wv, rows, cfg, coords, [found, *(w for w, _ in near)] if found else [])
    highlight = functools.partial(
        cloud_figure,
        spot.coords,
        spot.words,
        found=0 if found in spot.words else None,
        neighbours=range(found in spot.words, len(spot.words)),
        isolate=True,
        axis_titles=axis_titles,
        revision=revision,
        legend=roles["legend"],
    )
    left, right = st.columns([3, 1]) if found else (st.container(), None)
    colour_kept = by_kept and kept is not None
    if isolate and found is not None and not spot.words and not colour_kept:  # t-SNE, UMAP: none of them in the cloud
        left.info(t("es.isolate_none", word=found, method=cfg.method))
    isolated = isolate and bool(spot.words) and not colour_kept
    with left:
        if colour_kept and kept is not None:
            title = (t("es.kept_title", k=kept_k), t("es.kept_colour"))
            fig = functools.partial(kept_figure, coords, words, kept, kept_k, *title, revision=revision)
            cached_chart("es_plot", fig)
        elif isolated:
            cached_chart("es_plot", highlight)
        else:  # over the cloud, the groups' labels, or a find instead of them (they would cover it)
            whole = functools.partial(
                cloud_figure, coords, words, **roles, labels=False, axis_titles=axis_titles, revision=revision
            )
            names_over = functools.partial(labels_figure, coords, words, chosen=roles["chosen"], groups=roles["groups"])
            cached_chart("es_plot", whole, highlight if spot.words else names_over)
    drawn = len(spot.words) if isolated else len(coords)
    isolated_said = t("es.drawn_isolated", word=found, k=len(near)) if drawn < len(rows) else ""
    left.caption(t("es.drawn", n=drawn) + isolated_said + t("es.hover"))
    if spot.projected:
        left.caption(t("es.found_projected", words=", ".join(spot.projected)))
    if spot.unplaced:
        left.caption(t("es.found_unplaced", words=", ".join(spot.unplaced), method=cfg.method))
    if right is not None:
        right.markdown(t("es.nearest", word=found, dim=wv.dim))
        table(pd.DataFrame(near, columns=["word", "cosine"]).set_index("word"), "neighbours", where=right, plain=True)


find_section()
if coords is not None:
    explain(
        r"\text{kept}_k(i) = \frac{|N_k(x_i) \cap N_k(y_i)|}{k} \qquad "
        r"T(k) = 1 - \frac{2}{nk(2n-3k-1)} \sum_{i=1}^{n} \sum_{j \in U_k(i)} \big(r(i,j) - k\big)",
        t("es.kept_notice"),
    )
    show_code(
        neighbours.preservation,
        neighbours.cosine_neighbours,
        trustworthiness.original_ranks,
        figure=t("es.code_honest"),
    )
    frames = projections.layouts().get(key, []) if key else []
    if len(frames) > 1 and dims == 2 and SETTINGS["es_replay"].draw():
        replay = frames_figure(frames, words, t("es.replay_title", every=projections.LAYOUT_EVERY), t("es.iteration"))
        st.plotly_chart(presented(replay), key="es_replay_plot")
        explain(
            r"\frac{\partial C}{\partial y_i} = 4 \sum_{j} \left(\alpha\, p_{ij} - q_{ij}\right)(y_i - y_j)"
            r"\left(1 + \lVert y_i - y_j \rVert^2\right)^{-1}",
            t("es.replay_notice", exaggerated=cloud.EXAGGERATION_ITERS) + honesty.replay_said(frames),
        )
        show_code(neighbours.layouts_every, cloud._tsne)
    downloads(
        f"cloud_{cfg.method.lower()}_{len(rows)}",
        frame=pd.DataFrame(
            coords, index=pd.Index(words, name="word"), columns=[f"{cfg.method}_{i + 1}" for i in range(dims)]
        ),
    )
    if SETTINGS["es_curve"].draw():
        honesty.curves_ui(wv, rows, cloud_id, projections.drawn_on(wv, rows, source_key, cloud_id))
        show_code(neighbours.honesty_curve, figure=t("es.code_curve"))

show_code(cloud.cloud_rows, cloud.project, cloud.neighbours, figure=t("es.code_cloud"))

# --- 4. A perplexity sweep --------------------------------------------------------------------------------
st.header(t("es.h_sweep"))
c1, c2 = st.columns(2)
data = SETTINGS["es_sweep_data"].draw(c1, horizontal=True)
typed_sweep = SETTINGS["es_sweep"].draw(c2)
sweep_cfg = replace(cfg, dims=2) if cfg.method == "t-SNE" else CloudConfig("t-SNE", 2, seed=int(seed))
demo, labels = neighbours.demo_clusters(data) if data != "cloud" else (None, None)
n_sweep = len(rows) if demo is None else len(demo)
st.caption(t("es.sweep_about", n=n_sweep, iterations=sweep_cfg.iterations, seed=sweep_cfg.seed))
try:
    perplexities = projections.read_perplexities(typed_sweep)
except ValueError as err:
    st.error(str(err))
    perplexities = ()
if perplexities and (bad := neighbours.check_sweep(sweep_cfg, perplexities, n_sweep)):
    st.error(problem(bad))
    perplexities = ()
sweep_said = ""  # the sweep's ratios in words, once its panels are drawn
if perplexities:
    sweep_key = ("sweep", data, (source_key, tuple(rows)) if demo is None else None, sweep_cfg, perplexities)
    swept = job_result(  # the cloud's points are read on a press only
        projections.runner(), sweep_key,
        lambda: projections.start_sweep(
            sweep_key, wv.vectors[rows].cpu().numpy() if demo is None else demo, sweep_cfg, perplexities
        ),
        label=t("es.sweep_run", n=len(perplexities), points=n_sweep), button_key="es_sweep_run",
        refused_key="es_sweep_refused", describe=functools.partial(describe_projection, "t-SNE"),
        failed=lambda error: t("es.failed", method="t-SNE", error=error),
    )  # fmt: skip
    if swept is not None:
        panels = {t("es.panel", perplexity=f"{p:g}"): xy for p, xy in zip(perplexities, swept, strict=True)}
        hover = words if labels is None else [t("es.cluster", n=int(c) + 1) for c in labels]
        names = None if labels is None else [t("es.cluster", n=c + 1) for c in range(int(labels.max()) + 1)]
        fig = sweep_figure(panels, hover, t(f"es.sweep_{data}"), groups=labels, group_names=names)
        st.plotly_chart(presented(fig), key="es_sweep_plot")
        sweep_said = honesty.sweep_said(data, perplexities, swept, labels)
explain(
    r"\mathrm{Perp}(P_i) = 2^{H(P_i)}, \quad H(P_i) = -\sum_j p_{j|i} \log_2 p_{j|i}",
    t("es.sweep_notice") + sweep_said,
)
show_code(neighbours.perplexity_sweep, neighbours.demo_clusters)

# --- Try this ---------------------------------------------------------------------------------------
try_this("es", wv)
