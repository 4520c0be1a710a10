"""Word embeddings: GloVe in nn.Embedding.from_pretrained, PCA, analogies, neighbours, evaluation (seed 003)."""

from pathlib import Path

import pandas as pd
import streamlit as st
import torch

from core import evaluate, glove, projection
from core.glove import WordVectors
from figures.words import word_scatter_figure
from ui import choose_vectors, explain, set_defaults, show_code

OUR_SET = Path(__file__).resolve().parents[1] / "data" / "analogies_small.txt"
SEED_WORDS = "man, woman, king, queen, cat, dog, mother, father"
DEFAULTS = dict(
    words=SEED_WORDS,
    pca_dims="2D",
    pca_fit="the chosen words",
    background=10_000,
    a="man",
    b="woman",
    c="king",
    nn_word="frog",
    nn_k=10,
    nn_metric="cosine",
    x_from="man",
    x_to="woman",
    y_from="man",
    y_to="king",
    eval_restrict=30_000,
)


@st.cache_data(max_entries=32)
def pca_coords(_wv: WordVectors, source: str, words: tuple[str, ...], dims: int, background: int):
    x = _wv.get_vecs_by_tokens(list(words)).cpu().numpy()
    fit_on = _wv.vectors[:background].cpu().numpy() if background else None
    return projection.pca(x, dims, fit_on=fit_on)


set_defaults("we", DEFAULTS)

st.title("Word embeddings")
st.markdown(
    "A trained embedding table puts words that are used alike near each other. Seed 003 loads GloVe "
    "(Stanford, 2014) into `nn.Embedding.from_pretrained` and projects eight words to 2D with PCA; "
    "here the same table, real and offline, with analogies, neighbours and an evaluation."
)

wv, source_key = choose_vectors("we")
st.caption(f"{wv.name}: {len(wv):,} words × {wv.dim} dimensions, on {wv.vectors.device.type}.")

# --- 1. Words -> ids -> vectors -----------------------------------------------------------------------
st.header("1. Words → ids → vectors")
look = glove.lookup_words(wv, st.text_input("Words", key="we_words"))
if look.lowered:
    st.info(f"{', '.join(look.lowered)} lowercased: GloVe 6B was trained on lowercased text.")
if look.duplicates:
    st.info(f"Shown once: {', '.join(look.duplicates)}.")
if look.unknown:
    st.warning(f"Not in the vocabulary: {', '.join(look.unknown)}. The other words are still shown.")
words = look.found
if not words:
    st.error("Type at least one word that is in the vocabulary, for example: " + SEED_WORDS)
    st.stop()
ids = [wv.stoi[w] for w in words]
vectors = wv.embedding()(torch.tensor(ids, device=wv.vectors.device)).cpu().numpy()  # (n, dim)
st.dataframe(
    pd.DataFrame({"word": words, "index": ids, **{f"v{j}": vectors[:, j] for j in range(min(8, wv.dim))}}),
    hide_index=True,
)
st.caption(f"Index = row of the table (GloVe orders by frequency); the first {min(8, wv.dim)} of {wv.dim} values.")
explain(
    r"\text{embedding}(i) = W[i],\quad W \in \mathbb{R}^{|V| \times d}",
    "A lookup, not a computation: the id picks a row of the pretrained matrix, frozen here.",
)
show_code(glove.WordVectors.embedding, glove.load_bundled)

# --- 2. PCA -------------------------------------------------------------------------------------------
st.header("2. PCA: the words on a plane")
c1, c2, c3 = st.columns(3)
dims = 3 if c1.radio("Dimensions", ["2D", "3D"], key="we_pca_dims", horizontal=True) == "3D" else 2
fit = c2.radio("Fit the axes on", ["the chosen words", "the most frequent words"], key="we_pca_fit")
background = c3.select_slider(
    "Most frequent words", [1000, 5000, 10_000, 50_000], key="we_background", disabled=fit == "the chosen words"
)
typed = [st.session_state[f"we_{k}"] for k in "abc"]  # the analogy boxes of section 3
a, b, c = (glove.resolve_word(wv, t) for t in typed)
ranked = projection.analogy(wv, a, b, c, 5) if None not in (a, b, c) and len({a, b, c}) == 3 else None
answer = ranked[0][0] if ranked else None
arrows_words = [w for w in (a, b, c) if w not in words] if answer else []
plotted = words + arrows_words + ([answer] if answer and answer not in words + arrows_words else [])
if fit == "the chosen words" and len(plotted) < dims:
    st.error(
        f"A {dims}D PCA fitted on the chosen words needs at least {dims} known words; add more, or fit on the "
        "most frequent words."
    )
else:
    proj = pca_coords(wv, source_key, tuple(plotted), dims, background if fit != "the chosen words" else 0)
    titles = tuple(f"PC {i + 1} ({r:.0%} of variance)" for i, r in enumerate(proj.explained_variance_ratio))
    arrows = [(a, b), (c, answer)] if answer else []
    st.plotly_chart(word_scatter_figure(proj.coords, plotted, axis_titles=titles, arrows=arrows))
    st.download_button(
        "Download the coordinates (CSV)",
        pd.DataFrame(proj.coords, index=plotted, columns=[f"pc{i + 1}" for i in range(dims)]).to_csv(
            index_label="word"
        ),
        file_name="pca_coordinates.csv",
        key="we_csv",
    )
