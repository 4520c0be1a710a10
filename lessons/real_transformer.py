"""Inside a real Transformer: all-MiniLM-L6-v2's own heads, its positions taken away, a word from static to contextual."""

import numpy as np
import pandas as pd
import streamlit as st

from core import cloud, minilm, probes
from core.glove import VectorsError
from core.minilm import HEADS, LAYERS
from core.pretrained import PretrainedMissing
from core.probes import STAGES, VARIANTS, ProbeConfig
from core.problems import Problem
from core.projection import pca
from figures.attention import heatmaps_figure
from figures.minilm import head_grid_figure, lines_figure, moved_figure, trajectory_figure
from ui import live_chart
from ui.caching import page_cache_data
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import problem, shown, t
from ui.link import IN_LINK, translated_choice
from ui.minilm import learned_run, minilm_model, positions_taken, shipped_profile
from ui.tables import table
from ui.vectors import bundled_vectors

CHAPTERS = ("heads", "positions", "context", "exercises")  # the lesson's sections, in order
SAME = 1e-6  # the no-position run of shuffled tokens equals the shuffled no-position run to rounding (float64: 1e-15)


@page_cache_data(max_entries=16, show_spinner=False)
def profile_view(sentence: str, pair: str) -> tuple[np.ndarray, dict[tuple[int, int], int], list]:
    """Every head's mean attention by offset over the learner's sentence ("" for the shipped ones), the named heads."""
    if not sentence:
        profile, named = shipped_profile()
    else:
        tensor = probes.offset_profile([learned_run(sentence, pair)])
        profile, named = tensor.numpy(), probes.positional_heads(tensor)
    return profile, {(h.layer, h.head): h.offset for h in named}, [(h.layer, h.head, h.offset, h.weight) for h in named]


@page_cache_data(max_entries=64, show_spinner=False)
def head_view(sentence: str, pair: str, layer: int, head: int) -> tuple[list[str], np.ndarray]:
    """One head's attention on the sentence (layer and head from 1), with its tokens."""
    encoded, run = learned_run(sentence, pair)
    return list(encoded.tokens), run.attention[layer - 1, head - 1].cpu().numpy()


@page_cache_data(max_entries=32, show_spinner=False)
def positions_view(sentence: str, pair: str, seed: int) -> dict:
    """Chapter 2's numbers: JS divergence per head, cosine per layer, the order, the equivariance check, norms."""
    taken = positions_taken(sentence, pair, seed)
    tokens = list(learned_run(sentence, pair)[0].tokens)
    return dict(
        tokens=tokens,
        moved={v: taken.moved[v].numpy() for v in VARIANTS},
        cosine={v: taken.cosine[v].numpy() for v in VARIANTS},
        order=taken.order.tolist(),
        equivariance=taken.equivariance,
        dtype=str(taken.dtype).removeprefix("torch."),
        norms=probes.position_norms(minilm_model(), len(tokens)),
    )


@page_cache_data(max_entries=64, show_spinner=False)
def variant_heads(sentence: str, pair: str, seed: int, layer: int, head: int) -> dict[str, np.ndarray]:
    """One head's attention under learned positions and each variant, in the sentence's order."""
    taken = positions_taken(sentence, pair, seed)
    return {name: probes.in_sentence_order(run)[layer - 1, head - 1].cpu().numpy() for name, run in taken.runs.items()}


@page_cache_data(max_entries=32, show_spinner=False)
def context_view(word: str, uses: tuple[str, ...]) -> dict:
    """Chapter 3's numbers: the word's pieces, its uses, their cosines stage by stage, and a PCA of their vectors."""
    found = probes.word_uses(minilm_model(), word, list(uses))
    out = dict(pieces=found.pieces, uses=found.uses, missing=found.missing, coords=None)
    out["refused"] = [(s, err.key, err.values) for s, err in found.refused]  # a Problem does not pickle
    out["cosines"] = {pair: c.numpy() for pair, c in probes.use_cosines(found.vectors).items()}
    if found.uses:  # the input and the six layers of every use; the static rows live in another space
        flat = found.vectors[:, 1:].reshape(-1, found.vectors.size(-1)).double().numpy()
        out["coords"] = pca(flat, 2).coords.reshape(len(found.uses), len(STAGES) - 1, 2)
    return out


