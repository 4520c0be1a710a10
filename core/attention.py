"""One attention head on the same content under every way of giving it positions.

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

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from core.device import float64_ok
from core.embeddings import split_words
from core.positional import sinusoidal_rows
from core.problems import Problem
from core.rotary import MAX_HEADS, alibi_slopes, apply_rope, rope_inv_freq
from core.vectors import WordVectors

CONTENTS = ("glove", "random")
SCHEMES = ("none", "sinusoidal", "learned", "rope", "alibi", "t5")
ADDED = ("sinusoidal", "learned")  # schemes that add a position vector to the input
TERMS = ("content-content", "content-position", "position-content", "position-position")
MAX_TOKENS = 64  # the heatmaps stay readable, one cell per token pair
MAX_D_MODEL = 1024
MAX_HEAD_DIM = 256
MAX_SHIFT = 100_000
MAX_T5_BUCKETS = 256
DEFAULT_SENTENCE = "the cat sat on the mat because it was tired"
BEYOND = 2  # compare states what each scheme does at twice the length it was trained on


@dataclass(frozen=True)
class AttentionConfig:
    """The content, the head and every scheme's settings. Raises ValueError (a Problem) with what to change.

    content "glove" reads `sentence` through GloVe; "random" draws `n_tokens` vectors from N(0, 1) with `seed`.
    W_q and W_k are drawn from N(0, 1 / d_model) with `seed`. `shift` is the k of the shift check; `trained_len`
    the length a model would have been trained on (the learned tables bring their own).
    """

    content: str = "glove"
    sentence: str = DEFAULT_SENTENCE
    n_tokens: int = 10
    d_model: int = 50
    head_dim: int = 16
    seed: int = 0
    causal: bool = False
    base: float = 10000.0
    alibi_heads: int = 8
    alibi_head: int = 0
    t5_buckets: int = 32
    t5_max_distance: int = 128
    t5_bidirectional: bool = True
    shift: int = 8
    trained_len: int = 16

    def __post_init__(self) -> None:
        if self.content not in CONTENTS:
            raise ValueError(f"content must be one of {CONTENTS}; it is {self.content!r}.")
        if self.content == "glove":
            n = len(split_words(self.sentence))
            if n == 0:
                raise Problem("attn_empty")
            if n > MAX_TOKENS:
                raise Problem("attn_too_long", n=n, most=MAX_TOKENS)
        elif not 1 <= self.n_tokens <= MAX_TOKENS:
            raise Problem("attn_tokens", most=MAX_TOKENS, value=self.n_tokens)
        if not 1 <= self.d_model <= MAX_D_MODEL:
            raise Problem("attn_d_model", most=MAX_D_MODEL, value=self.d_model)
        if not 2 <= self.head_dim <= MAX_HEAD_DIM or self.head_dim % 2:
            raise Problem("rope_head_dim", most=MAX_HEAD_DIM, value=self.head_dim)
        if not (math.isfinite(self.base) and self.base > 1):
            raise Problem("rope_base", value=self.base)
        if not 0 <= self.seed < 2**31:
            raise Problem("attn_seed", value=self.seed)
        if not 1 <= self.alibi_heads <= MAX_HEADS:
            raise Problem("alibi_heads", most=MAX_HEADS, value=self.alibi_heads)
        if not 0 <= self.alibi_head < self.alibi_heads:
            raise Problem("attn_alibi_head", most=self.alibi_heads - 1, value=self.alibi_head)
        if not 4 <= self.t5_buckets <= MAX_T5_BUCKETS or self.t5_buckets % 2:
            raise Problem("attn_t5_buckets", most=MAX_T5_BUCKETS, value=self.t5_buckets)
        if not self.t5_exact < self.t5_max_distance <= MAX_SHIFT:
            raise Problem("attn_t5_max_distance", least=self.t5_exact + 1, most=MAX_SHIFT, value=self.t5_max_distance)
        if not 1 <= self.shift <= MAX_SHIFT:
            raise Problem("attn_shift", most=MAX_SHIFT, value=self.shift)
        if not 1 <= self.trained_len <= MAX_SHIFT:
            raise Problem("attn_trained_len", most=MAX_SHIFT, value=self.trained_len)

    @property
    def alibi_slope(self) -> float:
        """This head's slope among alibi_heads (core.rotary.alibi_slopes)."""
        return alibi_slopes(self.alibi_heads)[self.alibi_head]

    @property
    def t5_exact(self) -> int:
        """Distances below this have a bucket each (T5's max_exact: half of the buckets of one direction)."""
        return (self.t5_buckets // 2 if self.t5_bidirectional else self.t5_buckets) // 2


@dataclass(frozen=True, eq=False)
class Head:
    """The content every scheme sees: tokens, their vectors x and the head's projections.

    Attributes:
        x: (n, d_model); w_q, w_k: (d_model, head_dim); t5_table: (t5_buckets,) one bias per bucket.
        unknown: sentence words GloVe does not have (their x rows are zero).
    """

    tokens: list[str]
    unknown: list[str]
    x: Tensor
    w_q: Tensor
    w_k: Tensor
    t5_table: Tensor


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


@dataclass(frozen=True, eq=False)
class SchemeResult:
    """One scheme on the head's content.

    Attributes:
        label: the scheme, or "learned: <table name>".
        logits: (n, n) scaled logits, -inf where the causal mask hides a key.
        weights: (n, n) softmax of each row.
        bias: (n, n) the bias alibi and t5 add (None for the others).
        terms: the four (n, n) terms of the added schemes, keyed by TERMS (-inf where the mask hides a key); they sum
            to the logits.
    """

    scheme: str
    label: str
    logits: Tensor
    weights: Tensor
    bias: Tensor | None
    terms: dict[str, Tensor] | None
    shift: ShiftCheck
    beyond: Beyond


def _dtype(device) -> torch.dtype:
    return torch.float64 if float64_ok(torch.device(device or "cpu")) else torch.float32


def _generator(seed: int, salt: int) -> torch.Generator:
    """One stream per thing drawn, so that changing the content leaves W_q, W_k and the T5 table as they were."""
    return torch.Generator().manual_seed(seed * 16 + salt)


def fit_width(v: Tensor, d_model: int, seed: int, salt: int = 5) -> Tensor:
    """Rows of another width to d_model: unchanged when the widths agree, else times a seeded (w, d_model) matrix
    from N(0, 1 / d_model), which keeps lengths and dot products on average (Johnson-Lindenstrauss).

    Returns:
        (n, d_model)
    """
    if v.size(1) == d_model:
        return v
    return v @ _projection(v.size(1), d_model, seed, salt).to(v.device, v.dtype)  # (n, d_model)


@functools.lru_cache(maxsize=16)
def _projection(width: int, d_model: int, seed: int, salt: int) -> Tensor:
    """fit_width's matrix, drawn once per shape and seed (never written to)."""
    return torch.randn(width, d_model, generator=_generator(seed, salt), dtype=torch.float64) / math.sqrt(d_model)


def make_head(cfg: AttentionConfig, wv: WordVectors | None = None, *, device=None) -> Head:
    """The tokens, x (GloVe rows, or random), W_q, W_k and the T5 bias table, in float64 where the device has it.

    Args:
        wv: the vectors for content "glove" (unknown words get zero rows); unused for "random".
    """
    dtype = _dtype(device)
    if cfg.content == "glove":
        if wv is None:
            raise ValueError("content 'glove' needs the word vectors (wv).")
        tokens = split_words(cfg.sentence)
        unknown = [w for w in tokens if w not in wv.stoi]
        rows = [wv.vectors[wv.stoi[w]].double().cpu() if w in wv.stoi else torch.zeros(wv.dim) for w in tokens]
        x = fit_width(torch.stack(rows).double(), cfg.d_model, cfg.seed, salt=4)  # (n, d_model)
    else:
        tokens, unknown = [f"t{i}" for i in range(cfg.n_tokens)], []
        x = torch.randn(cfg.n_tokens, cfg.d_model, generator=_generator(cfg.seed, 0), dtype=torch.float64)
    w = [
        torch.randn(cfg.d_model, cfg.head_dim, generator=_generator(cfg.seed, s), dtype=torch.float64)
        / math.sqrt(cfg.d_model)
        for s in (1, 2)
    ]
    t5 = torch.randn(cfg.t5_buckets, generator=_generator(cfg.seed, 3), dtype=torch.float64)
    to = dict(device=device, dtype=dtype)
    return Head(tokens, unknown, x.to(**to), w[0].to(**to), w[1].to(**to), t5.to(**to))


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
    out = table[positions.clamp(max=rows - 1).to(table.device)].to(positions.device, _dtype(positions.device))
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
    dtype = _dtype(positions.device)
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
        outside = 0 if scheme == "sinusoidal" else int((torch.cat([pos_q, pos_k]).unique() >= len(table)).sum())
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
    trained = table_rows if scheme == "learned" else cfg.trained_len
    far, seen = length - 1, trained - 1
    if scheme == "none":
        return Beyond(scheme, "no_positions", trained, length)
    if scheme == "sinusoidal":
        return Beyond(scheme, "defined", trained, length, {"new_rows": max(0, length - trained)})
    if scheme == "learned":
        if table_rows is None:
            raise ValueError("scheme 'learned' needs table_rows.")
        return Beyond(scheme, "table_ends", trained, length, {"rows": table_rows, "missing": max(0, length - trained)})
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


def scheme_labels(tables: Mapping[str, Tensor]) -> list[tuple[str, str, Tensor | None]]:
    """(scheme, label, table) for every scheme, the learned one once per table (none when there is no table)."""
    out: list[tuple[str, str, Tensor | None]] = [("none", "none", None), ("sinusoidal", "sinusoidal", None)]
    out += [("learned", f"learned: {name}", table) for name, table in tables.items()]
    return out + [("rope", "rope", None), ("alibi", "alibi", None), ("t5", "t5", None)]


def compare(head: Head, cfg: AttentionConfig, tables: Mapping[str, Tensor] | None = None) -> list[SchemeResult]:
    """Every scheme on the head's content at positions 0..n-1: logits, weights, bias or terms, shift check and
    what happens past the trained length (at BEYOND times each scheme's trained length; `beyond` for any other).

    Args:
        tables: learned position tables by name, e.g. {"trained": (16, 64), "MiniLM": (512, 384)}.
    """
    positions = torch.arange(len(head.x), device=head.x.device)
    out = []
    for scheme, label, table in scheme_labels(tables or {}):
        rows = None if table is None else len(table)
        raw, terms, _ = scores(head, cfg, scheme, head.x, positions, head.x, positions, table)
        logits, weights = attend(raw, cfg.causal)
        if terms is not None and cfg.causal:  # hidden where the logits are, so the four still sum to them
            terms = {name: t.masked_fill(torch.isinf(logits), -torch.inf) for name, t in terms.items()}
        out.append(
            SchemeResult(
                scheme,
                label,
                logits,
                weights,
                bias(head, cfg, scheme, positions, positions),
                terms,
                shift_check(head, cfg, scheme, table, raw),
                beyond(cfg, scheme, BEYOND * (cfg.trained_len if table is None else len(table)), rows),
            )
        )
    return out


def score_by_distance(
    head: Head,
    cfg: AttentionConfig,
    tables: Mapping[str, Tensor] | None = None,
    *,
    query: int = 0,
    key: int = 1,
    query_pos: int = 8,
    max_distance: int = 16,
) -> tuple[Tensor, dict[str, Tensor]]:
    """The logit of one query token at position query_pos against one key token at every position n within
    max_distance of it (n >= 0; n <= query_pos when causal), under every scheme: the same content, only m - n
    changes. Slide query_pos: the curves of rope, alibi, t5 and none stay put, the added ones move.

    Args:
        query, key: token indices into the head's content.
    Returns:
        distances m - n, (N,) long, decreasing; {label: (N,) logits}, NaN where a learned table has no row.
    """
    device = head.x.device
    top = query_pos if cfg.causal else query_pos + max_distance
    pos_k = torch.arange(max(0, query_pos - max_distance), top + 1, device=device)  # (N,)
    pos_q = torch.tensor([query_pos], device=device)
    x_q, x_k = head.x[query : query + 1], head.x[key : key + 1].expand(len(pos_k), -1)  # (1, d), (N, d)
    curves = {}
    for scheme, label, table in scheme_labels(tables or {}):
        curves[label] = scores(head, cfg, scheme, x_q, pos_q, x_k, pos_k, table, missing="nan")[0][0]
    return query_pos - pos_k, curves


@dataclass(frozen=True, eq=False)
class AttentionView:
    """Everything the attention page draws for one configuration: the head and every scheme's result."""

    head: Head
    results: list[SchemeResult]

    def matrices(self, what: str = "logits") -> dict[str, np.ndarray]:
        """{label: (n, n) cpu float64 array} of each scheme's "logits" or "weights" (masked logits are -inf)."""
        return {r.label: getattr(r, what).cpu().numpy() for r in self.results}

    def result(self, label: str) -> SchemeResult:
        """The result whose label is `label` ("sinusoidal", "learned: MiniLM", ...)."""
        return next(r for r in self.results if r.label == label)

    def terms(self, label: str = "sinusoidal") -> dict[str, np.ndarray]:
        """The four terms of an added scheme as cpu arrays, keyed by TERMS."""
        return {name: t.cpu().numpy() for name, t in self.result(label).terms.items()}


def attention_view(
    cfg: AttentionConfig, wv: WordVectors | None = None, tables: Mapping[str, Tensor] | None = None, *, device=None
) -> AttentionView:
    """make_head, then compare: the one call a page makes per configuration (and caches by cfg and table names)."""
    head = make_head(cfg, wv, device=device)
    return AttentionView(head, compare(head, cfg, tables))
