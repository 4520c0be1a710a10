"""Inside a real Transformer: all-MiniLM-L6-v2's own heads, its positions taken away, a word from static to contextual."""

from functools import partial

import streamlit as st

from core import minilm, probes
from core.glove import VectorsError
from core.pretrained import PretrainedMissing
from core.probes import STAGES, VARIANTS, ProbeConfig
from core.problems import Problem
from core.projection import pca
from core.sentences import MAX_PIECES
from core.vectors import WordVectors
from figures.minilm import attention_figure, head_grid_figure, lines_figure, moved_figure, trajectory_figure
from lessons.real_transformer.charts import heads_claim, kept_figure, moved_claim, paths_claim, uses_claims
from lessons.real_transformer.settings import SETTINGS
from lessons.real_transformer.views import (
    context_view,
    head_view,
    learned_run,
    neighbour_view,
    positions_view,
    profile_view,
    variant_heads,
)
from ui import live_chart
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import figure_text, problem, shown, shown_all, t
from ui.presenter import presented
from ui.resources import minilm_model
from ui.tables import table
from ui.tokens import unknown_notice
from ui.vectors import bundled_vectors

SAME = 1e-6  # the no-position run of shuffled tokens equals the shuffled no-position run to rounding (float64: 1e-15)


def stage_name(stage: str) -> str:
    return t(f"tf.stage_{stage}") if stage in ("token", "input") else t("tf.stage_layer", n=stage.split()[-1])


st.title(t("tf.title"))
st.markdown(t("tf.intro"))
try:
    minilm_model()
except PretrainedMissing as err:
    st.error(problem(err))
    st.stop()

# --- Settings ---------------------------------------------------------------------------------------
c1, c2 = st.columns(2)
sentence = SETTINGS["tf_sentence"].draw(c1)
pair = SETTINGS["tf_pair"].draw(c2)
encoded = None
try:
    encoded = learned_run(sentence, pair)[0]
    unknown_notice(minilm_model().tokenizer, sentence, pair)
    if (n := len(encoded)) > MAX_PIECES:  # the model reads them all; sentence-transformers cuts
        st.info(t("tf.longer_than_st", n=n, most=MAX_PIECES, left=n - MAX_PIECES))
except Problem as err:
    st.error(t("tf.sentence_refused", problem=problem(err)))

# One chapter at a time, kept in the link by ui.link.translated_choice (?tf_chapter=positions).
chapter = SETTINGS["tf_chapter"].draw(st, required=True)


def pick_head() -> None:
    """A click on the grid: its head becomes the one shown (the pickers below follow)."""
    points = st.session_state["tf_grid"].selection.points
    if points:
        layer, head = points[0]["customdata"]
        st.session_state["tf_layer"], st.session_state["tf_head"] = int(layer) + 1, int(head) + 1


def head_pickers() -> tuple[int, int]:
    c1, c2 = st.columns(2)
    return int(SETTINGS["tf_layer"].draw(c1)), int(SETTINGS["tf_head"].draw(c2))


def heads_chapter(sentence: str, pair: str, encoded: minilm.Encoded | None) -> None:
    """Chapter 1, positional heads: every head's attention by offset, the heads that look at a neighbour, one head's
    map (a fragment: a head picked reruns it alone)."""
    st.header(t("tf.h_heads"))
    yours = SETTINGS["tf_yours"].draw()
    if yours and encoded is None:
        return
    profile, named, listed = profile_view(sentence if yours else "", pair if yours else "")
    source = t("tf.source_yours") if yours else t("tf.source_shipped", n=len(probes.read_sentences()))

    @st.fragment
    def heads_section() -> None:
        above = st.container()  # the grid, drawn once the pickers (a link may set them) have their values
        layer, head = head_pickers()
        grid_texts = (t("tf.grid_title", source=source), t("tf.grid_hover"), (t("tf.ax_head"), t("tf.ax_layer")))
        at = (layer - 1, head - 1)
        grid = kept_figure(partial(head_grid_figure, profile, named, at, *grid_texts))
        above.plotly_chart(
            presented(grid), key="tf_grid", on_select=pick_head, selection_mode="points", width="stretch"
        )
        above.caption(t("tf.grid_caption"))
        if encoded is not None:
            tokens, weights = head_view(sentence, pair, layer, head)
            name = t("tf.head_name", layer=layer, head=head)
            title, axes = t("tf.head_title", name=name), (t("tf.ax_key"), t("tf.ax_query"))
            chart = partial(attention_figure, {name: weights}, tokens, title, axis_titles=axes)
            live_chart.cached_chart("tf_head_chart", chart, cells=weights.size)

    heads_section()
    named_text = [
        t(f"tf.named_{'prev' if o < 0 else 'next'}", layer=la + 1, head=h + 1, w=f"{w:.2f}") for la, h, o, w in listed
    ]
    rule = t("tf.rule", threshold=probes.NAMED_AT, offsets=probes.MAX_OFFSET)
    st.markdown(f"{rule} {t('tf.sep').join(named_text) or t('tf.named_none')}")
    explain(
        r"\text{profile}_{lh}(d) = \frac{1}{|I_d|}\sum_{i \in I_d} A_{lh}[i,\, i+d],\qquad d = -8, \dots, +8",
        heads_claim(listed, source) + t("tf.heads_notice"),
    )
    show_code(probes.offset_profile, probes.positional_heads, minilm.encoder_layer, figure=t("tf.code_grid"))


