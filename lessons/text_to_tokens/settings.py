"""The text-to-tokens page's settings, declared once (ui.settings): the page draws its widgets from them, the link
holds them all."""

from core.bpe import LANGS
from core.tokens import FIXED, LEARNED, LISTED
from ui.settings import Setting, Settings

SENTENCE = "Unbelievable! Tokenizers cut 2,718 words into pieces: 东京 too."
# what "Use these tokens" hands on (core.tokens.CUTS): the learned vocabularies first, MiniLM's WordPiece by default
CUTS = LEARNED + LISTED + FIXED
WORDS = (1_000, 5_000, 10_000, 50_000)  # the most frequent words BPE trains on
MOST_MERGES = 60_000  # more than 50,000 English words allow (58,647): the page says how many they do

SETTINGS = Settings(
    "tt",
    (
        Setting("tt_sentence", "text_area", SENTENCE, "tt.sentence", help="tt.sentence_help"),
        Setting(
            "tt_lang",
            "segmented_control",
            LANGS[0],
            "tt.lang",
            options=LANGS,
            option_text="tt.lang_{}",
            translated=True,
        ),
        Setting("tt_words", "select_slider", 10_000, "tt.words", options=WORDS),
        Setting(
            "tt_merges", "number_input", 2_000, "tt.merges", low=0, high=MOST_MERGES, step=500, help="tt.merges_help"
        ),
        # 0 to the merges learnt: the page sets the bound (the data may allow fewer merges than asked)
        Setting("tt_step", "slider", 50, "tt.step", low=0, high=None, step=1),
        Setting("tt_cut", "radio", CUTS[0], "tt.cut", options=CUTS, option_text="tt.cut_{}", translated=True),
    ),
)
