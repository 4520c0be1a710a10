"""The embedding space at scale: thousands of words, PCA / t-SNE / UMAP, search and isolate (seed 004, 4.3)."""

import numpy as np
import pandas as pd
import streamlit as st

from core import cloud
from core.cloud import GROUPS, METHODS, SIZES, CloudConfig
from core.glove import WordVectors, lookup_words, resolve_word
from core.jobs import JobRunner
from figures.cloud import cloud_figure
from ui import choose_vectors, set_defaults, show_code

DEFAULTS = dict(
    size=5000,
    words="man, woman, king, queen",
    method="PCA",
    dims="2D",
    perplexity=30,
    learning_rate=0,
    iterations=750,
    n_neighbors=15,
    min_dist=0.1,
    seed=0,
    groups=["animals", "countries", "capitals", "numbers"],
    own_groups="",
    find="",
    k=10,
    isolate=False,
)
CAVEATS = {
    "PCA": "PCA is linear and keeps distances along the axes it keeps, but it keeps two or three of the table's dimensions.",
    "t-SNE": "t-SNE keeps neighbourhoods, not distances: the size of a cluster and the gaps between clusters mean little.",
    "UMAP": "UMAP keeps neighbourhoods and some global layout, but distances between clusters are still only roughly meaningful.",
}


@st.cache_resource
def runner() -> JobRunner:
    """One projection queue per server process: one t-SNE or UMAP at a time, results shared by every learner."""
    return JobRunner(workers=1, keep=32)


@st.cache_resource(max_entries=16)
def pca_coords(_wv: WordVectors, source: str, rows: tuple[int, ...], dims: int) -> np.ndarray:
    return cloud.project(_wv.vectors[list(rows)].cpu().numpy(), CloudConfig("PCA", dims))


def start(key: tuple, x: np.ndarray, cfg: CloudConfig) -> None:
    runner().submit(key, lambda progress: cloud.project(x, cfg, progress), cfg.steps(len(x)))


@st.fragment(run_every=1.0)
def live_progress(key: tuple, method: str) -> None:
    """The running projection's progress; a full rerun draws the plot once it is done."""
    job = runner().get(key)
    if job is None or job.done:
        st.rerun()
    if not job.started:
        st.progress(0.0, text=f"{method}: waiting for {runner().waiting() - 1} other projection(s) to finish")
    elif job.step == 0 and method == "UMAP":
        st.progress(0.0, text="UMAP: finding neighbours (the first UMAP on a server also compiles, about a minute)")
    else:
        st.progress(job.step / job.total, text=f"{method}: step {job.step} of {job.total}")


set_defaults("es", DEFAULTS)

st.title("The embedding space")
st.markdown(
    "Eight words on a plane show an analogy; thousands show the space. Seed 004 (section 4.3) checks an embedding "
    "by projecting it and looking for clusters: cat near dog, good against bad, verbs by tense. Here the most "
    "frequent words of the table, every one drawn and counted, projected three ways."
)
wv, source_key = choose_vectors("es")

# --- 1. The cloud ---------------------------------------------------------------------------------------
st.header("1. The cloud")
c1, c2 = st.columns(2)
size = c1.select_slider("Most frequent words", SIZES, key="es_size")
look = lookup_words(wv, c2.text_input("Chosen words (labelled)", key="es_words"))
if look.unknown:
    c2.warning(f"Not in the vocabulary: {', '.join(look.unknown)}. The other words are still shown.")
if size > len(wv):
    st.warning(f"{wv.name} has only {len(wv):,} words, fewer than the {size:,} asked: the cloud is all of them.")

st.subheader("Colour by")
c1, c2 = st.columns(2)
picked = c1.multiselect("Ready-made groups", list(GROUPS), key="es_groups")
own = c2.text_area(
    "Your own groups, one per line", key="es_own_groups", placeholder="fruit: apple, pear, plum\ncolours: red blue"
)
asked = {name: list(GROUPS[name]) for name in picked} | cloud.parse_groups(own)
groups = cloud.resolve_groups(wv, asked)
if groups.malformed:
    c2.warning("Give each line a name and a colon, like `fruit: apple, pear`; ignored: " + " ".join(groups.malformed))
if groups.unknown:
    c2.info(f"Not in the vocabulary, left out: {', '.join(groups.unknown)}.")

st.subheader("Find a word")
c1, c2, c3 = st.columns([2, 2, 1])
typed = c1.text_input("Word", key="es_find", placeholder="queen")
k = c2.slider("Neighbours (k)", 1, 50, key="es_k")
isolate = c3.toggle("Isolate", key="es_isolate", help="Show only the word and its k nearest neighbours.")
found = resolve_word(wv, typed) if typed.strip() else None
near = cloud.neighbours(wv, found, k) if found else []
if typed.strip() and found is None:
    close = cloud.suggest(wv, typed)
    st.warning(
        f"{typed.strip()!r} is not in the vocabulary."
        + (f" Did you mean {', '.join(close)}?" if close else " No close spelling among the 100,000 most frequent.")
    )

