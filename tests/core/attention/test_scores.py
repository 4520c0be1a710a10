"""core.attention.scores: each scheme's logits against numpy transcriptions and transformers' T5 bucketing."""

import math

import numpy as np
import pytest
import torch
from torch.testing import assert_close
from transformers.models.t5.modeling_t5 import T5Attention

from core.attention.head import make_head
from core.attention.scores import TERMS, scores, t5_bucket
from tests.core.attention.numpy_reference import RANDOM, numpy_added_logits, numpy_pe


def test_the_four_terms_sum_to_the_full_logits():
    head = make_head(RANDOM)
    positions = torch.arange(len(head.x))
    result = scores(head, RANDOM, "sinusoidal", head.x, positions, head.x, positions)
    full, terms = result.logits, result.terms
    assert terms is not None and result.bias is None and result.outside == 0
    assert list(terms) == list(TERMS)
    assert_close(sum(terms.values()), full, atol=1e-5, rtol=0)
    expected = numpy_added_logits(head, numpy_pe(positions.numpy().astype(float), 32))
    assert_close(full.numpy(), expected, atol=1e-5, rtol=0)


def test_rope_logits_equal_rotated_q_and_k():
    head = make_head(RANDOM)
    positions = torch.arange(len(head.x))
    logits = scores(head, RANDOM, "rope", head.x, positions, head.x, positions).logits
    q, k = (head.x @ head.w_q).numpy(), (head.x @ head.w_k).numpy()
    theta = 1.0 / 10000.0 ** (np.arange(0, 8, 2) / 8)
    angle = positions.numpy()[:, None] * theta[None, :]

    def rotate(v):  # rotate-half layout: pair (i, i + d/2)
        a, b = v[:, :4], v[:, 4:]
        return np.concatenate([a * np.cos(angle) - b * np.sin(angle), a * np.sin(angle) + b * np.cos(angle)], 1)

    assert_close(logits.numpy(), rotate(q) @ rotate(k).T / math.sqrt(8), atol=1e-10, rtol=0)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), [(32, 128), (8, 20), (64, 1000), (4, 3)])
def test_t5_buckets_equal_transformers(bidirectional, num_buckets, max_distance):
    relative = torch.arange(-3000, 3001)
    ours = t5_bucket(relative, bidirectional, num_buckets, max_distance)
    theirs = T5Attention._relative_position_bucket(relative, bidirectional, num_buckets, max_distance)
    assert torch.equal(ours, theirs)