explain(
    r"X_c = X - \bar{x},\quad X_c = U S V^\top,\quad \text{coords} = X_c V_{:, 1..k}",
    "Axes of largest spread. Fitted on 8 words they describe those 8; fitted on 10,000 frequent words they "
    "are the space's own main directions. Signs are fixed, so the picture does not flip.",
)
show_code(projection.pca)

# --- 3. Analogies ---------------------------------------------------------------------------------------
st.header("3. Analogies: a is to b as c is to ?")
c1, c2, c3 = st.columns(3)
c1.text_input("a", key="we_a")
c2.text_input("b", key="we_b")
c3.text_input("c", key="we_c")
missing = [t for t, w in zip(typed, (a, b, c), strict=True) if w is None]
if missing:
    st.warning(f"Not in the vocabulary: {', '.join(missing)}.")
elif ranked is None:
    st.warning("Give three different words.")
else:
    st.table(pd.DataFrame(ranked, columns=["word", "cosine"]).set_index("word"))
    st.caption(f"The arrows {a} → {b} and {c} → {answer} are drawn on the PCA plot above.")
explain(
    r"\hat{d} = \arg\max_{w \notin \{a,b,c\}} \cos\big(w,\; \hat{b} - \hat{a} + \hat{c}\big)",
    "3CosAdd on unit vectors; the three query words are excluded, otherwise c itself often wins.",
)
show_code(projection.analogy, projection.nearest)

# --- 4. Neighbours --------------------------------------------------------------------------------------
st.header("4. Nearest neighbours")
c1, c2, c3 = st.columns(3)
typed_word = c1.text_input("Word", key="we_nn_word")
k = c2.slider("k", 1, 50, key="we_nn_k")
metric = c3.radio("Metric", projection.METRICS, key="we_nn_metric", horizontal=True)
word = glove.resolve_word(wv, typed_word)
if word is None:
    st.warning(f"{typed_word.strip()!r} is not in the vocabulary.")
else:
    found = projection.nearest(wv, wv.vectors[wv.stoi[word]], k, metric=metric, exclude=[wv.stoi[word]])
    st.table(pd.DataFrame(found, columns=["word", "cosine" if metric == "cosine" else "distance"]).set_index("word"))

# --- 5. Axes from word differences ----------------------------------------------------------------------
st.header("5. Axes you define")
c1, c2, c3, c4 = st.columns(4)
typed_axes = [
    c1.text_input("x from", key="we_x_from"),
    c2.text_input("x to", key="we_x_to"),
    c3.text_input("y from", key="we_y_from"),
    c4.text_input("y to", key="we_y_to"),
]
resolved = [glove.resolve_word(wv, t) for t in typed_axes]
missing = [t for t, w in zip(typed_axes, resolved, strict=True) if w is None]
if missing:
    st.warning(f"Not in the vocabulary: {', '.join(missing)}.")
else:
    x_pair, y_pair = (resolved[0], resolved[1]), (resolved[2], resolved[3])
    coords = projection.difference_axes(wv, words, x_pair, y_pair)
    st.plotly_chart(
        word_scatter_figure(coords, words, axis_titles=(f"{x_pair[1]} − {x_pair[0]}", f"{y_pair[1]} − {y_pair[0]}"))
    )
explain(
    r"x(w) = v_w \cdot \frac{v_{to} - v_{from}}{\lVert v_{to} - v_{from} \rVert}",
    "Unlike PCA, these axes mean what you say: words to the right are more 'woman' than 'man'.",
)

# --- 6. Evaluation --------------------------------------------------------------------------------------
st.header("6. How good are these vectors?")
c1, c2 = st.columns(2)
which = c1.radio("Questions", ["our small set", "upload a questions-words file"], key="we_eval_set")
restrict = c2.select_slider("Only the most frequent words", [10_000, 30_000, 100_000, 400_000], key="we_eval_restrict")
text = OUR_SET.read_text(encoding="utf-8")
if which != "our small set":
    upload = st.file_uploader(
        "questions-words.txt (`: section` lines, then `a b c d`)", type=["txt"], key="we_eval_file"
    )
    text = upload.getvalue().decode("utf-8", errors="replace") if upload else ""
if st.button("Evaluate", key="we_eval_go") and text:
    try:
        questions = evaluate.read_questions(text)
        bar = st.progress(0.0)
        result = evaluate.evaluate_analogies(
            wv,
            questions,
            restrict=restrict,
            case_insensitive=True,
            on_batch=lambda done, total: bar.progress(done / max(total, 1)),
        )
        st.metric(
            "Accuracy",
            f"{result['accuracy']:.1%}",
            help=f"{result['correct']} of {result['total']}; {result['skipped']} skipped",
        )
        st.dataframe(pd.DataFrame(result["sections"]), hide_index=True)
    except ValueError as err:
        st.error(f"That file is not in questions-words format: {err}")
st.caption(
    "gensim's rules: only the most frequent words count, questions with other words are skipped, "
    "and the query words are excluded. `python -m core.evaluate analogies FILE` does the same from a shell."
)
