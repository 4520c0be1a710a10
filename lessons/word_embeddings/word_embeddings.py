"""Word embeddings: GloVe in nn.Embedding.from_pretrained, analogies, PCA, neighbours, evaluation (seed 003)."""

from pathlib import Path

import pandas as pd
import streamlit as st
import torch

from core import claims, evaluate, glove, projection
from core.problems import Problem
from core.vectors import WordVectors, lookup_words, resolve_word
from figures.words import word_scatter_figure
from lessons.word_embeddings.evaluation import REFUSED, eval_runner, show_evaluation, start_evaluation
from lessons.word_embeddings.results import nearest_words, pca_coords
from lessons.word_embeddings.settings import ANALOGY, AXES, SEED_WORDS, SETTINGS
from ui.exercises import try_this
from ui.explain import explain, show_code
from ui.i18n import problem, t
from ui.jobs import QUEUES, refusal_notice
from ui.presenter import presented
from ui.tables import downloads, table
from ui.vectors import choose_vectors, source_name

OUR_SET = Path(__file__).resolve().parents[2] / "data" / "analogies_small.txt"
QUESTIONS_MB = evaluate.MAX_QUESTIONS_BYTES // 2**20  # the widget's cap, for the browser; the server checks it too


st.title(t("we.title"))
st.markdown(t("we.intro"))

wv, source_key = choose_vectors(SETTINGS)
st.caption(t("we.source_caption", name=source_name(wv), n=len(wv), dim=wv.dim, device=wv.vectors.device.type))

# --- 1. Words -> ids -> vectors -----------------------------------------------------------------------
st.header(t("we.h_lookup"))
look = lookup_words(wv, SETTINGS["we_words"].draw())
if look.lowered:
    st.info(t("we.lowered", words=", ".join(look.lowered)))
if look.duplicates:
    st.info(t("we.duplicates", words=", ".join(look.duplicates)))
if look.unknown:
    st.warning(t("we.unknown_rest_shown", words=", ".join(look.unknown)))
if look.left_out:
    st.warning(t("we.left_out", most=len(look.found), n=len(look.left_out), words=", ".join(look.left_out)))
words = look.found
if not words:
    st.error(t("we.no_words", example=SEED_WORDS))
    st.stop()
ids = [wv.stoi[w] for w in words]
vectors = wv.embedding()(torch.tensor(ids, device=wv.vectors.device)).cpu().numpy()  # (n, dim)
lookup = pd.DataFrame({"word": words, "index": ids, **{f"v{j}": vectors[:, j] for j in range(wv.dim)}})
shown = min(8, wv.dim)  # dims in the table; the downloads hold every one
table(lookup.iloc[:, : 2 + shown], "word_vectors", hide_index=True, whole=lookup, array=vectors)
st.caption(t("we.lookup_caption", shown=shown, dim=wv.dim))
explain(r"\text{embedding}(i) = W[i],\quad W \in \mathbb{R}^{|V| \times d}", t("we.lookup_notice"))
show_code(WordVectors.embedding, glove.load_bundled)

# --- 2. Analogies ---------------------------------------------------------------------------------------
st.header(t("we.h_analogy"))
typed = [SETTINGS[f"we_{box}"].draw(column) for column, box in zip(st.columns(3), ANALOGY, strict=True)]
a, b, c = (resolve_word(wv, typed_word) for typed_word in typed)
ranked = None
answered: tuple[str, str, str, str] | None = None  # a, b, c and the best answer, once there is one
if a is None or b is None or c is None:
    missing = [typed_word for typed_word, w in zip(typed, (a, b, c), strict=True) if w is None]
    st.warning(t("we.unknown", words=", ".join(missing)))
elif len({a, b, c}) < 3:
    st.warning(t("we.three_different"))
else:
    try:
        ranked = projection.analogy(wv, a, b, c, 5)
        answered = (a, b, c, ranked[0][0]) if ranked else None
    except Problem as err:  # no fourth word to answer with, or a zero query
        st.error(problem(err))
answer = answered[3] if answered else None
if ranked:
    table(pd.DataFrame(ranked, columns=["word", "cosine"]).set_index("word"), "analogy", plain=True)
    st.caption(t("we.arrows_caption", a=a, b=b, c=c, answer=answer))
explain(
    r"\hat{d} = \arg\max_{w \notin \{a,b,c\}} \cos\big(w,\; \hat{b} - \hat{a} + \hat{c}\big)",
    t("we.analogy_notice"),
)
show_code(projection.analogy, projection.nearest)

# --- 3. PCA, with the analogy's arrows -------------------------------------------------------------------
st.header(t("we.h_pca"))
c1, c2, c3 = st.columns(3)
dims = 3 if SETTINGS["we_pca_dims"].draw(c1, horizontal=True) == "3D" else 2
frequent = SETTINGS["we_pca_fit"].draw(c2)
background = SETTINGS["we_background"].draw(c3, disabled=not frequent)
arrows_words = [w for w in answered[:3] if w not in words] if answered else []
plotted = words + arrows_words + ([answer] if answer and answer not in words + arrows_words else [])
proj = None
if not frequent and len(plotted) < dims:
    st.error(t("we.pca_too_few", dims=dims))
else:
    try:
        proj = pca_coords(wv, tuple(plotted), dims, background if frequent else 0)
    except Problem as err:  # too few words or dimensions to fit on, or all their vectors the same
        st.error(problem(err))
