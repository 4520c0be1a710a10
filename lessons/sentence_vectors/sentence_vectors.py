"""Sentence vectors: one vector per sentence (a GloVe mean, MiniLM's), what it keeps of the word order, search, a map."""

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from core import claims, minilm, neighbours, sentences, trustworthiness
from core.cloud import CloudConfig
from core.glove import VectorsError
from core.pretrained import PretrainedMissing
from core.sentences import MAX_PIECES, MAX_SENTENCES, METHODS
from figures.sentences import map_figure, separation_figure, similarity_figure
from lessons.sentence_vectors import map_jobs, views
from lessons.sentence_vectors.settings import MOST_CHARS, SETTINGS
from ui import live_chart
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import figure_text, problem, shown, shown_all, t
from ui.resources import minilm_model, sentence_collection
from ui.tables import table
from ui.vectors import bundled_vectors

FLOAT32_EPS = float(np.finfo(np.float32).eps)  # the spacing of float32 at 1: the precision the vectors are stored in
SAME = 1e-6  # a GloVe mean and MiniLM without positions give a reordering cosine 1 to this (float32 rounding)


def method_name(method: str) -> str:
    return t(f"sv.method_{method}")


def cols(*names: str) -> list[str]:
    """Table columns named in the reader's language."""
    return [t(f"sv.col_{name}") for name in names]


def refusal_text(refusal: views.Refusal) -> str:
    return t(refusal[0], **refusal[1])


def read_text(which: str, text: str) -> str:
    """The part of a typed text the page reads, its first MOST_CHARS characters, with a notice when that leaves some
    out (memory per run bounded: issue 55); then how many of its pieces MiniLM leaves out (cut_notice)."""
    if len(text) > MOST_CHARS:
        st.warning(t("sv.typed_cut", which=which, n=f"{len(text):,}", most=f"{MOST_CHARS:,}"))
    return text[:MOST_CHARS]


def cut_notice(which: str, sentence: str) -> None:
    """How many pieces MiniLM's vector leaves out of a text past sentence-transformers' MAX_PIECES, if any."""
    tokens, left = views.minilm_cut(sentence)
    if left:
        st.info(t("sv.cut", which=which, tokens=tokens, most=MAX_PIECES, kept=MAX_PIECES - 2, left=left))


def matrix_said(kept: list[str], both: dict[str, dict[tuple[int, int], float]]) -> str:
    """What the two panels hold, from their numbers: each method's mean cosine over the pairs (which puts the sentences
    closer together), and the words every sentence holds (their vectors are in every GloVe mean)."""
    mean = {name: float(np.mean(list(values.values()))) for name, values in both.items()}
    glove, minilm_mean = mean[method_name("glove")], mean[method_name("learned")]
    closer = claims.leaders(mean, tolerance=0.0005)
    values = dict(glove=f"{glove:.3f}", minilm=f"{minilm_mean:.3f}")
    said = t("sv.matrix_mean", closer=closer[0], **values) if len(closer) == 1 else t("sv.matrix_mean_same", **values)
    known = [set(sentences.glove_words(bundled_vectors(), s)[0]) for s in kept]
    common = [w for w in dict.fromkeys(sentences.glove_tokens(kept[0])) if all(w in k for k in known)]
    if common:
        said += " " + t("sv.matrix_shared", n=len(common), words=shown_all((f"“{w}”" for w in common), t("tf.sep")))
    return said


def shared_collection():
    """The shipped sentences, their topics' names in the reader's language, and the query box (chapters 3 and 4)."""
    with st.spinner(t("sv.working_collection")):  # embedded once per server, on the first visit
        collection = sentence_collection()
    topic_names = {topic: t(f"sv.topic_{topic}") for topic in dict.fromkeys(collection.topics)}
    query = read_text(t("sv.cut_query"), SETTINGS["sv_query"].draw(st).strip())
    cut_notice(t("sv.cut_query"), query)
    st.caption(t("sv.collection", n=len(collection.sentences), topics=", ".join(topic_names.values())))
    return collection, topic_names, query


