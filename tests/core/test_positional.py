"""The sinusoidal table against an independent numpy reference, and its invariants."""

import math

import numpy as np
import pytest
import torch
from torch.testing import assert_close

from core.positional import (
    PEConfig,
    SinusoidalPositionalEncoding,
    apply_shift,
    div_term_difference,
    dot_by_offset,
    pe_columns,
    pe_difference,
    pe_window,
    position_similarity,
    shift_error,
    shift_operator,
    sinusoidal_encoding,
    wavelengths,
)


def reference(max_len: int, d: int, base: float, layout: str) -> np.ndarray:
    """The paper's formula column by column, with a direct power and float64 numpy."""
    pe = np.zeros((max_len, d))
    pos = np.arange(max_len, dtype=np.float64)
    sines: list[np.ndarray] = []
    cosines: list[np.ndarray] = []
    for col in range(d):
        i = col // 2
        angle = pos / np.power(base, 2 * i / d)
        (sines if col % 2 == 0 else cosines).append(np.sin(angle) if col % 2 == 0 else np.cos(angle))
        if layout == "interleaved":
            pe[:, col] = sines[-1] if col % 2 == 0 else cosines[-1]
    if layout == "concatenated":
        pe = np.stack(sines + cosines, axis=1)
    return pe


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize(
    ("max_len", "d", "base"), [(50, 16, 1e4), (100, 20, 1e4), (7, 5, 1e4), (300, 64, 5e5), (10, 1, 100.0)]
)
def test_matches_numpy_reference(max_len, d, base, layout):
    ours = sinusoidal_encoding(max_len, d, base, layout=layout, dtype=torch.float64)
    assert ours.shape == (max_len, d)
    assert_close(ours.numpy(), reference(max_len, d, base, layout), rtol=0, atol=1e-9)