@page_cache_data(max_entries=32, show_spinner=False)
def neighbour_view(word: str, k: int, glove: bool, _wv) -> tuple[pd.DataFrame, bool]:
    """MiniLM's nearest tokens in its static table beside GloVe's nearest words (_wv, when `glove`), and whether
    GloVe has the word."""
    ours = probes.token_neighbours(minilm_model(), probes.word_pieces(minilm_model(), word), k)
    lower = word.strip().lower()
    theirs = cloud.neighbours(_wv, lower, k) if glove and lower in _wv.stoi else []
    theirs += [("", None)] * (len(ours) - len(theirs))
    words = lambda pairs: [w for w, _ in pairs]  # noqa: E731
    cosines = lambda pairs: [None if c is None else round(c, 3) for _, c in pairs]  # noqa: E731
    frame = pd.DataFrame(
        dict(minilm=words(ours), minilm_cosine=cosines(ours), glove=words(theirs), glove_cosine=cosines(theirs))
    )
    return frame, theirs[0][1] is not None


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
default = ProbeConfig()
c1, c2 = st.columns(2)
sentence = c1.text_input(t("tf.sentence"), default.sentence, key="tf_sentence", **IN_LINK)
pair = c2.text_input(t("tf.pair"), default.pair, key="tf_pair", help=t("tf.pair_help"), **IN_LINK)
encoded = None
try:
    encoded = learned_run(sentence, pair)[0]
except Problem as err:
    st.error(t("tf.sentence_refused", problem=problem(err)))

# One chapter at a time, kept in the link by ui.link.translated_choice (?tf_chapter=positions).
chapter = translated_choice(
    st.segmented_control,
    t("tf.chapter"),
    CHAPTERS,
    key="tf_chapter",
    format_func=lambda c: t(f"tf.chapter_{c}"),
    required=True,
)


def pick_head() -> None:
    """A click on the grid: its head becomes the one shown (the pickers below follow)."""
    points = st.session_state["tf_grid"].selection.points
    if points:
        layer, head = points[0]["customdata"]
        st.session_state["tf_layer"], st.session_state["tf_head"] = int(layer) + 1, int(head) + 1


def head_pickers() -> tuple[int, int]:
    c1, c2 = st.columns(2)
    layer = int(c1.number_input(t("tf.layer"), 1, LAYERS, default.layer, key="tf_layer", **IN_LINK))
    return layer, int(c2.number_input(t("tf.head"), 1, HEADS, default.head, key="tf_head", **IN_LINK))


if chapter == "heads":
    # --- 1. Positional heads -------------------------------------------------------------------------------
    st.header(t("tf.h_heads"))
    yours = st.toggle(t("tf.yours"), default.yours, key="tf_yours", help=t("tf.yours_help"), **IN_LINK)
    if yours and encoded is None:
        st.stop()
    profile, named, listed = profile_view(sentence if yours else "", pair if yours else "")
    source = t("tf.source_yours") if yours else t("tf.source_shipped", n=len(probes.read_sentences()))

    @st.fragment
    def heads_section() -> None:
        layer, head = st.session_state.get("tf_layer", default.layer), st.session_state.get("tf_head", default.head)
        hover = t("tf.grid_hover")
        title = t("tf.grid_title", source=source)
        grid = head_grid_figure(
            profile, named, (layer - 1, head - 1), title, hover, (t("tf.ax_head"), t("tf.ax_layer"))
        )
        st.plotly_chart(grid, key="tf_grid", on_select=pick_head, selection_mode="points", width="stretch")
        st.caption(t("tf.grid_caption"))
        layer, head = head_pickers()
        if encoded is not None:
            tokens, weights = head_view(sentence, pair, layer, head)
            name = t("tf.head_name", layer=layer, head=head)
            figure = heatmaps_figure(
                {name: weights}, tokens, t("tf.head_title", name=name), columns=1, shared=True, colorscale="Blues",
                zmid=None, axis_titles=(t("tf.ax_key"), t("tf.ax_query")),
            )  # fmt: skip
            live_chart.chart(figure, "tf_head_chart")

    heads_section()
    names = [
        t("tf.named_prev" if o < 0 else "tf.named_next", layer=la + 1, head=h + 1, w=f"{w:.2f}")
        for la, h, o, w in listed
    ]
    st.markdown(
        t("tf.rule", threshold=probes.NAMED_AT, offsets=probes.MAX_OFFSET)
        + " "
        + (", ".join(names) or t("tf.named_none"))
    )
    explain(
        r"\text{profile}_{lh}(d) = \frac{1}{|I_d|}\sum_{i \in I_d} A_{lh}[i,\, i+d],\qquad d = -8, \dots, +8",
        t("tf.heads_notice"),
    )
    show_code(probes.offset_profile, probes.positional_heads, minilm.encoder_layer)