st.title(t("sv.title"))
st.markdown(t("sv.intro"))
st.info(t("sv.english"), icon=":material/translate:")
try:
    with st.spinner(t("sv.loading_models")):
        minilm_model(), bundled_vectors()
except (PretrainedMissing, VectorsError) as err:
    st.error(problem(err))
    st.stop()
chapter = SETTINGS["sv_chapter"].draw(st, required=True)


# --- 1. One vector per sentence --------------------------------------------------------------------------
@st.fragment
def one_vector_per_sentence() -> None:
    """Chapter 1, a fragment: a move of the list reruns it alone."""
    st.header(t("sv.h_sentences"))
    text = SETTINGS["sv_sentences"].draw(st, height=200, help=t("sv.sentences_help", most=MAX_SENTENCES))
    lines = sentences.read_lines(text)
    if lines.empty:
        st.caption(t("sv.empty_lines", n=lines.empty))
    if lines.left_out:
        st.warning(t("sv.too_many", most=MAX_SENTENCES, n=len(lines.left_out), first=lines.left_out[0]))
    read = tuple(read_text(t("sv.cut_line", n=i + 1), line) for i, line in enumerate(lines.sentences))
    with st.spinner(t("sv.working_sentences")):
        view = views.sentences_view(read)
    for i, line in enumerate(read):
        cut_notice(t("sv.cut_line", n=i + 1), line)
    for i, method, why in view["refused"]:
        st.warning(t("sv.refused", n=i + 1, sentence=read[i], method=method_name(method), why=refusal_text(why)))
    kept = [read[i] for i in view["kept"]]
    if len(kept) < 2:
        st.warning(t("sv.need_two", n=len(kept)))
    else:
        similarity_matrix(kept, view, len(lines.sentences))
        pair_ranks(view)


def similarity_matrix(kept: list[str], view: dict, typed: int) -> None:
    """The kept sentences' cosine matrix under MiniLM and GloVe's mean, and which pairs each finds closest."""
    numbered = [f"{n}. {s}" for n, s in enumerate(kept, start=1)]
    mats = {method_name("learned"): view["minilm"], method_name("glove"): view["glove"]}
    title = t("sv.matrix_title", n=len(kept))
    live_chart.cached_chart("sv_matrix_chart", partial(similarity_figure, mats, numbered, title))
    if len(kept) < typed:
        st.caption(t("sv.matrix_left_out", n=typed - len(kept)))
    pairs = range(len(kept))
    both = {name: {(a, b): float(m[a, b]) for a in pairs for b in pairs if a < b} for name, m in mats.items()}
    said = [
        t(
            "sv.closest",
            method=name,
            a=e.closest[0] + 1,
            b=e.closest[1] + 1,
            value=f"{e.closest_value:.3f}",
            low=f"{e.farthest_value:.3f}",
        )
        for name, e in ((name, claims.extremes(values)) for name, values in both.items())
    ]
    explain(
        r"\text{MiniLM}(s) = \frac{\bar h}{\lVert \bar h \rVert},\ \bar h = \frac1n \sum_i h^{(6)}_i \qquad "
        r"\text{GloVe}(s) = \frac{1}{|W|} \sum_{w \in W} G[w] \qquad \cos(u, v) = \frac{u \cdot v}{\lVert u \rVert \lVert v \rVert}",
        " ".join([*said, t("sv.matrix_notice"), matrix_said(kept, both)]),
    )
    show_code(sentences.minilm_vector, minilm.mean_pooling, sentences.glove_mean, figure=t("sv.code_matrix"))


