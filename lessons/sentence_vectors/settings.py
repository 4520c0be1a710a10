"""The "Sentence vectors" page's settings, declared once: the page draws its widgets from SETTINGS, the link is read
and checked from it, and the tests enumerate it."""

from core.cloud import METHODS
from core.sentences import SPACES
from ui.settings import Setting, Settings

CHAPTERS = ("sentences", "order", "search", "map", "exercises")  # the lesson's sections, in order
SENTENCES = "\n".join(
    (
        "The cat sat on the mat.",
        "A kitten was sleeping on the rug.",
        "The stock market fell sharply today.",
        "Shares dropped as investors sold.",
        "I love this film.",
        "I do not love this film.",
    )
)
# The characters of a typed text (a query, a pair's sentence, a line of the list) the page reads: MiniLM's vector reads
# 256 pieces, and a whole megabyte tokenized peaked near the 300 MiB a run may take (issue 55); the box keeps it all.
MOST_CHARS = 4_096
K = (1, 20, 5)  # the search's k: least, most, default
KEPT_K = (1, 50, 10)  # neighbours kept and trustworthiness at k: least, most, default

SETTINGS = Settings(
    "sv",
    (
        Setting("sv_chapter", "segmented_control", CHAPTERS[0], "sv.chapter", options=CHAPTERS,
                option_text="sv.chapter_{}", translated=True),
        Setting("sv_sentences", "text_area", SENTENCES, "sv.sentences", help="sv.sentences_help"),
        Setting("sv_first", "text_input", "the dog chased the cat", "sv.first"),
        Setting("sv_second", "text_input", "the cat chased the dog", "sv.second"),
        Setting("sv_query", "text_input", "a storm is coming tonight", "sv.query"),
        Setting("sv_k", "number_input", K[2], "k", low=K[0], high=K[1], step=1),
        Setting("sv_space", "radio", SPACES[0], "sv.space", options=SPACES, option_text="sv.space_{}",
                translated=True),
        Setting("sv_method", "radio", METHODS[0], "sv.method", options=METHODS),
        Setting("sv_kept_k", "number_input", KEPT_K[2], "sv.kept_k", low=KEPT_K[0], high=KEPT_K[1], step=1),
    ),
)  # fmt: skip
