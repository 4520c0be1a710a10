"""The attention page's settings, declared once (`SETTINGS`): the content and the head (the AttentionConfig they make,
with every scheme's settings), the chapter, and the distance chapter's tokens, query position and farthest distance.
Defaults from AttentionConfig; no bounds on the boxes: a value core refuses gets its message (what to change). The
training settings of the table trained on the other page are that page's (lessons.learned_vs_sinusoidal.settings).
"""

from __future__ import annotations

from core.attention.head import CONTENTS, AttentionConfig
from ui.settings import Setting, Settings

CHAPTERS = ("schemes", "terms", "learned", "checks", "distance", "exercises")  # the lesson's sections, in order
QUERY_POS_MAX = 256  # the distance view's query slides over these positions

SETTINGS = Settings(
    "at",
    (
        # the content's options are shown translated and kept in the link as core's codes
        Setting("at_content", "radio", AttentionConfig.content, "at.content", options=CONTENTS,
                option_text="at.content_{}", translated=True),
        Setting("at_shift", "number_input", AttentionConfig.shift, "at.shift", step=1, help="at.shift_help"),
        Setting("at_trained_len", "number_input", AttentionConfig.trained_len, "at.trained_len", step=1,
                help="at.trained_help"),
        Setting("at_base", "number_input", AttentionConfig.base, "at.base", step=1000.0, help="at.base_help"),
        Setting("at_alibi_heads", "number_input", AttentionConfig.alibi_heads, "at.alibi_heads", step=1),
        Setting("at_alibi_head", "number_input", AttentionConfig.alibi_head, "at.alibi_head", step=1),
        Setting("at_t5_buckets", "number_input", AttentionConfig.t5_buckets, "at.t5_buckets", step=2),
        Setting("at_t5_max", "number_input", AttentionConfig.t5_max_distance, "at.t5_max_distance", step=8),
        Setting("at_t5_bidirectional", "toggle", AttentionConfig.t5_bidirectional, "at.t5_bidirectional"),
        Setting("at_sentence", "text_input", AttentionConfig.sentence, "at.sentence"),  # for GloVe's content
        Setting("at_tokens", "number_input", AttentionConfig.n_tokens, "at.tokens", step=1),  # for random content
        Setting("at_d_model", "number_input", AttentionConfig.d_model, "d_model", step=2),
        Setting("at_head_dim", "number_input", AttentionConfig.head_dim, "head_dim", step=2),
        Setting("at_seed", "number_input", AttentionConfig.seed, "at.seed", step=1, help="at.seed_help"),
        Setting("at_causal", "toggle", AttentionConfig.causal, "at.causal", help="at.causal_help"),
        Setting("at_chapter", "segmented_control", CHAPTERS[0], "at.chapter", options=CHAPTERS,
                option_text="at.chapter_{}", translated=True),
        # the query and key tokens: their range, 0 .. the tokens' count - 1, follows the sentence
        Setting("at_query", "number_input", 0, "at.query_token", low=0),
        Setting("at_key", "number_input", 1, "at.key_token", low=0),
        Setting("at_query_pos", "slider", 8, "at.query_pos", low=0, high=QUERY_POS_MAX),
        Setting("at_max_distance", "slider", 16, "at.max_distance", low=2, high=64),
    ),
)  # fmt: skip