def pair_ranks(view: dict) -> None:
    """The pairs ranked by each method, and how far their orders agree."""
    st.subheader(t("sv.h_ranks"))
    ranks = view["ranks"]
    frame = pd.DataFrame(
        [(f"{r.pair[0] + 1} · {r.pair[1] + 1}", r.cosine_a, r.rank_a, r.cosine_b, r.rank_b, r.moved) for r in ranks],
        columns=cols("pair", "glove_cosine", "glove_rank", "minilm_cosine", "minilm_rank", "moved"),
    ).set_index(t("sv.col_pair"))
    table(frame.head(10), "sentence_pair_ranks", whole=frame)
    top = ranks[0]
    moved = t("sv.moved_most", a=top.pair[0] + 1, b=top.pair[1] + 1, glove=top.rank_a, minilm=top.rank_b)
    explain(
        r"\rho = \operatorname{corr}\big(\operatorname{rank} \cos_{\text{GloVe}},\ \operatorname{rank} \cos_{\text{MiniLM}}\big)",
        t("sv.ranks_notice", rho=f"{view['rho']:.2f}", pairs=len(ranks))
        + " "
        + (moved if top.moved else t("sv.same_order")),
    )
    show_code(sentences.pair_ranks, sentences.rank_correlation, figure=t("sv.code_ranks"))


# --- 2. Word order ------------------------------------------------------------------------------------------
@st.fragment
def word_order() -> None:
    """Chapter 2, a fragment: a move of the learner's pair reruns it alone."""
    st.header(t("sv.h_order"))
    st.markdown(t("sv.order_intro"))
    c1, c2 = st.columns(2)
    first = read_text(t("sv.cut_first"), SETTINGS["sv_first"].draw(c1))
    second = read_text(t("sv.cut_second"), SETTINGS["sv_second"].draw(c2))
    with st.spinner(t("sv.working_order")):  # the shipped pairs under every method: once per server
        view = views.order_view(first, second)
    cut_notice(t("sv.cut_first"), first)
    cut_notice(t("sv.cut_second"), second)
    for which, method, why in view["refused"]:
        sentence = first if which == "first" else second
        st.warning(t("sv.pair_refused", sentence=sentence, method=method_name(method), why=refusal_text(why)))
    if not view["same_words"]:
        st.info(t("sv.not_reordered"))
    rows = [(p.kind, p.first, p.second, cos) for p, cos in view["shipped"]]
    if view["yours"] is not None:
        rows.append(("yours", first, second, view["yours"]))
    labels = [str(n) if kind != "yours" else t("sv.yours") for n, (kind, *_) in enumerate(rows, start=1)]
    frame = pd.DataFrame(
        [(t(f"sv.kind_{kind}"), a, b, *(cos[m] for m in METHODS)) for kind, a, b, cos in rows],
        columns=cols("kind", "first", "second", *(f"cos_{m}" for m in METHODS)),
        index=pd.Index(labels, name=t("sv.col_pair")),
    )
    number = st.column_config.NumberColumn(format="%.7f")
    table(frame, "word_order_pairs", column_config={c: number for c in cols(*(f"cos_{m}" for m in METHODS))})
    order_check(rows, view)
    order_separation(rows, labels)


def order_check(rows: list, view: dict) -> None:
    """The check that GloVe's mean and MiniLM without positions give a reordering the same vector (cosine 1, within
    SAME), and how far from 1 they are."""
    checked = [cos for kind, _, _, cos in rows if kind != "yours" or view["same_words"]]
    worst = {m: max(abs(1 - cos[m]) for cos in checked) for m in ("glove", "none")}
    ok = all(v < SAME for v in worst.values())
    st.markdown(
        t(
            "sv.check",
            n=len(checked),
            glove=f"{worst['glove']:.1e}",
            none=f"{worst['none']:.1e}",
            bound=f"{SAME:g}",
            ok=t("sv.check_ok" if ok else "sv.check_not", bound=f"{SAME:g}", eps=f"{FLOAT32_EPS:.1e}"),
        )
    )
    largest = max(worst.values())
    explain(
        r"\frac1n \sum_i x_{\pi(i)} = \frac1n \sum_i x_i \qquad h(P_\pi X) = P_\pi\, h(X) \ \Rightarrow\ "
        r"\operatorname{mean}_i h(P_\pi X)_i = \operatorname{mean}_i h(X)_i",
        t("sv.check_notice")
        + t(
            "sv.check_within" if largest < FLOAT32_EPS else "sv.check_beyond",
            worst=f"{largest:.1e}",
            eps=f"{FLOAT32_EPS:.1e}",
        ),  # fmt: skip
    )
    show_code(sentences.order_cosines, sentences.cosine, figure=t("sv.code_check"))


