"""The word page's settings, declared once (ui.settings), in the order the page draws them: the vectors, the words
looked up, the analogy's three words, PCA's, the neighbours', the axes' four words and the evaluation's. The page
draws each widget from here; the link and the tests read it."""

from __future__ import annotations

from core.projection import METRICS
from ui.settings import Setting, Settings
from ui.vectors import vectors_setting

SEED_WORDS = "man, woman, king, queen, cat, dog, mother, father"
ANALOGY = {"a": "man", "b": "woman", "c": "king"}  # a is to b as c is to ?
AXES = {"x_from": "man", "x_to": "woman", "y_from": "man", "y_to": "king"}  # each axis from one word to another
DIMS = ("2D", "3D")
BACKGROUNDS = (1000, 5000, 10_000, 50_000)  # most frequent words PCA may be fitted on
NEIGHBOURS_K = (1, 50, 10)  # the neighbours' k: least, most, default
QUESTIONS = ("ours", "upload")  # the evaluation's questions: the bundled set, or a file
RESTRICTS = (10_000, 30_000, 100_000, 400_000)  # the evaluation's most frequent words (gensim's restrict_vocab)

SETTINGS = Settings(
    "we",
    (
        vectors_setting("we"),
        Setting("we_words", "text_input", SEED_WORDS, "we.words"),
        *(Setting(f"we_{box}", "text_input", word, box) for box, word in ANALOGY.items()),
        Setting("we_pca_dims", "radio", DIMS[0], "we.dims", options=DIMS),
        # A toggle, not a radio of translated options: a bound radio puts its option's text, in the reader's
        # language, into the link (ui_api's caveat), and a link must open in either language.
        Setting("we_pca_fit", "toggle", False, "we.fit_frequent_toggle"),
        Setting("we_background", "select_slider", 10_000, "we.background", options=BACKGROUNDS),
        Setting("we_nn_word", "text_input", "frog", "we.word"),
        Setting("we_nn_k", "slider", NEIGHBOURS_K[2], "k", low=NEIGHBOURS_K[0], high=NEIGHBOURS_K[1]),
        # kept in the link as core names it, shown in the reader's language
        Setting(
            "we_nn_metric",
            "radio",
            METRICS[0],
            "we.metric",
            options=METRICS,
            option_text="we.metric_{}",
            translated=True,
        ),
        *(Setting(f"we_{box}", "text_input", word, f"we.{box}") for box, word in AXES.items()),
        # Not in the link: a link cannot carry the uploaded file, and the options' texts are translated.
        Setting(
            "we_eval_set",
            "radio",
            QUESTIONS[0],
            "we.questions",
            options=QUESTIONS,
            option_text="we.eval_{}",
            in_link=False,
        ),  # fmt: skip
        Setting("we_eval_restrict", "select_slider", 30_000, "we.restrict", options=RESTRICTS),
    ),
)
