"""core.attention.checks: the shift check against numpy, and what each scheme does past its trained length."""

import numpy as np
import pytest
import torch
from transformers.models.t5.modeling_t5 import T5Attention

from core.attention.checks import beyond, shift_check
from core.attention.head import AttentionConfig, make_head
from tests.core.attention.numpy_reference import RANDOM, numpy_added_logits, numpy_pe


@pytest.mark.parametrize("scheme", ["none", "rope", "alibi", "t5"])
@pytest.mark.parametrize("causal", [False, True])
def test_relative_schemes_are_shift_invariant(scheme, causal):
    for shift in (1, 7, 1000):
        cfg = AttentionConfig(content="random", n_tokens=12, d_model=32, head_dim=8, shift=shift, causal=causal)
        assert shift_check(make_head(cfg), cfg, scheme).max_diff < 1e-5


def test_added_sinusoidal_is_not_shift_invariant_and_by_how_much():
    head = make_head(RANDOM)
    check = shift_check(head, RANDOM, "sinusoidal")
    positions = np.arange(len(head.x), dtype=float)
    here = numpy_added_logits(head, numpy_pe(positions, 32))
    there = numpy_added_logits(head, numpy_pe(positions + RANDOM.shift, 32))
    assert check.max_diff == pytest.approx(np.abs(there - here).max(), abs=1e-9)
    print(f"added sinusoidal, shift {RANDOM.shift}: logits move by up to {check.max_diff:.3f}")
    assert check.max_diff > 0.1  # logits of order 1 move by a visible amount


def test_past_the_trained_length_as_data():
    cfg = AttentionConfig(content="random", head_dim=16, trained_len=16, t5_max_distance=128)
    assert beyond(cfg, "none", 64).kind == "no_positions"
    assert beyond(cfg, "sinusoidal", 64).values == {"new_rows": 48}
    assert beyond(cfg, "learned", 64, table_rows=16).values == {"rows": 16, "missing": 48}
    rope = beyond(cfg, "rope", 64).values
    theta = 1.0 / 10000.0 ** (np.arange(0, 16, 2) / 16)
    assert rope == {"pairs": 8, "unseen_pairs": int((15 * theta < 2 * np.pi).sum())}
    alibi = beyond(cfg, "alibi", 64).values
    assert alibi["at_length"] == pytest.approx(-0.5 * 63) and alibi["at_trained"] == pytest.approx(-0.5 * 15)
    t5 = beyond(cfg, "t5", 1000).values
    buckets = T5Attention._relative_position_bucket(-torch.arange(1000), True, 32, 128)
    assert t5["last_bucket"] == 15 == t5["bucket_at_length"] and t5["bucket_at_trained"] == int(buckets[15])
    assert t5["clips_from"] == int((buckets == 15).nonzero()[0]) <= 128


def test_positions_past_a_learned_table_are_clamped_and_counted():
    cfg = AttentionConfig(content="random", n_tokens=10, d_model=16, head_dim=4, shift=8)
    table = torch.randn(16, 16)
    assert shift_check(make_head(cfg), cfg, "learned", table).clamped == 2  # positions 16 and 17


def test_a_learned_table_without_its_rows_is_named_not_a_type_error():
    """Found by mypy: beyond subtracted 1 from table_rows before checking it was given (TypeError: None - 1)."""
    with pytest.raises(ValueError, match="table_rows"):
        beyond(RANDOM, "learned", 64)