def order_separation(rows: list, labels: list[str]) -> None:
    """How far each method moves a sentence from its reordering (1 - cosine), pair by pair."""
    separation = {method_name(m): [1 - cos[m] for *_, cos in rows] for m in METHODS}
    hover = [f"{a} / {b}" for _, a, b, _ in rows]
    texts = (figure_text("sv.separation_title"), (t("sv.ax_pair"), t("sv.ax_separation")))
    live_chart.cached_chart("sv_separation_chart", partial(separation_figure, labels, separation, *texts[:2], hover))
    means = {m: float(np.mean([1 - cos[m] for *_, cos in rows])) for m in METHODS}
    lead = claims.leaders({m: means[m] for m in ("sinusoidal", "learned")}, tolerance=1e-4)
    far = max(range(len(rows)), key=lambda i: 1 - rows[i][3]["learned"])
    explain(
        r"d(s, s') = 1 - \cos\big(v(s), v(s')\big)",
        t(
            "sv.separation_notice",
            leader=" = ".join(method_name(m) for m in lead),
            learned=f"{means['learned']:.4f}",
            sinusoidal=f"{means['sinusoidal']:.4f}",
            pair=labels[far],
            first=rows[far][1],
            second=rows[far][2],
        ),
    )
    show_code(minilm.embed, figure=t("sv.code_separation"))


def search_said(shared: int, k: int, spread: dict[str, tuple[float, float]], topics: dict[str, int]) -> str:
    """The search's notice from its two lists: how many they share, how their cosines spread (which lies closer
    together, when the spans differ at the shown precision), how many share the first result's topic."""
    ends = {f"{s[0]}_{end}": f"{spread[name][i]:.3f}" for name, s in (("minilm", "m"), ("glove", "g")) for i, end in
            enumerate(("hi", "lo"))}  # fmt: skip
    said = [t("sv.search_shared", shared=shared, k=k), t("sv.search_spread", **ends)]
    spans = {name: hi - lo for name, (hi, lo) in spread.items()}
    narrower = claims.leaders({name: -span for name, span in spans.items()}, tolerance=0.0005)
    if len(narrower) == 1:
        other = next(name for name in spans if name != narrower[0])
        said.append(t("sv.search_narrower", method=method_name(narrower[0]),
                      span=f"{spans[narrower[0]]:.3f}", other_span=f"{spans[other]:.3f}"))  # fmt: skip
    said.append(t("sv.search_topics", k=k, m_topic=topics["minilm"], g_topic=topics["glove"]))
    return " ".join(said)


