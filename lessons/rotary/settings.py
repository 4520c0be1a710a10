"""The rotary page's settings, declared once (`SETTINGS`): one head's RoPE and the scaling that extends its context
(the RopeConfig they make), the A pinned to compare with, the pair and the positions drawn, the distance and seed of
the scores, and ALiBi's heads, head and length. The number boxes have no bounds: a value core refuses gets core's
message, which says what to change."""

from __future__ import annotations

from core.rotary import SCALINGS, RopeConfig
from ui.settings import Setting, Settings

BASES = ("10000", "500000")  # the common bases offered beside the base's box
HEADS = 8  # ALiBi's heads by default

SETTINGS = Settings(
    "rp",
    (
        Setting("rp_original", "number_input", RopeConfig.original, "rp.original", step=1024),
        Setting("rp_target", "number_input", RopeConfig.target, "rp.target", step=1024),
        # Hugging Face's rope_type codes, kept in the link as they are (?rp_method=yarn) and shown translated
        Setting("rp_method", "selectbox", RopeConfig.method, "rp.method", options=SCALINGS,
                option_text="rp.scaling_{}", translated=True, help="rp.method_help"),
        Setting("rp_factor", "number_input", RopeConfig.factor, "rp.factor", step=0.5, help="rp.factor_help"),
        Setting("rp_low_freq", "number_input", RopeConfig.low_freq, "llama3 low_freq_factor", step=0.5),
        Setting("rp_high_freq", "number_input", RopeConfig.high_freq, "llama3 high_freq_factor", step=0.5),
        Setting("rp_head_dim", "number_input", RopeConfig.head_dim, "head_dim", step=2),
        Setting("rp_base", "text_input", f"{RopeConfig.base:g}", "base", help="rp.base_help"),
        Setting("rp_base_pick", "pills", None, "pe.common_bases", options=BASES, in_link=False),
        Setting("rp_a", "pinned", None, "ui.ab_pin"),  # ui.compare.pin_ui: A, these settings pinned
        # its range, 0 .. head_dim // 2 - 1, follows head_dim (ui.settings.Setting.draw_inside); so does its default, at most 8
        Setting("rp_pair", "slider", 8, "rp.pair", low=0, high=RopeConfig.head_dim // 2 - 1),
        Setting("rp_positions", "slider", 64, "rp.positions", low=4, high=256),
        Setting("rp_distance", "slider", 512, "rp.distance", low=16, high=4096),
        Setting("rp_seed", "number_input", 0, "rp.seed", step=1),
        Setting("rp_heads", "number_input", HEADS, "rp.heads", step=1),
        Setting("rp_head", "slider", 0, "rp.head", low=0, high=HEADS - 1),  # its range follows the heads
        Setting("rp_alibi_len", "slider", 32, "rp.alibi_len", low=4, high=128),
    ),
)  # fmt: skip
