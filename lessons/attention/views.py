"""The attention page's cached views: the learned tables it compares, one configuration's result under every scheme,
and one query/key pair's score against distance.

Decorated here, once per process, rather than in the page: the page's chapters run in a fragment that a setting's
move reruns alone, and `view`'s value, read-only, is shared rather than copied per call (st.cache_resource).
Streamlit hashes a dataclass argument field by field through dataclasses.asdict, about a millisecond for an
AttentionConfig: its repr, every field's value, is the same key (`BY_REPR`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import streamlit as st
import torch

from core import claims
from core.attention.head import AttentionConfig
from core.attention.scores import t5_bucket
from core.attention.view import AttentionView, attention_view, score_by_distance
from core.pretrained import PretrainedMissing
from core.training import TrainConfig
from ui.jobs import training_runner
from ui.parse import parse_number
from ui.resources import minilm_positions

MINILM = "MiniLM"  # the real learned table's name in the labels ("learned: MiniLM")
TRAINED = "trained here"  # the table trained on the learned-vs-sinusoidal page ("learned: trained here")
LV_SETTINGS = ("task", "shift", "d_model", "train_len", "steps", "seed")  # that page's settings, key "lv_<name>"
BY_REPR: dict[str | type, Callable[[Any], str]] = {
    AttentionConfig: repr,
    TrainConfig: repr,
}  # hash_funcs: frozen dataclasses of plain values


@st.cache_resource(show_spinner=False)
def learned_tables() -> dict[str, torch.Tensor]:
    """The learned tables every learner shares: MiniLM's real one; {} when its package is missing."""
    try:
        return {MINILM: torch.from_numpy(minilm_positions())}
    except PretrainedMissing:
        return {}


def trained_table() -> tuple[TrainConfig, torch.Tensor] | None:
    """The learned table the learned-vs-sinusoidal page has trained with its current settings, or None while there
    is none. Its settings are kept across pages (persist_state), so they are read from the session, each one
    missing (that page not opened yet) its TrainConfig default; the job is looked up in the training queue both
    pages share, never started here."""
    default = TrainConfig()
    chosen = {name: st.session_state.get(f"lv_{name}", getattr(default, name)) for name in LV_SETTINGS}
    try:
        lr = parse_number(st.session_state.get("lv_lr", f"{default.lr:g}"), "lr", f"{default.lr:g}")
        train_cfg = TrainConfig(position="learned", lr=lr, **chosen)
    except ValueError:  # that page shows what is wrong with its settings
        return None
    job = training_runner().get(train_cfg)
    if job is None or not job.done or job.error:
        return None
    return train_cfg, job.result.table


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=BY_REPR)
def view(
    cfg: AttentionConfig, _wv, _tables: dict, names: tuple[str, ...], trained: TrainConfig | None, where: str
) -> AttentionView:
    """Every scheme's result for one configuration: the vectors are the bundled GloVe, the tables known by their
    names and the trained one by its TrainConfig, and `where` is the device, so the key needs none of them.
    Shared by every learner: read, never changed."""
    return attention_view(cfg, _wv, _tables, device=where)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=BY_REPR)
def curves(
    cfg: AttentionConfig,
    _wv,
    _tables: dict,
    names: tuple[str, ...],
    trained: TrainConfig | None,
    where: str,
    query: int,
    key: int,
    pos: int,
    far: int,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Every scheme's logit of one query token against one key token as the key moves (cpu arrays)."""
    head = view(cfg, _wv, _tables, names, trained, where).head
    distances, lines = score_by_distance(head, cfg, _tables, query=query, key=key, query_pos=pos, max_distance=far)
    return distances.cpu().numpy(), {label: line.cpu().numpy() for label, line in lines.items()}


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=BY_REPR)
def t5_reach(cfg: AttentionConfig, length: int) -> claims.BucketReach:
    """What T5's buckets do for the distances of `length` tokens against cfg.trained_len's (core.claims)."""
    reach = max(length, cfg.trained_len, cfg.t5_max_distance + 1)  # as far as the last bucket's first distance
    buckets = t5_bucket(-torch.arange(reach), cfg.t5_bidirectional, cfg.t5_buckets, cfg.t5_max_distance)
    return claims.bucket_reach(buckets.tolist(), cfg.trained_len, length)
