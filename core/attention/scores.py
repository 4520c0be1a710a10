"""Each scheme's logits for one head: how it gives attention positions.

    logits[m, n] = q_m . k_n / sqrt(head_dim) + bias(m, n),   q = x W_q,  k = x W_k

none:        q_m . k_n from content alone: attention treats the sentence as a set.
sinusoidal:  x + p added to the input (Vaswani et al. 2017), so q_m . k_n splits into four terms:
             x_m W_q . x_n W_k  +  x_m W_q . p_n W_k  +  p_m W_q . x_n W_k  +  p_m W_q . p_n W_k
             (content-content, content-position, position-content, position-position).
learned:     the same sum with a learned table's rows (BERT, GPT-2); rows past the table do not exist.
rope:        q and k rotated by their position (RoFormer), so q_m . k_n depends on m - n only.
alibi:       bias -slope * |m - n| (Press et al. 2022); causal: -slope * (m - n) for n <= m.
t5:          bias b[bucket(n - m)] from T5's bucketing (Raffel et al. 2020): exact near, logarithmic far, one
             bucket from max_distance on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from core.attention.head import AttentionConfig, Head, dtype_on, fit_width
from core.positional import sinusoidal_rows
from core.rotary import apply_rope, rope_inv_freq

SCHEMES = ("none", "sinusoidal", "learned", "rope", "alibi", "t5")
ADDED = ("sinusoidal", "learned")  # schemes that add a position vector to the input
TERMS = ("content-content", "content-position", "position-content", "position-position")


def t5_bucket(relative_position: Tensor, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128):
    """T5's bucket of each relative position n - m (key minus query), as transformers' T5Attention computes it.

    Half the buckets (per direction) are single distances, the rest logarithmically wider up to max_distance;
    every distance from max_distance on (and some below it, by rounding) shares the last bucket. Without
    bidirectional, keys after the query (n - m > 0) share bucket 0 with distance 0.

    Returns:
        long tensor of relative_position's shape, values in [0, num_buckets).
    """
    buckets = torch.zeros_like(relative_position, dtype=torch.long)
    if bidirectional:
        num_buckets //= 2
        buckets += (relative_position > 0).long() * num_buckets
        distance = relative_position.abs()
    else:
        distance = -relative_position.clamp(max=0)
    max_exact = num_buckets // 2
    large = (
        max_exact
        + (
            torch.log(distance.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
        ).long()
    )
    large = large.clamp(max=num_buckets - 1)
    return buckets + torch.where(distance < max_exact, distance, large)


def position_vectors(
    cfg: AttentionConfig, scheme: str, positions: Tensor, table: Tensor | None = None, *, missing: str = "clamp"
) -> Tensor:
    """p at each position for the added schemes, width d_model: the sinusoidal rows, or a learned table's.

    Args:
        table: (rows, width) the learned table (scheme "learned"); a width other than d_model goes through fit_width.
        missing: what a position past the table reads: "clamp" (the last row) or "nan".
    Returns:
        (len(positions), d_model)
    """
    if scheme not in ADDED:
        raise ValueError(f"position vectors exist only for {ADDED}; the scheme is {scheme!r}.")
    dtype = dtype_on(positions.device)
    if scheme == "sinusoidal":
        return sinusoidal_rows(positions, cfg.d_model, cfg.base, dtype=dtype)
    if table is None:
        raise ValueError("scheme 'learned' needs a table.")
    rows = table[positions.clamp(max=len(table) - 1).to(table.device)].to(positions.device, dtype)  # (n, width)
    if missing == "nan":
        rows = rows.masked_fill((positions >= len(table))[:, None], float("nan"))
    return fit_width(rows, cfg.d_model, cfg.seed)  # (n, d_model)


def added_terms(x_q: Tensor, p_q: Tensor, x_k: Tensor, p_k: Tensor, w_q: Tensor, w_k: Tensor) -> dict[str, Tensor]:
    """The four terms of (x_q + p_q) W_q . (x_k + p_k) W_k / sqrt(head_dim).

    Args:
        x_q, p_q: (a, d_model) queries' content and position; x_k, p_k: (b, d_model) keys'.
    Returns:
        {TERMS[i]: (a, b)}; their sum is the full scaled logits.
    """
    scale = math.sqrt(w_q.size(1))
    qc, qp, kc, kp = x_q @ w_q, p_q @ w_q, x_k @ w_k, p_k @ w_k  # (a, h), (a, h), (b, h), (b, h)
    return dict(zip(TERMS, (qc @ kc.T / scale, qc @ kp.T / scale, qp @ kc.T / scale, qp @ kp.T / scale), strict=True))


def bias(head: Head, cfg: AttentionConfig, scheme: str, pos_q: Tensor, pos_k: Tensor) -> Tensor | None:
    """The bias alibi or t5 adds to query pos_q[i] and key pos_k[j]; None for the other schemes.

    Returns:
        (len(pos_q), len(pos_k))
    """
    relative = pos_k[None, :] - pos_q[:, None]  # (a, b): n - m, as T5 defines it
    if scheme == "alibi":
        return -cfg.alibi_slope * relative.abs().to(head.x.dtype)
    if scheme == "t5":
        return head.t5_table[t5_bucket(relative, cfg.t5_bidirectional, cfg.t5_buckets, cfg.t5_max_distance)]
    return None


@dataclass(frozen=True, eq=False)
class Scores:
    """One scheme's scaled logits of queries against keys, before any mask, and what they are made of.

    Attributes:
        logits: (a, b) q . k / sqrt(head_dim) + bias.
        terms: the four (a, b) terms of an added scheme, keyed by TERMS, summing to the logits (else None).
        bias: (a, b) what alibi or t5 adds (else None).
        outside: how many distinct positions were past a learned table (0 for every other scheme).
    """

    logits: Tensor
    terms: dict[str, Tensor] | None
    bias: Tensor | None
    outside: int


def scores(
    head: Head,
    cfg: AttentionConfig,
    scheme: str,
    x_q: Tensor,
    pos_q: Tensor,
    x_k: Tensor,
    pos_k: Tensor,
    table: Tensor | None = None,
    *,
    missing: str = "clamp",
) -> Scores:
    """Scaled logits of queries (x_q at pos_q) against keys (x_k at pos_k) under one scheme, before any mask:
    the added schemes add p to x, rope rotates q and k, alibi and t5 add a bias, none does nothing.

    Args:
        table: the learned table (scheme "learned"); missing: what a position past it reads (position_vectors).
    """
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}; it is {scheme!r}.")
    terms, outside = None, 0
    if scheme in ADDED:
        p_q = position_vectors(cfg, scheme, pos_q, table, missing=missing)  # (a, d_model)
        p_k = position_vectors(cfg, scheme, pos_k, table, missing=missing)  # (b, d_model)
        terms = added_terms(x_q, p_q, x_k, p_k, head.w_q, head.w_k)
        x_q, x_k = x_q + p_q, x_k + p_k
        if table is not None and scheme == "learned":
            outside = int((torch.cat([pos_q, pos_k]).unique() >= len(table)).sum())
    q, k = x_q @ head.w_q, x_k @ head.w_k  # (a, h), (b, h)
    if scheme == "rope":
        inv_freq = rope_inv_freq(cfg.head_dim, cfg.base, device=q.device)  # (h / 2,)
        q, k = apply_rope(q, pos_q, inv_freq), apply_rope(k, pos_k, inv_freq)
    logits = q @ k.T / math.sqrt(cfg.head_dim)  # (a, b)
    extra = bias(head, cfg, scheme, pos_q, pos_k)
    return Scores(logits if extra is None else logits + extra, terms, extra, outside)


def attend(logits: Tensor, causal: bool) -> tuple[Tensor, Tensor]:
    """The causal mask (key n > query m hidden: -inf) when asked, then each row's softmax.

    Returns:
        (n, n) masked logits, (n, n) weights.
    """
    if causal:
        n = logits.size(0)
        future = torch.ones(n, n, dtype=torch.bool, device=logits.device).triu(1)
        logits = logits.masked_fill(future, -torch.inf)
    return logits, logits.softmax(dim=-1)