def positions_chapter(sentence: str, pair: str) -> None:
    """Chapter 2, the positions taken away: how far each head's attention moves, the sentence vector's cosine, the
    shuffle check, one head under each variant."""
    st.header(t("tf.h_positions"))
    seed = int(SETTINGS["tf_seed"].draw())
    view = positions_view(sentence, pair, seed)
    labels = {v: t(f"tf.variant_{v}") for v in ("learned", *VARIANTS)}
    shuffled = shown_all((view["tokens"][i] for i in view["order"]), " ")
    st.markdown(t("tf.shuffled", tokens=shuffled, order=", ".join(map(str, view["order"]))))
    moved = {labels[v]: view["moved"][v] for v in VARIANTS}
    texts = (t("tf.moved_title"), (t("tf.ax_head"), t("tf.ax_layer")))
    live_chart.cached_chart("tf_moved_chart", partial(moved_figure, moved, *texts))
    explain(
        r"\mathrm{JS}(p, q) = \tfrac12 \mathrm{KL}(p \,\|\, m) + \tfrac12 \mathrm{KL}(q \,\|\, m),\quad m = \tfrac{p + q}{2}",
        moved_claim(view["moved"], labels)
        + t("tf.moved_notice", learned=f"{view['norms'][0]:.2f}", sinusoidal=f"{view['norms'][1]:.1f}"),
    )
    show_code(probes.js_divergence, probes.in_sentence_order, minilm.shuffled_order, figure=t("tf.code_moved"))
    stages = [stage_name(s) for s in STAGES[1:]]
    cosines, cosine_texts = {labels[v]: view["cosine"][v] for v in VARIANTS}, (t("tf.cosine_title"), t("tf.ax_cosine"))
    live_chart.cached_chart("tf_cosine_chart", partial(lines_figure, stages, cosines, *cosine_texts))
    ends = t("tf.sep").join(f"{labels[v]} **{view['cosine'][v][-1]:.3f}**" for v in VARIANTS)
    explain(
        r"\cos\Big(\tfrac1n \sum_i h^{\text{variant}}_i,\ \tfrac1n \sum_i h^{\text{learned}}_i\Big)",
        t("tf.cosine_notice", ends=ends),
    )
    show_code(minilm.mean_pooling, minilm.sentence_embedding, figure=t("tf.code_cosine"))
    hidden, weights = view["equivariance"]
    ok = t("tf.equal" if max(hidden, weights) < SAME else "tf.not_equal", bound=f"{SAME:g}")
    st.markdown(t("tf.equivariance", hidden=f"{hidden:.1e}", weights=f"{weights:.1e}", dtype=view["dtype"], ok=ok))
    explain(
        r"P_\pi:\quad h(P_\pi x) = P_\pi\, h(x),\qquad A(P_\pi x) = P_\pi\, A(x)\, P_\pi^\top",
        t("tf.equivariance_notice"),
    )
    show_code(probes.shuffle_equivariance, figure=t("tf.code_check"))

    @st.fragment
    def variants_section() -> None:
        layer, head = head_pickers()
        maps = {labels[v]: m for v, m in variant_heads(sentence, pair, seed, layer, head).items()}
        title = t("tf.variants_title", name=t("tf.head_name", layer=layer, head=head))
        axes = (t("tf.ax_key"), t("tf.ax_query"))
        live_chart.cached_chart(
            "tf_variants_chart",
            partial(attention_figure, maps, view["tokens"], title, columns=4, axis_titles=axes),
            cells=4 * len(view["tokens"]) ** 2,
        )

    variants_section()