def test_float32_table_is_exact_far_out():
    """Angles are formed in float64, so row 99,999 is as exact as float32 can hold."""
    rows = pe_window(PEConfig(64, 100_000), 99_990, 100_000)
    assert_close(rows.double().numpy(), reference(100_000, 64, 1e4, "interleaved")[99_990:], rtol=0, atol=1e-6)


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize("d_model", [7, 64])
def test_chosen_columns_are_the_tables_columns(layout, d_model):
    cfg = PEConfig(d_model, 5000, 500000.0, layout)
    dims = [d_model - 1, 0, 3, 4, d_model // 2]  # any order, either side of the sines' end
    expected = reference(5000, d_model, 500000.0, layout)[4000:4100, dims]
    assert_close(pe_columns(cfg, 4000, 4100, dims).double().numpy(), expected, rtol=0, atol=1e-6)
    assert torch.equal(pe_columns(cfg, 0, 50, dims), pe_window(cfg, 0, 50)[:, dims])


def test_odd_d_model_has_one_more_sine_than_cosine():
    pe = sinusoidal_encoding(4, 7, layout="concatenated")
    assert_close(pe[0], torch.tensor([0.0, 0, 0, 0, 1, 1, 1]))


def test_first_row_alternates_zero_and_one():
    assert_close(sinusoidal_encoding(1, 10)[0], torch.tensor([0.0, 1] * 5))


@pytest.mark.parametrize("d", [2, 16, 512])
def test_every_row_has_squared_norm_half_d(d):
    pe = sinusoidal_encoding(200, d, dtype=torch.float64)
    assert_close((pe**2).sum(1), torch.full((200,), d / 2, dtype=torch.float64))


def test_dot_product_depends_only_on_offset():
    curves = dot_by_offset(PEConfig(64, 10_000), [0, 37, 5_000], 100)
    assert_close(curves[1], curves[0])
    assert_close(curves[2], curves[0])
    omegas = np.power(1e4, -np.arange(0, 64, 2) / 64)
    closed_form = np.cos(np.arange(101)[:, None] * omegas).sum(1)  # sum_i cos(k w_i)
    assert_close(curves[0].numpy(), closed_form)


def test_similarity_matrix_is_a_function_of_m_minus_n():
    sim = position_similarity(sinusoidal_encoding(40, 32, dtype=torch.float64), "dot")
    assert_close(sim[5, 9], sim[20, 24])
    cos = position_similarity(sinusoidal_encoding(40, 32), "cosine")
    assert_close(cos.diagonal(), torch.ones(40))


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize("d", [8, 9, 128])
def test_shift_operator_maps_pos_to_pos_plus_k(layout, d):
    pe = sinusoidal_encoding(60, d, layout=layout, dtype=torch.float64)
    m = shift_operator(7, d, layout=layout, dtype=torch.float64)
    paired = slice(None) if d % 2 == 0 else [c for c in range(d) if c != (d - 1 if layout == "interleaved" else d // 2)]
    assert_close((pe[:-7] @ m.T)[:, paired], pe[7:][:, paired])
    # each 2x2 block is a rotation: M_k is orthogonal on the paired columns
    assert_close((m @ m.T)[paired][:, paired], torch.eye(d, dtype=torch.float64)[paired][:, paired])


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize("d", [6, 7])
def test_pairwise_shift_equals_the_dense_operator(layout, d):
    rows = torch.randn(5, d, dtype=torch.float64)
    dense = rows @ shift_operator(3, d, layout=layout, dtype=torch.float64).T
    assert_close(apply_shift(rows, 3, layout=layout), dense)


def test_shift_error_is_float32_small_and_nan_when_nothing_to_check():
    assert shift_error(PEConfig(512, 100_000), 5, 99_000, 99_990) < 1e-5
    assert math.isnan(shift_error(PEConfig(16, 10), 20, 0, 10))
    assert math.isnan(shift_error(PEConfig(1, 10), 1, 0, 10))


def test_wavelengths_run_from_two_pi_to_two_pi_base_power():
    lam = wavelengths(512, 1e4)
    assert lam.shape == (256,)
    assert lam[0].item() == pytest.approx(2 * math.pi)
    assert lam[-1].item() == pytest.approx(2 * math.pi * 1e4 ** (510 / 512))


def test_exp_log_and_direct_power_agree():
    assert div_term_difference(512, 1e4) < 1e-6


def test_module_adds_the_table_and_checks_length():
    module = SinusoidalPositionalEncoding(d_model=8, dropout=0.0, max_len=10).eval()
    x = torch.zeros(2, 4, 8)
    assert_close(module(x), sinusoidal_encoding(4, 8).expand(2, 4, 8))
    with pytest.raises(ValueError, match="max_len"):
        module(torch.zeros(1, 11, 8))


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"d_model": 0}, "d_model"),
        ({"max_len": 0}, "max_len"),
        ({"base": 1.0}, "above 1"),
        ({"base": 0.5}, "above 1"),
        ({"base": float("nan")}, "finite"),
        ({"base": float("inf")}, "finite"),
        ({"layout": "zigzag"}, "layout"),
    ],
)
def test_config_rejects_bad_values_with_a_message(kwargs, words):
    with pytest.raises(ValueError, match=words):
        PEConfig(**kwargs)


def test_budget_message_says_what_to_reduce():
    assert PEConfig(512, 1000).over_budget() is None
    message = str(PEConfig(4096, 100_000).over_budget())
    assert "Reduce max_len to at most 16,384" in message and "d_model to at most 671" in message


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (PEConfig(), PEConfig(base=500000.0)),
        (PEConfig(d_model=16, max_len=40), PEConfig(d_model=24, max_len=30, layout="concatenated")),
    ],
)
def test_difference_is_b_less_a_on_the_cells_both_tables_have(a, b):
    rows, cols = min(a.max_len, b.max_len), min(a.d_model, b.d_model)
    expected = (
        reference(b.max_len, b.d_model, b.base, b.layout)[:rows, :cols]
        - reference(a.max_len, a.d_model, a.base, a.layout)[:rows, :cols]
    )
    np.testing.assert_allclose(pe_difference(a, b, 0, 1000).numpy(), expected, atol=1e-5)
    np.testing.assert_allclose(pe_difference(a, b, 5, 25, 2, 9).numpy(), expected[5:25, 2:9], atol=1e-5)
    assert pe_difference(a, b, 5, 25, cols + 1, cols + 5).shape == (20, 0)  # past the narrower table
    assert pe_difference(a, b, rows + 3, rows + 9).shape == (0, cols)
    assert not pe_difference(a, a, 0, 30).any()
