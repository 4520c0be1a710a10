"""The "Inside a real Transformer" page's settings, declared once (ui.settings), in the order the page draws them: the
sentence and its pair, the chapter, and each chapter's own (defaults: core.probes.ProbeConfig's, which checks them).
The page draws each widget from here; the link and the tests read it."""

from __future__ import annotations

from core import probes
from core.minilm import HEADS, LAYERS
from core.probes import ProbeConfig
from ui.settings import Setting, Settings

CHAPTERS = ("heads", "positions", "context", "exercises")  # the lesson's sections, in order
DEFAULT = ProbeConfig()

SETTINGS = Settings(
    "tf",
    (
        Setting("tf_sentence", "text_input", DEFAULT.sentence, "tf.sentence"),
        Setting("tf_pair", "text_input", DEFAULT.pair, "tf.pair", help="tf.pair_help"),
        # One chapter at a time, kept in the link by hand (ui.link.translated_choice: ?tf_chapter=positions).
        Setting(
            "tf_chapter",
            "segmented_control",
            CHAPTERS[0],
            "tf.chapter",
            options=CHAPTERS,
            option_text="tf.chapter_{}",
            translated=True,
        ),
        # --- 1. positional heads (the layer and the head: chapter 2 too)
        Setting("tf_yours", "toggle", DEFAULT.yours, "tf.yours", help="tf.yours_help"),
        Setting("tf_layer", "number_input", DEFAULT.layer, "tf.layer", low=1, high=LAYERS),
        Setting("tf_head", "number_input", DEFAULT.head, "tf.head", low=1, high=HEADS),
        # --- 2. the positions taken away
        Setting("tf_seed", "number_input", DEFAULT.seed, "tf.seed", low=0, high=probes.MAX_SEED, help="tf.seed_help"),
        # --- 3. from static to contextual
        Setting("tf_word", "text_input", DEFAULT.word, "tf.word"),
        # its help names core.probes.MAX_USES: the page fills it in when it draws the box
        Setting("tf_uses", "text_area", DEFAULT.uses, "tf.uses", help="tf.uses_help"),
        Setting("tf_k", "number_input", DEFAULT.k, "tf.k", low=1, high=probes.MAX_K),
    ),
)