def context_chapter() -> None:
    """Chapter 3, from static to contextual: a word's uses, their cosines layer by layer and their paths, then its
    nearest tokens in MiniLM's table beside GloVe's."""
    st.header(t("tf.h_context"))
    c1, c2, c3 = st.columns([2, 5, 1])
    word = SETTINGS["tf_word"].draw(c1)
    uses = SETTINGS["tf_uses"].draw(c2, help=t("tf.uses_help", most=probes.MAX_USES))
    k = int(SETTINGS["tf_k"].draw(c3))
    lines = ProbeConfig(uses=uses).use_list
    try:
        view = context_view(word, tuple(lines))
    except Problem as err:
        st.error(problem(err))
        return
    pieces = " ".join(f"`{p}`" for p in view["pieces"])
    st.markdown(t("tf.pieces", word=shown(word.strip()), pieces=pieces, n=len(view["pieces"])))
    if len(lines) > probes.MAX_USES:
        st.warning(t("tf.too_many", most=probes.MAX_USES, n=len(lines)))
    if view["found"] > probes.MAX_FOUND:
        st.warning(t("tf.too_many_uses", most=probes.MAX_FOUND, n=view["found"]))
    for s, key, values in view["refused"]:
        st.warning(t("tf.use_refused", n=s + 1, problem=t(f"problems.{key}", **values)))
    refused = {s for s, *_ in view["refused"]}
    for s, line in enumerate(lines[: probes.MAX_USES]):
        if s not in refused:
            unknown_notice(minilm_model().tokenizer, line, line=s + 1)
    if view["missing"]:
        st.warning(
            t(
                "tf.missing",
                word=shown(word.strip()),
                lines=", ".join(str(s + 1) for s in view["missing"]),
                n=len(view["missing"]),
            )
        )
    names = [t("tf.use_name", n=s + 1, at=i) for s, i in view["uses"]]
    if len(view["uses"]) < 2:
        st.warning(t("tf.need_two", n=len(view["uses"])))
    else:
        uses_charts(word, view, names)
    neighbours(word, k)


def uses_charts(word: str, view: dict, names: list[str]) -> None:
    """The uses' cosines, pair by pair, from the static table to the last layer, and their paths in a PCA plane."""
    curves = {f"{names[a]} · {names[b]}": c for (a, b), c in view["cosines"].items()}
    stages = [stage_name(s) for s in STAGES]
    live_chart.chart(
        lines_figure(stages, curves, figure_text("tf.uses_title", word=word.strip()), t("tf.ax_cosine")),
        "tf_uses_chart",
    )
    explain(
        r"\cos\big(v^{(l)}_a, v^{(l)}_b\big),\quad v^{(0)} = E[\text{id}],\ v^{(1)} = \mathrm{LN}(E + P + S),\ \dots",
        t("tf.uses_notice") + uses_claims(view["cosines"], names, stage_name(STAGES[-1])),
    )
    show_code(probes.word_uses, probes.use_cosines, figure=t("tf.code_uses"))
    figure = trajectory_figure(view["coords"], names, [stage_name(s) for s in STAGES[1:]], t("tf.pca_title"))
    live_chart.chart(figure, "tf_pca_chart")
    explain(
        r"z = (v - \bar v)\, W_{\text{PCA}}^\top \in \mathbb{R}^2",
        paths_claim(view["cosines"], stage_name(STAGES[-1])) + t("tf.pca_notice"),
    )
    show_code(pca, figure=t("tf.code_pca"))


def neighbours(word: str, k: int) -> None:
    """The word's nearest tokens in MiniLM's static table beside GloVe's nearest words."""
    st.subheader(t("tf.neighbours_title", word=shown(word.strip())))
    wv: WordVectors | None = None
    try:
        wv = bundled_vectors()
    except VectorsError as err:
        st.info(problem(err))
    frame, found = neighbour_view(word, k, wv)
    if wv is not None and not found:
        st.info(t("tf.glove_missing", word=shown(word.strip().lower())))
    table(frame, "minilm_neighbours")
    explain(
        r"\cos(E[w], E[v]) = \frac{E[w] \cdot E[v]}{\lVert E[w] \rVert\, \lVert E[v] \rVert}", t("tf.neighbours_notice")
    )
    show_code(probes.token_neighbours, figure=t("tf.code_neighbours"))


# --- The chapter chosen -----------------------------------------------------------------------------------------
if chapter == "heads":
    heads_chapter(sentence, pair, encoded)
elif chapter == "positions" and encoded is not None:
    positions_chapter(sentence, pair)
elif chapter == "context":
    context_chapter()
if chapter == "exercises":
    # --- Try this ---------------------------------------------------------------------------------------
    try_this("tf")