# --- 3. Search ----------------------------------------------------------------------------------------------
@st.fragment
def search() -> None:
    """Chapter 3, a fragment: a move of the query or k reruns it alone."""
    collection, topic_names, query = shared_collection()
    st.header(t("sv.h_search"))
    k = int(SETTINGS["sv_k"].draw(st))
    view = views.search_view(query, k)
    for method, why in view["refused"]:
        st.warning(t("sv.query_refused", method=method_name(method), why=refusal_text(why)))
    columns = st.columns(2)
    for where, space in zip(columns, ("minilm", "glove"), strict=True):
        where.subheader(method_name("learned" if space == "minilm" else "glove"))
        if (hits := view[space]) is not None:
            found = pd.DataFrame(
                [
                    (n, collection.sentences[i], topic_names[collection.topics[i]], c)
                    for n, (i, c) in enumerate(hits, 1)
                ],
                columns=cols("rank", "sentence", "topic", "cosine"),
            ).set_index(t("sv.col_rank"))
            number = st.column_config.NumberColumn(format="%.3f")
            table(found, f"search_{space}", where=where, column_config={t("sv.col_cosine"): number})
    if view["minilm"] is not None and view["glove"] is not None:
        shared = k - len(view["only_minilm"])
        only = [(space, [collection.sentences[i] for i in view[f"only_{space}"]]) for space in ("minilm", "glove")]
        for space, texts_only in only:
            if texts_only:
                st.markdown(t(f"sv.only_{space}", sentences="; ".join(f"“{shown(s)}”" for s in texts_only)))
        spread = {s: (view[s][0][1], view[s][-1][1]) for s in ("minilm", "glove")}
        topics = {s: sum(collection.topics[i] == collection.topics[view[s][0][0]] for i, _ in view[s]) for s in spread}
        explain(
            r"\operatorname{top}_k(q) = \operatorname*{arg\,max}_{S,\ |S| = k} \sum_{s \in S} \cos\big(v(q), v(s)\big)",
            search_said(shared, k, spread, topics),
        )
    show_code(sentences.search, sentences.only_in, figure=t("sv.code_search"))


if chapter == "sentences":
    one_vector_per_sentence()
elif chapter == "order":
    word_order()
elif chapter == "search":
    search()

if chapter == "map":
    # --- 4. A map of sentences ----------------------------------------------------------------------------------
    st.header(t("sv.h_map"))
    collection, topic_names, query = shared_collection()
    c1, c2, c3 = st.columns(3)
    space = SETTINGS["sv_space"].draw(c1, horizontal=True)
    method = SETTINGS["sv_method"].draw(c2, horizontal=True)
    kept_k = int(SETTINGS["sv_kept_k"].draw(c3))
    cfg = CloudConfig(method, 2)
    coords = map_jobs.map_coords(space, cfg)
    if coords is not None:
        place = views.query_place(space, method, coords, query)
        name = method_name("learned" if space == "minilm" else "glove")
        title = figure_text("sv.map_title", method=method, space=name, n=len(coords))
        axes = (f"{method} 1", f"{method} 2")
        marker = None if place is None else (place, query, t("sv.query_marker"))
        live_chart.cached_chart(
            "sv_map_chart",
            partial(map_figure, coords, collection.topics, topic_names, collection.sentences, title, axes, marker),
        )
        if place is None:
            st.warning(t("sv.query_not_placed", method=name))
        elif method != "PCA":
            st.caption(t("sv.placed_by", n=views.PLACED_BY, method=method))
        kept, trust, same = views.measures(space, cfg, kept_k, coords)
        m1, m2, m3 = st.columns(3)
        m1.metric(t("es.kept_share", k=kept_k), f"{kept:.1%}", help=t("es.kept_share_help"))
        m2.metric(t("es.trust", k=kept_k), f"{trust:.3f}", help=t("es.trust_help"))
        m3.metric(t("sv.same_topic", k=kept_k), f"{same:.1%}", help=t("sv.same_topic_help"))
        explain(
            r"\text{kept}_k(i) = \frac{|N_k(x_i) \cap N_k(y_i)|}{k} \qquad "
            r"T(k) = 1 - \frac{2}{nk(2n-3k-1)} \sum_{i=1}^{n} \sum_{j \in U_k(i)} \big(r(i,j) - k\big)",
            t(
                "sv.map_notice",
                kept=f"{kept:.0%}",
                k=kept_k,
                trust=f"{trust:.3f}",
                same=f"{same:.0%}",
                method=method,
                space=name,
            ),  # fmt: skip
        )
        code = (sentences.place_by_neighbours, neighbours.preservation, trustworthiness.trustworthiness)
        show_code(*code, map_jobs.map_coords, figure=t("sv.code_map"))

if chapter == "exercises":
    # --- Try this ---------------------------------------------------------------------------------------------
    try_this("sv")
