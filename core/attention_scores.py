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

import torch
from torch import Tensor

from core.attention_head import AttentionConfig, Head, dtype_on, fit_width
from core.positional import sinusoidal_rows
from core.rotary import apply_rope, rope_inv_freq

SCHEMES = ("none", "sinusoidal", "learned", "rope", "alibi", "t5")
ADDED = ("sinusoidal", "learned")  # schemes that add a position vector to the input
TERMS = ("content-content", "content-position", "position-content", "position-position")


def t5_bucket(relative_position: Tensor, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128):
    """T5's bucket of each relative position n - m (key minus query), as transformers' T5Attention computes it.

    Half the buckets (per direction) are single distances, the rest logarithmically wider up to max_distance;
    every distance from max_distance on (and some below it, by rounding) shares the last bucket. Without bidirectional, keys after the query
    (n - m > 0) share bucket 0 with distance 0.

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


def _rows(table: Tensor, positions: Tensor, missing: str) -> tuple[Tensor, int]:
    """A learned table's rows at positions; past the table: its last row ("clamp") or NaN ("nan"), and how many."""
    rows = len(table)
    outside = positions >= rows
    out = table[positions.clamp(max=rows - 1).to(table.device)].to(positions.device, dtype_on(positions.device))
    if missing == "nan":
        out = out.masked_fill(outside[:, None], float("nan"))
    return out, int(outside.sum())


def position_vectors(
    cfg: AttentionConfig, scheme: str, positions: Tensor, table: Tensor | None = None, *, missing: str = "clamp"
) -> tuple[Tensor, int]:
    """p at each position for the added schemes, width d_model.

    Args:
        table: (rows, width) the learned table (scheme "learned"); a width other than d_model goes through fit_width.
        missing: what a position past the table reads: "clamp" (the last row) or "nan".
    Returns:
        (len(positions), d_model), and how many positions were past the table.
    """
    dtype = dtype_on(positions.device)
    if scheme == "sinusoidal":
        return sinusoidal_rows(positions, cfg.d_model, cfg.base, dtype=dtype), 0
    if scheme == "learned":
        if table is None:
            raise ValueError("scheme 'learned' needs a table.")
        rows, outside = _rows(table, positions, missing)  # (n, width)
        return fit_width(rows, cfg.d_model, cfg.seed), outside
    raise ValueError(f"position vectors exist only for {ADDED}; the scheme is {scheme!r}.")


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
) -> tuple[Tensor, dict[str, Tensor] | None, int]:
    """Scaled logits of queries (x_q at pos_q) against keys (x_k at pos_k) under one scheme, before any mask.

    Returns:
        (a, b) logits; the four terms for the added schemes (else None); positions read past a learned table.
    """
    scale = math.sqrt(cfg.head_dim)
    if scheme in ADDED:
        p_q, _ = position_vectors(cfg, scheme, pos_q, table, missing=missing)  # (a, d_model)
        p_k, _ = position_vectors(cfg, scheme, pos_k, table, missing=missing)  # (b, d_model)
        terms = added_terms(x_q, p_q, x_k, p_k, head.w_q, head.w_k)
        full = ((x_q + p_q) @ head.w_q) @ ((x_k + p_k) @ head.w_k).T / scale  # (a, b)
        outside = 0
        if table is not None and scheme == "learned":  # (position_vectors refuses "learned" without a table)
            outside = int((torch.cat([pos_q, pos_k]).unique() >= len(table)).sum())
        return full, terms, outside
    q, k = x_q @ head.w_q, x_k @ head.w_k  # (a, h), (b, h)
    if scheme == "rope":
        inv_freq = rope_inv_freq(cfg.head_dim, cfg.base, device=q.device)  # (h / 2,)
        q, k = apply_rope(q, pos_q, inv_freq), apply_rope(k, pos_k, inv_freq)
    elif scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}; it is {scheme!r}.")
    logits = q @ k.T / scale  # (a, b)
    extra = bias(head, cfg, scheme, pos_q, pos_k)
    return (logits if extra is None else logits + extra), None, 0


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
