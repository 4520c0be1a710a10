"""The input-layer page's settings, declared once (ui.settings): the table the tokens are looked up in, the layer's
own settings (defaults: core.embeddings.LayerConfig's), the cut the text-to-tokens page handed on, the
sentences, the initialisation section 2 compares and section 5's sizes. The page draws each widget from here; the
link and the tests read it."""

from __future__ import annotations

import inspect

from core import embeddings as emb
from ui.settings import Setting, Settings

MODES = ("glove", "random", "minilm")  # the table the tokens are looked up in
POSITIONS = ("sinusoidal", "learned")
INITS = ("normal", "xavier")  # section 2's token tables
D_MODELS = tuple(2**k for k in range(2, 10))  # the random table's widths
INIT = inspect.signature(emb.norms_against_d_model).parameters["init"].default
# Each sentence box's text read (the box keeps it all): enough for max_len's 512 tokens of ordinary words, and a
# bound on the random table, one row per distinct word (issue 55: 1 MB of distinct words peaked at +600 MB).
MOST_CHARS = 4_096
VOCAB, TIE_D = 37_000, 512  # the base Transformer's: 37,000 shared BPE tokens, d_model 512 (section 5)

SETTINGS = Settings(
    "il",
    (
        Setting("il_mode", "radio", MODES[0], "il.table", options=MODES, option_text="il.option_{}", translated=True),
        Setting("il_scale", "toggle", emb.LAYER.scale, "× √d_model", help="il.scale_help"),
        Setting(
            "il_position",
            "radio",
            emb.LAYER.position,
            "il.positions",
            options=POSITIONS,
            option_text="il.option_{}",
            translated=True,
        ),
        Setting("il_d_model", "select_slider", emb.LAYER.d_model, "d_model", options=D_MODELS),
        Setting("il_max_len", "number_input", emb.LAYER.max_len, "max_len", low=1, high=512, step=1),
        Setting("il_dropout", "slider", emb.LAYER.dropout, "il.dropout", low=0.0, high=0.9),
        Setting("il_train", "toggle", False, "il.training", help="il.training_help"),
        # the cut "Use these tokens" hands on (ui.tokens.Handed.text); empty: the page's own words
        Setting("il_from", "text_input", "", "il.from", help="il.from_help"),
        Setting("il_sentence", "text_input", " ".join(emb.ARE_YOU_OK_WORDS), "il.sentence"),
        Setting("il_pair", "text_input", "", "il.pair"),
        Setting(
            "il_init",
            "radio",
            INIT,
            "il.init",
            options=INITS,
            option_text="il.option_{}",
            translated=True,
            help="il.init_help",
        ),
        Setting("il_vocab", "number_input", VOCAB, "il.vocab", low=2, high=1_000_000, step=1000),
        Setting("il_tie_d", "number_input", TIE_D, "d_model", low=1, high=16384, step=64),
    ),
)
