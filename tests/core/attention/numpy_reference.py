"""The attention maths written out again in numpy, for tests/core/attention/ to check core against."""

import math

import numpy as np

from core.attention.head import AttentionConfig

RANDOM = AttentionConfig(content="random", n_tokens=12, d_model=32, head_dim=8, seed=3)


def numpy_pe(positions: np.ndarray, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The paper's table, written out again: sin on even columns, cos on odd ones."""
    angle = positions[:, None] / base ** (np.arange(0, d_model, 2) / d_model)[None, :]
    pe = np.zeros((len(positions), d_model))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return pe


def numpy_added_logits(head, pe: np.ndarray) -> np.ndarray:
    """(x + pe) W_q . (x + pe) W_k / sqrt(head_dim) for the head's content x and the positions' table pe."""
    x, wq, wk = head.x.numpy(), head.w_q.numpy(), head.w_k.numpy()
    h = x + pe
    return (h @ wq) @ (h @ wk).T / math.sqrt(wq.shape[1])