elif chapter == "positions" and encoded is not None:
    # --- 2. Take the positions away --------------------------------------------------------------------------
    st.header(t("tf.h_positions"))
    seed_help = t("tf.seed_help")
    seed = int(
        st.number_input(t("tf.seed"), 0, probes.MAX_SEED, default.seed, key="tf_seed", help=seed_help, **IN_LINK)
    )
    view = positions_view(sentence, pair, seed)
    labels = {v: t(f"tf.variant_{v}") for v in ("learned", *VARIANTS)}
    shuffled = " ".join(shown(view["tokens"][i]) for i in view["order"])
    st.markdown(t("tf.shuffled", tokens=shuffled, order=", ".join(map(str, view["order"]))))
    moved = {labels[v]: view["moved"][v] for v in VARIANTS}
    live_chart.chart(moved_figure(moved, t("tf.moved_title"), (t("tf.ax_head"), t("tf.ax_layer"))), "tf_moved_chart")
    explain(
        r"\mathrm{JS}(p, q) = \tfrac12 \mathrm{KL}(p \,\|\, m) + \tfrac12 \mathrm{KL}(q \,\|\, m),\quad m = \tfrac{p + q}{2}",
        t("tf.moved_notice", learned=f"{view['norms'][0]:.2f}", sinusoidal=f"{view['norms'][1]:.1f}"),
    )
    show_code(probes.js_divergence, probes.in_sentence_order, minilm.shuffled_order)
    stages = [stage_name(s) for s in STAGES[1:]]
    cosines = {labels[v]: view["cosine"][v] for v in VARIANTS}
    live_chart.chart(lines_figure(stages, cosines, t("tf.cosine_title"), t("tf.ax_cosine")), "tf_cosine_chart")
    ends = ", ".join(f"{labels[v]} **{view['cosine'][v][-1]:.3f}**" for v in VARIANTS)
    explain(
        r"\cos\Big(\tfrac1n \sum_i h^{\text{variant}}_i,\ \tfrac1n \sum_i h^{\text{learned}}_i\Big)",
        t("tf.cosine_notice", ends=ends),
    )
    show_code(minilm.mean_pooling, minilm.sentence_embedding)
    hidden, weights = view["equivariance"]
    ok = t("tf.equal" if max(hidden, weights) < SAME else "tf.not_equal", bound=f"{SAME:g}")
    st.markdown(t("tf.equivariance", hidden=f"{hidden:.1e}", weights=f"{weights:.1e}", dtype=view["dtype"], ok=ok))
    explain(
        r"P_\pi:\quad h(P_\pi x) = P_\pi\, h(x),\qquad A(P_\pi x) = P_\pi\, A(x)\, P_\pi^\top",
        t("tf.equivariance_notice"),
    )
    show_code(probes.shuffle_equivariance)

    @st.fragment
    def variants_section() -> None:
        layer, head = head_pickers()
        maps = variant_heads(sentence, pair, seed, layer, head)
        name = t("tf.head_name", layer=layer, head=head)
        figure = heatmaps_figure(
            {labels[v]: m for v, m in maps.items()}, view["tokens"], t("tf.variants_title", name=name), columns=4,
            shared=True, colorscale="Blues", zmid=None, axis_titles=(t("tf.ax_key"), t("tf.ax_query")),
        )  # fmt: skip
        live_chart.chart(figure, "tf_variants_chart")

    variants_section()

