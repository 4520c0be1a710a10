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

from core.attention.head import AttentionConfig, Head
from core.attention.scores import SCHEMES, scores, t5_bucket
from core.rotary import rope_inv_freq

BEYOND = 2  # compare states what each scheme does at twice the length it was trained on
KINDS = {  # what each scheme does past its trained length: Beyond.kind, one sentence per kind on the page
    "none": "no_positions",
    "sinusoidal": "defined",
    "learned": "table_ends",
    "rope": "unseen_rotations",
    "alibi": "bias_grows",
    "t5": "bias_clips",
}


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

    kind is KINDS[scheme]; values: none none, sinusoidal new_rows, learned rows and missing, rope pairs and
    unseen_pairs, alibi slope, at_trained and at_length, t5 max_distance, clips_from (the first distance in the last
    bucket), bucket_at_trained, bucket_at_length and last_bucket.
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
        here = scores(head, cfg, scheme, head.x, positions, head.x, positions, table).logits
    there = scores(head, cfg, scheme, head.x, positions + cfg.shift, head.x, positions + cfg.shift, table)
    used = torch.ones_like(here, dtype=torch.bool)
    if cfg.causal:
        used = used.tril()
    return ShiftCheck(cfg.shift, (there.logits - here)[used].abs().max().item(), there.outside)


def beyond(cfg: AttentionConfig, scheme: str, length: int, table_rows: int | None = None) -> Beyond:
    """What `scheme` does with `length` tokens when it was trained on cfg.trained_len (a learned table: its rows).

    The numbers are about the longest distance, length - 1, against the longest seen in training.
    """
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}; it is {scheme!r}.")
    if scheme == "learned" and table_rows is None:
        raise ValueError("scheme 'learned' needs table_rows.")
    trained = table_rows if scheme == "learned" and table_rows is not None else cfg.trained_len
    far, seen = length - 1, trained - 1
    values: dict = {}
    if scheme == "sinusoidal":
        values = {"new_rows": max(0, length - trained)}
    elif scheme == "learned":
        values = {"rows": trained, "missing": max(0, length - trained)}
    elif scheme == "rope":
        # A pair whose angle has not gone once round the circle within the trained distances meets angles
        # past the training's longest one: the pairs YaRN interpolates.
        theta = rope_inv_freq(cfg.head_dim, cfg.base)  # (h / 2,)
        values = {"pairs": len(theta), "unseen_pairs": int(((seen * theta < 2 * math.pi) & (far > seen)).sum())}
    elif scheme == "alibi":
        slope = cfg.alibi_slope
        values = {"slope": slope, "at_trained": -slope * seen, "at_length": -slope * far}
    elif scheme == "t5":
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
    return Beyond(scheme, KINDS[scheme], trained, length, values)