if proj is not None:
    titles = tuple(t("we.pc_title", i=i + 1, share=f"{r:.0%}") for i, r in enumerate(proj.explained_variance_ratio))
    arrows = [(answered[0], answered[1]), (answered[2], answered[3])] if answered else []
    st.plotly_chart(
        presented(
            word_scatter_figure(
                proj.coords, plotted, axis_titles=titles, arrows=arrows, points_name=t("we.legend_words")
            )
        )
    )
    downloads(
        "pca_coordinates",
        frame=pd.DataFrame(
            proj.coords, index=pd.Index(plotted, name="word"), columns=[f"pc{i + 1}" for i in range(dims)]
        ),
    )
fitted = t("we.pca_fitted_frequent", n=background) if frequent else t("we.pca_fitted_words", n=len(plotted))
explain(r"X_c = X - \bar{x},\quad X_c = U S V^\top,\quad \text{coords} = X_c V_{:, 1..k}", t("we.pca_notice") + fitted)
show_code(projection.pca)

# --- 4. Neighbours --------------------------------------------------------------------------------------
st.header(t("we.h_neighbours"))


# The word, k and metric change this section alone: a move reruns it alone (the browser writes the link).
# Its download button is deferred like every other (ui.tables): tests/browser/test_across_pages.py downloads the
# lookup's and the neighbours' files after a move of k and checks each one's name and rows.
@st.fragment
def neighbours_section(wv: WordVectors) -> None:
    c1, c2, c3 = st.columns(3)
    typed_word = SETTINGS["we_nn_word"].draw(c1)
    k = SETTINGS["we_nn_k"].draw(c2)
    metric = SETTINGS["we_nn_metric"].draw(c3, horizontal=True)
    word = resolve_word(wv, typed_word)
    if word is None:
        st.warning(t("we.not_in_vocabulary", word=repr(typed_word.strip())))
        return
    try:
        found = nearest_words(wv, word, k, metric)
    except Problem as err:  # the word's vector is all zeros: cosine is 0/0
        st.error(problem(err))
        return
    neighbours = pd.DataFrame(found, columns=["word", "cosine" if metric == "cosine" else "distance"])
    table(neighbours.set_index("word"), "neighbours", plain=True)


neighbours_section(wv)

# --- 5. Axes from word differences ----------------------------------------------------------------------
st.header(t("we.h_axes"))
typed_axes = [SETTINGS[f"we_{box}"].draw(column) for column, box in zip(st.columns(4), AXES, strict=True)]
resolved = [resolve_word(wv, typed_word) for typed_word in typed_axes]
found_axes = [w for w in resolved if w is not None]
coords = None
if len(found_axes) < len(resolved):
    missing = [typed_word for typed_word, w in zip(typed_axes, resolved, strict=True) if w is None]
    st.warning(t("we.unknown", words=", ".join(missing)))
else:
    x_pair, y_pair = (found_axes[0], found_axes[1]), (found_axes[2], found_axes[3])
    zero = False  # an axis of length 0 has no direction: a notice naming its box, instead of a flat plot
    for axis, i in (("x", 0), ("y", 2)):
        (frm, to), box = found_axes[i : i + 2], t(f"we.{axis}_to")
        same = frm == to or torch.equal(wv.vectors[wv.stoi[frm]], wv.vectors[wv.stoi[to]])
        if frm == to:  # the same word, however it was typed
            typed_from, typed_to = (typed_word.strip() for typed_word in typed_axes[i : i + 2])
            st.warning(t("we.axis_same_word", axis=axis, frm=typed_from, to=typed_to, word=frm, box=box))
        elif same:  # two words with one vector (a file's)
            st.warning(t("we.axis_same_vector", axis=axis, frm=frm, to=to, box=box))
        zero = zero or same
    if not zero:
        try:
            coords = projection.difference_axes(wv, words, x_pair, y_pair)
        except Problem as err:  # an axis of length 0 the checks above did not see
            st.error(problem(err))
if coords is not None:
    st.plotly_chart(
        presented(
            word_scatter_figure(
                coords,
                words,
                axis_titles=(f"{x_pair[1]} − {x_pair[0]}", f"{y_pair[1]} − {y_pair[0]}"),
                points_name=t("we.legend_words"),
            )
        )  # fmt: skip
    )
if coords is not None:  # which end of each axis is which word, as the plot has them (core.claims.axis_ends)
    (left, right), (bottom, top) = claims.axis_ends(*x_pair), claims.axis_ends(*y_pair)
    axes_notice = t("we.axes_notice", left=left, right=right, bottom=bottom, top=top)
else:
    axes_notice = t("we.axes_notice_none")
explain(r"x(w) = v_w \cdot \frac{v_{to} - v_{from}}{\lVert v_{to} - v_{from} \rVert}", axes_notice)

# --- 6. Evaluation --------------------------------------------------------------------------------------
st.header(t("we.h_eval"))
c1, c2 = st.columns(2)
which = SETTINGS["we_eval_set"].draw(c1)  # not in the link: a link cannot carry the uploaded file
restrict = SETTINGS["we_eval_restrict"].draw(c2)
upload = None
if which != "ours":
    upload = st.file_uploader(t("we.questions_file"), type=["txt"], key="we_eval_file", max_upload_size=QUESTIONS_MB)
asked = dict(source=source_key, which=which, restrict=restrict)
if st.button(t("we.evaluate"), key="we_eval_go"):  # the file is read only now, not on every rerun of the page
    if which == "ours":
        start_evaluation(wv, OUR_SET.read_text(encoding="utf-8"), asked)
    else:
        start_evaluation(wv, None, asked, upload=upload)  # sized on the server before it is decoded
refusal_notice(eval_runner(), REFUSED)
show_evaluation(wv, asked)  # while the settings it was asked with stay
st.caption(
    t("we.eval_caption")
    + " "
    + t("we.eval_policy", waiting=eval_runner().waiting(), queue=QUEUES["evaluation"]["max_waiting"])
)

# --- Try this ---------------------------------------------------------------------------------------
try_this("we", wv)
