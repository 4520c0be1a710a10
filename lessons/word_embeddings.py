"""Word embeddings: GloVe in nn.Embedding.from_pretrained, PCA, analogies, neighbours, evaluation (seed 003)."""

import hashlib
from pathlib import Path

import pandas as pd
import streamlit as st
import torch

from core import evaluate, glove, projection
from core.jobs import JobRunner
from core.vectors import WordVectors, lookup_words, resolve_word
from figures.words import word_scatter_figure
from ui import Between, choose_vectors, downloads, explain, set_defaults, show_code, submit, table
from ui.exercises import try_this
from ui.i18n import problem, t

OUR_SET = Path(__file__).resolve().parents[1] / "data" / "analogies_small.txt"
# gensim's questions-words.txt has 19,544 questions in 0.6 MB. Evaluations share one queue per server, so a file
# with many more would hold everyone's evaluations behind it: the rest of a file is left out, with a notice.
MAX_QUESTIONS = 20_000
QUESTIONS_MB = 2
EVAL_QUEUE = 6  # evaluations waiting in all
ASKED = "we_eval_asked"  # this session's last evaluation: its job key and what it was asked with
SEED_WORDS = "man, woman, king, queen, cat, dog, mother, father"
DEFAULTS = dict(
    words=SEED_WORDS,
    pca_dims="2D",
    pca_fit="chosen",
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
    eval_set="ours",
)
CHOICES = dict(
    pca_dims=["2D", "3D"],
    pca_fit=["chosen", "frequent"],
    background=[1000, 5000, 10_000, 50_000],
    nn_k=Between(1, 50),
    nn_metric=list(projection.METRICS),
    eval_restrict=[10_000, 30_000, 100_000, 400_000],
    eval_set=["ours", "upload"],
)


@st.cache_data(max_entries=32)
def pca_coords(_wv: WordVectors, source: str, words: tuple[str, ...], dims: int, background: int):
    x = _wv.get_vecs_by_tokens(list(words)).cpu().numpy()
    fit_on = _wv.vectors[:background].cpu().numpy() if background else None
    return projection.pca(x, dims, fit_on=fit_on)


@st.cache_resource
def eval_runner() -> JobRunner:
    """One evaluation queue per server process: one at a time, results kept per (vectors, questions, words) and
    shared by every learner; one evaluation waiting or running per learner, at most EVAL_QUEUE waiting in all."""
    return JobRunner(workers=1, keep=32, per_owner=1, max_waiting=EVAL_QUEUE)


def read_questions_or_say_why(text: str | None) -> list[evaluate.Question] | None:
    """The questions of a questions-words text, or None after a message that says what to change."""
    if text is None:
        st.warning(t("we.no_questions_file"))
        return None
    try:
        questions = evaluate.read_questions(text)
    except ValueError as err:
        st.error(t("we.not_questions", problem=problem(err)))
        return None
    if not questions:
        st.warning(t("we.no_questions"))
        return None
    return questions


