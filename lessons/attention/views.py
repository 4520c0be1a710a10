"""The attention page's cached views: the learned tables it compares, one configuration's result under every scheme,
and one query/key pair's score against distance.

Each is keyed by what it is computed from (ui.cache): the AttentionConfig, the vectors, the learned tables by their
content, the device. `view`'s value, read-only, is shared rather than copied per call (st.cache_resource).
"""

from __future__ import annotations

import numpy as np
import streamlit as st
import torch

from core import claims
from core.attention.head import AttentionConfig
from core.attention.scores import t5_bucket
from core.attention.view import AttentionView, attention_view, score_by_distance
from core.pretrained import PretrainedMissing
from core.training import TrainConfig
from lessons.learned_vs_sinusoidal.settings import train_config
from ui.cache import cached
from ui.jobs import held, training_runner
from ui.resources import minilm_positions

MINILM = "MiniLM"  # the real learned table's name in the labels ("learned: MiniLM")
TRAINED = "trained here"  # the table trained on the learned-vs-sinusoidal page ("learned: trained here")


@cached()
def learned_tables() -> dict[str, torch.Tensor]:
    """The learned tables every learner shares: MiniLM's real one; {} when its package is missing."""
    try:
        return {MINILM: torch.from_numpy(minilm_positions())}
    except PretrainedMissing:
        return {}


def trained_table() -> tuple[TrainConfig, torch.Tensor] | None:
    """The learned table the learned-vs-sinusoidal page has trained with its current settings, or None while there
    is none. Its settings are kept across pages (persist_state), so they are read from the session through that
    page's declaration, each one missing (that page not opened yet) at its default; the job is looked up in the
    training queue both pages share, never started here."""
    try:
        train_cfg = train_config(st.session_state)
    except ValueError:  # that page shows what is wrong with its settings
        return None
    job = held(training_runner(), train_cfg)
    if job is None or not job.done or job.error:
        return None
    return train_cfg, job.result.table


@cached(max_entries=32)
def view(cfg: AttentionConfig, wv, tables: dict[str, torch.Tensor], where: str) -> AttentionView:
    """Every scheme's result for one configuration, over the vectors `wv` (None: random content), the learned
    `tables` by name, on the device `where`. Shared by every learner: read, never changed."""
    return attention_view(cfg, wv, tables, device=where)


@cached(max_entries=64, copy=True)
def curves(
    cfg: AttentionConfig, wv, tables: dict[str, torch.Tensor], where: str, query: int, key: int, pos: int, far: int
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Every scheme's logit of one query token against one key token as the key moves (cpu arrays)."""
    head = view(cfg, wv, tables, where).head
    distances, lines = score_by_distance(head, cfg, tables, query=query, key=key, query_pos=pos, max_distance=far)
    return distances.cpu().numpy(), {label: line.cpu().numpy() for label, line in lines.items()}


@cached(max_entries=64, copy=True)
def t5_reach(cfg: AttentionConfig, length: int) -> claims.BucketReach:
    """What T5's buckets do for the distances of `length` tokens against cfg.trained_len's (core.claims)."""
    reach = max(length, cfg.trained_len, cfg.t5_max_distance + 1)  # as far as the last bucket's first distance
    buckets = t5_bucket(-torch.arange(reach), cfg.t5_bidirectional, cfg.t5_buckets, cfg.t5_max_distance)
    return claims.bucket_reach(buckets.tolist(), cfg.trained_len, length)