elif chapter == "context":
    # --- 3. From static to contextual ------------------------------------------------------------------------
    st.header(t("tf.h_context"))
    c1, c2, c3 = st.columns([2, 5, 1])
    word = c1.text_input(t("tf.word"), default.word, key="tf_word", **IN_LINK)
    uses = c2.text_area(
        t("tf.uses"), default.uses, key="tf_uses", help=t("tf.uses_help", most=probes.MAX_USES), **IN_LINK
    )
    k = int(c3.number_input(t("tf.k"), 1, probes.MAX_K, default.k, key="tf_k", **IN_LINK))
    lines = ProbeConfig(uses=uses).use_list
    try:
        view = context_view(word, tuple(lines))
    except Problem as err:
        st.error(problem(err))
        st.stop()
    pieces = " ".join(f"`{p}`" for p in view["pieces"])
    st.markdown(t("tf.pieces", word=shown(word.strip()), pieces=pieces, n=len(view["pieces"])))
    if len(lines) > probes.MAX_USES:
        st.warning(t("tf.too_many", most=probes.MAX_USES, n=len(lines)))
    for s, key, values in view["refused"]:
        st.warning(t("tf.use_refused", n=s + 1, problem=t(f"problems.{key}", **values)))
    if view["missing"]:
        st.warning(t("tf.missing", word=shown(word.strip()), lines=", ".join(str(s + 1) for s in view["missing"])))
    names = [t("tf.use_name", n=s + 1, at=i) for s, i in view["uses"]]
    if len(view["uses"]) < 2:
        st.warning(t("tf.need_two", n=len(view["uses"])))
    else:
        curves = {f"{names[a]} · {names[b]}": c for (a, b), c in view["cosines"].items()}
        stages = [stage_name(s) for s in STAGES]
        live_chart.chart(
            lines_figure(stages, curves, t("tf.uses_title", word=shown(word.strip())), t("tf.ax_cosine")),
            "tf_uses_chart",
        )
        explain(
            r"\cos\big(v^{(l)}_a, v^{(l)}_b\big),\quad v^{(0)} = E[\text{id}],\ v^{(1)} = \mathrm{LN}(E + P + S),\ \dots",
            t("tf.uses_notice"),
        )
        show_code(probes.word_uses, probes.use_cosines)
        figure = trajectory_figure(view["coords"], names, [stage_name(s) for s in STAGES[1:]], t("tf.pca_title"))
        live_chart.chart(figure, "tf_pca_chart")
        explain(r"z = (v - \bar v)\, W_{\text{PCA}}^\top \in \mathbb{R}^2", t("tf.pca_notice"))
        show_code(pca)
    st.subheader(t("tf.neighbours_title", word=shown(word.strip())))
    try:
        wv = bundled_vectors()
    except VectorsError as err:
        wv = None
        st.info(problem(err))
    frame, found = neighbour_view(word, k, wv is not None, wv)
    if wv is not None and not found:
        st.info(t("tf.glove_missing", word=shown(word.strip().lower())))
    table(frame, "minilm_neighbours")
    explain(
        r"\cos(E[w], E[v]) = \frac{E[w] \cdot E[v]}{\lVert E[w] \rVert\, \lVert E[v] \rVert}", t("tf.neighbours_notice")
    )
    show_code(probes.token_neighbours)

if chapter == "exercises":
    # --- Try this ---------------------------------------------------------------------------------------
    try_this("tf")
