"""Two questions every scheme answers: does moving all positions change the logits, and what happens past the
length it was trained on.

shift check:  logits at positions 0..n-1 + k against those at 0..n-1; 0 (to rounding) when they depend on m - n only.
beyond:       at `length` tokens after training on `trained_len`: sinusoidal rows exist, a learned table ends,
              rope meets unseen angles, alibi's bias grows, t5's clips in its last bucket.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from torch import Tensor

from core.attention_head import AttentionConfig, Head
from core.attention_scores import SCHEMES, scores, t5_bucket
from core.rotary import rope_inv_freq

BEYOND = 2  # compare states what each scheme does at twice the length it was trained on


@dataclass(frozen=True)
class ShiftCheck:
    """Logits with every position moved by k against the logits at 0..n-1.

    max_diff: the largest |difference| over the pairs attention uses; clamped: positions past a learned table
    that were read as its last row (0 for every other scheme).
    """

    k: int
    max_diff: float
    clamped: int = 0


@dataclass(frozen=True)
class Beyond:
    """What a scheme does at `length` tokens when it was trained on `trained_len`: `kind` names the behaviour
    (one sentence per kind on the page), `values` the numbers that sentence quotes.

    kinds: "no_positions", "defined" (sinusoidal: every position has a row), "table_ends" (learned: rows, missing),
    "unseen_rotations" (rope: pairs, unseen_pairs), "bias_grows" (alibi: slope, at_trained, at_length),
    "bias_clips" (t5: max_distance, clips_from (the first distance in the last bucket), bucket_at_trained,
    bucket_at_length, last_bucket).
    """

    scheme: str
    kind: str
    trained_len: int
    length: int
    values: dict = field(default_factory=dict)


def shift_check(
    head: Head, cfg: AttentionConfig, scheme: str, table: Tensor | None = None, here: Tensor | None = None
) -> ShiftCheck:
    """Move every position by cfg.shift and compare the logits: 0 (to rounding) when they depend on m - n only.

    Positions past a learned table read its last row (counted in `clamped`).

    Args:
        here: the unmasked logits at positions 0..n-1 when the caller has them already.
    """
    positions = torch.arange(len(head.x), device=head.x.device)
    if here is None:
        here, _, _ = scores(head, cfg, scheme, head.x, positions, head.x, positions, table)
    there, _, clamped = scores(head, cfg, scheme, head.x, positions + cfg.shift, head.x, positions + cfg.shift, table)
    used = torch.ones_like(here, dtype=torch.bool)
    if cfg.causal:
        used = used.tril()
    return ShiftCheck(cfg.shift, (there - here)[used].abs().max().item(), clamped)


def beyond(cfg: AttentionConfig, scheme: str, length: int, table_rows: int | None = None) -> Beyond:
    """What `scheme` does with `length` tokens when it was trained on cfg.trained_len (a learned table: its rows).

    The numbers are about the longest distance, length - 1, against the longest seen in training.
    """
    if scheme == "learned" and table_rows is None:
        raise ValueError("scheme 'learned' needs table_rows.")
    trained = table_rows if scheme == "learned" and table_rows is not None else cfg.trained_len
    far, seen = length - 1, trained - 1
    if scheme == "none":
        return Beyond(scheme, "no_positions", trained, length)
    if scheme == "sinusoidal":
        return Beyond(scheme, "defined", trained, length, {"new_rows": max(0, length - trained)})
    if scheme == "learned":
        return Beyond(scheme, "table_ends", trained, length, {"rows": trained, "missing": max(0, length - trained)})
    if scheme == "rope":
        # A pair whose angle has not gone once round the circle within the trained distances meets angles
        # past the training's longest one: the pairs YaRN interpolates.
        theta = rope_inv_freq(cfg.head_dim, cfg.base)  # (h / 2,)
        unseen = int(((seen * theta < 2 * math.pi) & (far > seen)).sum())
        return Beyond(scheme, "unseen_rotations", trained, length, {"pairs": len(theta), "unseen_pairs": unseen})
    if scheme == "alibi":
        slope = cfg.alibi_slope
        return Beyond(
            scheme,
            "bias_grows",
            trained,
            length,
            {"slope": slope, "at_trained": -slope * seen, "at_length": -slope * far},
        )
    if scheme == "t5":
        # keys before the query (n - m = -distance); every distance from clips_from on reads the last bucket
        reach = max(far, seen, cfg.t5_max_distance)
        buckets = t5_bucket(-torch.arange(reach + 1), cfg.t5_bidirectional, cfg.t5_buckets, cfg.t5_max_distance)
        last = int(buckets[-1])
        values = {
            "max_distance": cfg.t5_max_distance,
            "clips_from": int((buckets == last).nonzero()[0]),
            "bucket_at_trained": int(buckets[seen]),
            "bucket_at_length": int(buckets[far]),
            "last_bucket": last,
        }
        return Beyond(scheme, "bias_clips", trained, length, values)
    raise ValueError(f"scheme must be one of {SCHEMES}; it is {scheme!r}.")