def start_evaluation(wv: WordVectors, text: str | None, asked: dict) -> None:
    """Queue the evaluation of a questions-words text (None: no file yet); this session remembers it in
    state[ASKED], so the page shows it while it runs and after, across reruns and pages."""
    st.session_state.pop(ASKED, None)
    st.session_state.pop("we_eval_refused", None)
    questions = read_questions_or_say_why(text)
    if questions is None:
        return
    key = (asked["source"], hashlib.sha256(text.encode()).hexdigest(), asked["restrict"])
    kept = questions[:MAX_QUESTIONS]

    def work(progress) -> dict:
        result = evaluate.evaluate_analogies(
            wv,
            kept,
            restrict=asked["restrict"],
            case_insensitive=True,
            on_batch=lambda done, total: progress(100 * done // total, 0.0),
        )
        del result["predictions"]  # kept per key for everyone: only what the page shows
        return result

    submit(eval_runner(), key, work, 100, "we_eval_refused")
    st.session_state[ASKED] = asked | dict(key=key, n=len(questions))


@st.fragment(run_every=1.0)
def eval_progress(key: tuple, n: int, restrict: int) -> None:
    """The evaluation's progress while it waits or runs; a full rerun shows its result once it is done."""
    job = eval_runner().get(key)
    if job is None or job.done:
        st.rerun()
    if not job.started:
        st.progress(0.0, text=t("we.eval_waiting", n=eval_runner().waiting() - 1))
    else:
        st.progress(job.step / job.total, text=t("we.eval_running", n=n, restrict=restrict, percent=job.step))


def show_evaluation(wv: WordVectors, asked: dict) -> None:
    """The remembered evaluation: its progress, or its accuracy and table per section, or a message."""
    job = eval_runner().get(asked["key"])
    if job is None:  # refused (the page says why), or dropped from the kept results long ago
        return
    if asked["n"] > MAX_QUESTIONS:
        st.warning(t("we.questions_cut", n=asked["n"], most=MAX_QUESTIONS))
    if not job.done:
        eval_progress(asked["key"], min(asked["n"], MAX_QUESTIONS), min(asked["restrict"], len(wv)))
        return
    if job.error:
        st.error(t("we.eval_failed", error=job.error))
        return
    result = job.result
    if not result["total"]:
        st.warning(t("we.all_skipped", skipped=result["skipped"], restrict=min(asked["restrict"], len(wv))))
        return
    st.metric(
        t("we.accuracy"),
        f"{result['accuracy']:.1%}",
        help=t("we.accuracy_help", correct=result["correct"], total=result["total"], skipped=result["skipped"]),
    )
    table(pd.DataFrame(result["sections"]), "evaluation", hide_index=True)


set_defaults("we", DEFAULTS, CHOICES)

st.title(t("we.title"))
st.markdown(t("we.intro"))

wv, source_key = choose_vectors("we")
st.caption(t("we.source_caption", name=wv.name, n=len(wv), dim=wv.dim, device=wv.vectors.device.type))

# --- 1. Words -> ids -> vectors -----------------------------------------------------------------------
st.header(t("we.h_lookup"))
look = lookup_words(wv, st.text_input(t("we.words"), key="we_words"))
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
explain(
    r"\text{embedding}(i) = W[i],\quad W \in \mathbb{R}^{|V| \times d}",
    t("we.lookup_notice"),
)
show_code(WordVectors.embedding, glove.load_bundled)

# --- 2. PCA -------------------------------------------------------------------------------------------
st.header(t("we.h_pca"))
c1, c2, c3 = st.columns(3)
dims = 3 if c1.radio(t("we.dims"), CHOICES["pca_dims"], key="we_pca_dims", horizontal=True) == "3D" else 2
fit = c2.radio(t("we.fit"), CHOICES["pca_fit"], format_func=lambda v: t(f"we.fit_{v}"), key="we_pca_fit")
background = c3.select_slider(t("we.background"), CHOICES["background"], key="we_background", disabled=fit == "chosen")
typed = [st.session_state[f"we_{k}"] for k in "abc"]  # the analogy boxes of section 3
a, b, c = (resolve_word(wv, t) for t in typed)
ranked = projection.analogy(wv, a, b, c, 5) if None not in (a, b, c) and len({a, b, c}) == 3 else None
answer = ranked[0][0] if ranked else None
arrows_words = [w for w in (a, b, c) if w not in words] if answer else []
plotted = words + arrows_words + ([answer] if answer and answer not in words + arrows_words else [])
if fit == "chosen" and len(plotted) < dims:
    st.error(t("we.pca_too_few", dims=dims))
else:
    proj = pca_coords(wv, source_key, tuple(plotted), dims, background if fit != "chosen" else 0)
    titles = tuple(t("we.pc_title", i=i + 1, share=f"{r:.0%}") for i, r in enumerate(proj.explained_variance_ratio))
    arrows = [(a, b), (c, answer)] if answer else []
    st.plotly_chart(word_scatter_figure(proj.coords, plotted, axis_titles=titles, arrows=arrows))
    downloads(
        "pca_coordinates",
        frame=pd.DataFrame(
            proj.coords, index=pd.Index(plotted, name="word"), columns=[f"pc{i + 1}" for i in range(dims)]
        ),
    )
explain(
    r"X_c = X - \bar{x},\quad X_c = U S V^\top,\quad \text{coords} = X_c V_{:, 1..k}",
    t("we.pca_notice"),
)
show_code(projection.pca)

# --- 3. Analogies ---------------------------------------------------------------------------------------
st.header(t("we.h_analogy"))
c1, c2, c3 = st.columns(3)
c1.text_input("a", key="we_a")
c2.text_input("b", key="we_b")
c3.text_input("c", key="we_c")
missing = [typed_word for typed_word, w in zip(typed, (a, b, c), strict=True) if w is None]
if missing:
    st.warning(t("we.unknown", words=", ".join(missing)))
elif ranked is None:
    st.warning(t("we.three_different"))
else:
    table(pd.DataFrame(ranked, columns=["word", "cosine"]).set_index("word"), "analogy", plain=True)
    st.caption(t("we.arrows_caption", a=a, b=b, c=c, answer=answer))
explain(
    r"\hat{d} = \arg\max_{w \notin \{a,b,c\}} \cos\big(w,\; \hat{b} - \hat{a} + \hat{c}\big)",
    t("we.analogy_notice"),
)
show_code(projection.analogy, projection.nearest)

# --- 4. Neighbours --------------------------------------------------------------------------------------
st.header(t("we.h_neighbours"))
c1, c2, c3 = st.columns(3)
typed_word = c1.text_input(t("we.word"), key="we_nn_word")
k = c2.slider("k", *CHOICES["nn_k"], key="we_nn_k")
metric = c3.radio(t("we.metric"), projection.METRICS, key="we_nn_metric", horizontal=True)
word = resolve_word(wv, typed_word)
if word is None:
    st.warning(t("we.not_in_vocabulary", word=repr(typed_word.strip())))
else:
    found = projection.nearest(wv, wv.vectors[wv.stoi[word]], k, metric=metric, exclude=[wv.stoi[word]])
    neighbours = pd.DataFrame(found, columns=["word", "cosine" if metric == "cosine" else "distance"])
    table(neighbours.set_index("word"), "neighbours", plain=True)

# --- 5. Axes from word differences ----------------------------------------------------------------------
st.header(t("we.h_axes"))
c1, c2, c3, c4 = st.columns(4)
typed_axes = [
    c1.text_input(t("we.x_from"), key="we_x_from"),
    c2.text_input(t("we.x_to"), key="we_x_to"),
    c3.text_input(t("we.y_from"), key="we_y_from"),
    c4.text_input(t("we.y_to"), key="we_y_to"),
]
resolved = [resolve_word(wv, typed_word) for typed_word in typed_axes]
missing = [typed_word for typed_word, w in zip(typed_axes, resolved, strict=True) if w is None]
if missing:
    st.warning(t("we.unknown", words=", ".join(missing)))
else:
    x_pair, y_pair = (resolved[0], resolved[1]), (resolved[2], resolved[3])
    coords = projection.difference_axes(wv, words, x_pair, y_pair)
    st.plotly_chart(
        word_scatter_figure(coords, words, axis_titles=(f"{x_pair[1]} − {x_pair[0]}", f"{y_pair[1]} − {y_pair[0]}"))
    )
explain(
    r"x(w) = v_w \cdot \frac{v_{to} - v_{from}}{\lVert v_{to} - v_{from} \rVert}",
    t("we.axes_notice"),
)

# --- 6. Evaluation --------------------------------------------------------------------------------------
st.header(t("we.h_eval"))
c1, c2 = st.columns(2)
which = c1.radio(t("we.questions"), CHOICES["eval_set"], format_func=lambda v: t(f"we.eval_{v}"), key="we_eval_set")
restrict = c2.select_slider(t("we.restrict"), CHOICES["eval_restrict"], key="we_eval_restrict")
upload = None
if which != "ours":
    upload = st.file_uploader(t("we.questions_file"), type=["txt"], key="we_eval_file", max_upload_size=QUESTIONS_MB)
asked = dict(source=source_key, which=which, restrict=restrict)
if st.button(t("we.evaluate"), key="we_eval_go"):  # the file is read only now, not on every rerun of the page
    if which == "ours":
        text = OUR_SET.read_text(encoding="utf-8")
    else:
        text = upload.getvalue().decode("utf-8", errors="replace") if upload else None
    start_evaluation(wv, text, asked)
if refused := st.session_state.get("we_eval_refused"):
    st.warning(refused)
last = st.session_state.get(ASKED)
if last is not None and {k: last[k] for k in asked} == asked:  # shown while the settings it was asked with stay
    show_evaluation(wv, last)
st.caption(t("we.eval_caption") + " " + t("we.eval_policy", waiting=eval_runner().waiting(), queue=EVAL_QUEUE))

# --- Try this ---------------------------------------------------------------------------------------
try_this("we", wv)