# --- 2. Projection --------------------------------------------------------------------------------------
st.header("2. Projection")
c1, c2, c3, c4 = st.columns(4)
method = c1.radio("Method", METHODS, key="es_method", horizontal=True)
dims = 3 if c1.radio("Dimensions", ["2D", "3D"], key="es_dims", horizontal=True) == "3D" else 2
seed = c1.number_input("Seed", 0, 2**31 - 1, step=1, key="es_seed")
if method == "t-SNE":
    perplexity = c2.number_input("Perplexity", 1, 5000, key="es_perplexity")
    rate = c3.select_slider(
        "Learning rate (0 = auto: points / 12)", [0, 10, 50, 100, 200, 500, 1000, 2000], key="es_learning_rate"
    )
    iterations = c4.select_slider("Iterations", [300, 500, 750, 1000, 1500, 2000], key="es_iterations")
    settings = dict(perplexity=float(perplexity), learning_rate=float(rate), iterations=iterations)
elif method == "UMAP":
    n_neighbors = c2.number_input("Neighbours", 2, 5000, key="es_n_neighbors")
    min_dist = c3.select_slider("min_dist", [0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.8, 0.99], key="es_min_dist")
    settings = dict(n_neighbors=int(n_neighbors), min_dist=float(min_dist))
else:
    settings = {}
cfg = CloudConfig(method, dims, seed=int(seed), **settings)
st.caption(CAVEATS[method])

shown = dict.fromkeys(look.found + [w for ws in groups.words.values() for w in ws])
extra = list(shown) + ([found] if found else []) + [w for w, _ in near]
rows, added = cloud.cloud_rows(wv, size, extra)
n_frequent = len(rows) - added
st.markdown(
    f"**{len(rows):,} points are fitted and drawn**: the {n_frequent:,} most frequent words of {wv.name}"
    + (f", plus {added} chosen, grouped or neighbouring word(s) outside them" if added else "")
    + ". No sampling."
)

problem = cloud.check(cfg, len(rows))
if problem:
    st.error(f"{problem} The plot below shows PCA until the settings are valid.")
    cfg = CloudConfig("PCA", dims)
coords = None
if cfg.method == "PCA":
    coords = pca_coords(wv, source_key, tuple(rows), dims)
else:
    key = (source_key, tuple(rows), cfg)
    job = runner().get(key)
    if job is None or job.error:
        if job is not None:
            st.error(f"The last {cfg.method} run failed ({job.error}); press the button to try again.")
        st.button(
            f"Run {cfg.method} on {len(rows):,} points",
            key="es_run",
            type="primary",
            on_click=start,
            args=(key, wv.vectors[rows].cpu().numpy(), cfg),
        )
        st.caption(
            f"{cfg.method} is slow (for 5,000 words, tens of seconds here): it runs in the background, one at a time "
            "for everyone, and its result is kept for these settings. Leaving the page does not stop it."
        )
    elif not job.done:
        live_progress(key, cfg.method)
    else:
        coords = job.result

# --- 3. The plot and the neighbours ----------------------------------------------------------------------
if coords is not None:
    index = {w: i for i, w in enumerate(wv.itos[r] for r in rows)}
    words = [wv.itos[r] for r in rows]
    fig = cloud_figure(
        coords,
        words,
        chosen=[index[w] for w in look.found],
        groups={name: [index[w] for w in ws] for name, ws in groups.words.items()},
        found=index[found] if found else None,
        neighbours=[index[w] for w, _ in near],
        isolate=isolate and found is not None,
        axis_titles=tuple(f"{cfg.method} {i + 1}" for i in range(dims)),
        revision=f"{source_key}:{cfg}:{len(rows)}",
    )
    drawn = sum(len(t.hovertext) for t in fig.data)
    left, right = st.columns([3, 1]) if found else (st.container(), None)
    left.plotly_chart(fig, key="es_plot")
    left.caption(
        f"Drawn: {drawn:,} points"
        + (f" ({found} and its {len(near)} nearest neighbours, isolated)." if drawn < len(rows) else ".")
        + " Hover a point for its word; drag to zoom, double-click to reset."
    )
    if right is not None:
        right.markdown(f"**Nearest to {found}** (cosine, in the original {wv.dim} dimensions, whole vocabulary)")
        right.table(pd.DataFrame(near, columns=["word", "cosine"]).set_index("word"))
    st.download_button(
        "Download the coordinates (CSV)",
        pd.DataFrame(
            coords, index=pd.Index(words, name="word"), columns=[f"{cfg.method}_{i + 1}" for i in range(dims)]
        ).to_csv(),
        file_name=f"cloud_{cfg.method.lower()}_{len(rows)}.csv",
        key="es_csv",
    )
elif found:
    st.table(pd.DataFrame(near, columns=["word", "cosine"]).set_index("word"))

show_code(cloud.cloud_rows, cloud.project, cloud.neighbours)
