"""Every scheme on one head's content, side by side: what the attention page draws (the last of core.attention's
modules; the head, the scores and the checks come before it).

    logits[m, n] = q_m . k_n / sqrt(head_dim) + bias(m, n)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from core.attention.checks import BEYOND, Beyond, ShiftCheck, beyond, shift_check
from core.attention.head import AttentionConfig, Head, make_head
from core.attention.scores import ADDED, attend, scores
from core.vectors import WordVectors


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
        here = scores(head, cfg, scheme, head.x, positions, head.x, positions, table)
        logits, weights = attend(here.logits, cfg.causal)
        terms = here.terms
        if terms is not None and cfg.causal:  # hidden where the logits are, so the four still sum to them
            terms = {name: t.masked_fill(torch.isinf(logits), -torch.inf) for name, t in terms.items()}
        rows = None if table is None else len(table)  # a learned table was trained on its rows
        shift = shift_check(head, cfg, scheme, table, here.logits)
        past = beyond(cfg, scheme, BEYOND * (cfg.trained_len if rows is None else rows), rows)
        out.append(SchemeResult(scheme, label, logits, weights, here.bias, terms, shift, past))
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
        curves[label] = scores(head, cfg, scheme, x_q, pos_q, x_k, pos_k, table, missing="nan").logits[0]
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
        terms = self.result(label).terms
        if terms is None:
            raise ValueError(f"only the added schemes {ADDED} have the four terms; {label!r} has none.")
        return {name: t.cpu().numpy() for name, t in terms.items()}


def attention_view(
    cfg: AttentionConfig, wv: WordVectors | None = None, tables: Mapping[str, Tensor] | None = None, *, device=None
) -> AttentionView:
    """make_head, then compare: the one call a page makes per configuration (and caches by cfg and table names)."""
    head = make_head(cfg, wv, device=device)
    return AttentionView(head, compare(head, cfg, tables))
