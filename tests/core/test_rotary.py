"""RoPE and its scalings against independent numpy transcriptions of the published formulas; ALiBi's slopes."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.testing import assert_close

from core.problems import Problem
from core.rotary import (
    MAX_WAVELENGTH,
    SCALINGS,
    RopeConfig,
    alibi_bias,
    alibi_slopes,
    apply_rope,
    attention_scaling,
    check_extension,
    long_term_decay,
    rope_inv_freq,
    score_curves,
    scores_by_distance,
    wavelength_ratio,
    wavelengths,
)

D, BASE = 128, 10000.0
THETA = 1.0 / BASE ** (np.arange(0, D, 2) / D)


def test_default_is_base_to_the_minus_2i_over_d():
    assert_close(rope_inv_freq(D, BASE).numpy(), THETA)


def test_linear_divides_every_frequency():
    assert_close(rope_inv_freq(D, BASE, {"rope_type": "linear", "factor": 4.0}).numpy(), THETA / 4)


def test_dynamic_ntk_changes_the_base_only_past_the_original_length():
    cfg = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4096}
    assert_close(rope_inv_freq(D, BASE, cfg, seq_len=4096).numpy(), THETA)
    new_base = BASE * ((2.0 * 16384 / 4096) - 1.0) ** (D / (D - 2))
    assert_close(rope_inv_freq(D, BASE, cfg, seq_len=16384).numpy(), 1.0 / new_base ** (np.arange(0, D, 2) / D))


@pytest.mark.parametrize("rope_type", ["linear", "dynamic", "yarn", "llama3"])
def test_a_single_pair_works_with_every_scaling(rope_type):
    # head_dim 2: theta_0 = base^0 = 1, and dynamic NTK's exponent d / (d - 2) has no value to give
    cfg = {
        "rope_type": rope_type,
        "factor": 4.0,
        "original_max_position_embeddings": 4096,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
    }
    ours = rope_inv_freq(2, BASE, cfg, seq_len=16384).numpy()
    assert ours.shape == (1,) and np.isfinite(ours).all()
    if rope_type == "dynamic":
        assert ours[0] == 1.0


def test_yarn_keeps_fast_pairs_interpolates_slow_ones_and_ramps_between():
    cfg = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
    ours = rope_inv_freq(D, BASE, cfg).numpy()
    # the paper: r = L / wavelength; r > beta_fast (32) unchanged, r < beta_slow (1) divided by s, a ramp between
    dim_of = lambda rot: D * math.log(4096 / (rot * 2 * math.pi)) / (2 * math.log(BASE))  # noqa: E731
    low, high = math.floor(dim_of(32)), math.ceil(dim_of(1))
    ramp = np.clip((np.arange(D // 2) - low) / (high - low), 0, 1)
    expected = THETA / 4 * ramp + THETA * (1 - ramp)
    assert_close(ours, expected)
    assert ours[0] == THETA[0] and ours[-1] == pytest.approx(THETA[-1] / 4)
    assert attention_scaling(cfg) == pytest.approx(0.1 * math.log(4) + 1)
    assert attention_scaling({"rope_type": "linear", "factor": 4.0}) == 1.0


def llama3(low: float, high: float) -> dict:
    """Llama 3.1's scaling config (factor 8 over 8,192 positions) with the given low and high frequency factors."""
    return {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": low,
        "high_freq_factor": high,
        "original_max_position_embeddings": 8192,
    }


def test_llama3_three_bands():
    ours = rope_inv_freq(D, 500000.0, llama3(low=1.0, high=4.0)).numpy()
    theta = 1.0 / 500000.0 ** (np.arange(0, D, 2) / D)
    wavelen = 2 * np.pi / theta
    short, long_ = wavelen < 8192 / 4, wavelen > 8192 / 1
    assert_close(ours[short], theta[short])  # under original / high_freq_factor: unchanged
    assert_close(ours[long_], theta[long_] / 8)  # over original / low_freq_factor: divided by the factor
    middle = ~short & ~long_
    smooth = (8192 / wavelen[middle] - 1) / (4 - 1)
    assert_close(ours[middle], (1 - smooth) * theta[middle] / 8 + smooth * theta[middle])  # a smooth blend
    assert short.any() and long_.any() and middle.any()


def test_scores_depend_only_on_the_offset():
    torch.manual_seed(0)
    q, k = torch.randn(D, dtype=torch.float64), torch.randn(D, dtype=torch.float64)
    inv = rope_inv_freq(D, BASE)
    rot = lambda v, m: apply_rope(v[None], torch.tensor([m]), inv)[0]  # noqa: E731
    assert_close(rot(q, 10) @ rot(k, 3), rot(q, 107) @ rot(k, 100))
    assert_close(rot(q, 5) @ rot(k, 5), q @ k)
    assert_close(rot(q, 7).norm(), q.norm())  # a rotation keeps the length
    assert_close(scores_by_distance(q, k, inv, 7)[3], rot(q, 7) @ rot(k, 4))


def test_long_term_decay_matches_a_direct_sum_and_falls():
    decay = long_term_decay(D, BASE, 200).numpy()
    r = 50
    partial = np.cumsum(np.exp(1j * r * THETA))
    assert decay[r] == pytest.approx(np.abs(partial).mean())
    assert decay[0] == pytest.approx(np.mean(np.arange(1, D // 2 + 1)))
    assert decay[200] < decay[10] < decay[0]


def test_alibi_slopes_for_powers_of_two_and_others():
    assert alibi_slopes(8) == pytest.approx([1 / 2**i for i in range(1, 9)])
    twelve = alibi_slopes(12)
    assert twelve[:8] == pytest.approx(alibi_slopes(8)) and twelve[8:] == pytest.approx(alibi_slopes(16)[0::2][:4])
    bias = alibi_bias(0.5, 4)
    assert bias[3, 1].item() == -1.0 and bias[2, 2].item() == 0.0 and bias[1, 3].item() == -math.inf


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((127, BASE, None), "even"),
        ((1026, BASE, None), "from 2 to 1,024"),
        ((D, 1.0, None), "above 1"),
        ((D, 0.5, None), "above 1"),
        ((D, BASE, {"rope_type": "linear", "factor": 0.5}), "at least 1"),
        ((D, BASE, llama3(low=4.0, high=1.0)), "high_freq_factor above it"),
        ((D, BASE, llama3(low=0.0, high=4.0)), "low_freq_factor must be above 0"),  # the bands divide by both
        ((D, BASE, llama3(low=-1.0, high=4.0)), "low_freq_factor must be above 0"),
    ],
)
def test_bad_settings_say_what_to_change(args, says):
    with pytest.raises(ValueError, match=says):
        rope_inv_freq(*args)


def test_original_length_must_be_below_the_target():
    with pytest.raises(ValueError, match="below the target"):
        check_extension(8192, 4096)
    for heads in (0, 257):
        with pytest.raises(ValueError, match="needs 1 to 256 heads"):
            alibi_slopes(heads)


# --- RopeConfig and A against B ---------------------------------------------------------------------------------


def test_rope_config_builds_the_scaling_dicts_the_functions_take():
    cfg = RopeConfig(method="llama3", factor=8.0, original=8192, target=32768)
    llama3 = {
        "rope_type": "llama3",
        "factor": 8.0,
        "original_max_position_embeddings": 8192,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
    }
    assert cfg.scaling("llama3") == llama3 and cfg.scaling("default") is None
    assert cfg.scaling("linear") == {"rope_type": "linear", "factor": 8.0}
    assert_close(cfg.inv_freq(), rope_inv_freq(D, BASE, llama3, seq_len=32768))
    assert_close(cfg.inv_freq("default"), torch.from_numpy(THETA))


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        (dict(head_dim=63), "even"),
        (dict(base=1.0), "above 1"),
        (dict(method="ntk"), "must be one of"),
        (dict(factor=0.5), "at least 1"),
        (dict(low_freq=4.0), "high_freq_factor above it"),  # llama3's factors, whatever the method: section 2 uses them
        (dict(original=16384), "below the target"),
    ],
)
def test_rope_config_says_what_to_change(fields, says):
    with pytest.raises(ValueError, match=says):
        RopeConfig(**fields)


def test_wavelengths_and_their_ratio_against_the_formula():
    a, b = RopeConfig(), RopeConfig(base=500000.0)
    two_i_over_d = np.arange(0, D, 2) / D
    assert_close(wavelengths(a).numpy(), 2 * np.pi * BASE**two_i_over_d)
    # (2 pi b_B^(2i/d)) / (2 pi b_A^(2i/d)) = (b_B / b_A)^(2i/d)
    slower, linear = wavelength_ratio(a, b), wavelength_ratio(a, RopeConfig(method="linear", factor=4.0))
    assert slower is not None and linear is not None  # the same head_dim: the same pairs
    assert_close(slower.numpy(), (500000.0 / BASE) ** two_i_over_d)
    assert_close(linear.numpy(), np.full(D // 2, 4.0))  # every pair 4x slower
    assert wavelength_ratio(a, RopeConfig(head_dim=64)) is None


def test_score_curves_against_a_sum_of_cosines():
    # q = k: q_m . q_n = sum_i (q_i^2 + q_{i+d/2}^2) cos((m - n) theta_i); the seed draws q on the cpu
    cfg = RopeConfig(head_dim=16, base=100.0)
    q, k = torch.randn(2, 16, generator=torch.Generator().manual_seed(3), dtype=torch.float64).numpy()
    theta = 1.0 / 100.0 ** (np.arange(0, 16, 2) / 16)
    r = np.arange(41)[:, None]
    same = ((q[:8] ** 2 + q[8:] ** 2) * np.cos(r * theta)).sum(axis=1)
    # q and k differ: Re sum_i (q_i + i q_{i+d/2}) conj(k_i + i k_{i+d/2}) e^{i r theta_i}
    h = (q[:8] + 1j * q[8:]) * np.conj(k[:8] + 1j * k[8:])
    other = (h * np.exp(1j * r * theta)).real.sum(axis=1)
    ours_same, ours_other = score_curves(cfg, 40, 3)
    assert_close(ours_same.numpy(), same)
    assert_close(ours_other.numpy(), other)


EXTREME = st.sampled_from([1e300, 1e-300, 1e100, 1e30, 1e-30, 1 + 1e-12, 1.0, 0.0, -1.0, math.inf, -math.inf, math.nan])


def number(ordinary: float) -> st.SearchStrategy[float]:
    """A setting's value: its default, an extreme number, or any float (each a third of the time)."""
    return st.one_of(st.just(ordinary), EXTREME, st.floats(allow_nan=True, allow_infinity=True))


def length(ordinary: int) -> st.SearchStrategy[int]:
    return st.one_of(st.just(ordinary), st.sampled_from([1, 2, 2**31 - 1, 2**53]), st.integers(-10, 2**60))


@given(
    method=st.sampled_from(SCALINGS),
    head_dim=st.one_of(st.sampled_from([2, 4, 128, 1024]), st.integers(-2, 1100)),
    base=number(10000.0),
    factor=number(4.0),
    original=length(4096),
    target=length(16384),
    low=number(1.0),
    high=number(4.0),
)
@settings(max_examples=300)
def test_any_settings_give_finite_wavelengths_for_every_method_or_a_problem(
    method, head_dim, base, factor, original, target, low, high
):
    # issue 40: a factor of 1e300 divided by zero on the page; 1e100 left half the wavelengths infinite, undrawn
    try:
        cfg = RopeConfig(head_dim, base, method, original, target, factor, low, high)
    except Problem as err:
        assert err.key.startswith("rope_"), err.key
        return
    for code in SCALINGS:
        theta = cfg.inv_freq(code)
        wavelength = (2 * math.pi / theta).numpy()
        assert (theta > 0).all() and np.isfinite(wavelength).all() and (wavelength <= MAX_WAVELENGTH).all(), code
        assert np.isfinite(wavelength.astype(np.float32)).all()  # as the charts draw them


@pytest.mark.parametrize("method", ["linear", "dynamic", "yarn", "llama3"])
@pytest.mark.parametrize("factor", [1e100, 1e300])
def test_a_huge_factor_is_refused_naming_the_factor(method, factor):
    with pytest.raises(Problem) as refused:
        RopeConfig(method=method, factor=factor)
    assert refused.value.key in ("rope_slow_factor", "rope_slow_dynamic")
    assert refused.value.values["factor"] == f"{factor:g}"
    if method == "dynamic":  # the method in use is the one named
        assert refused.value.key == "rope_slow_dynamic"


def test_a_huge_base_is_refused_naming_the_base():
    with pytest.raises(Problem) as refused:
        RopeConfig(base=1e300)
    assert refused.value.key == "rope_slow_base" and refused.value.values["base"] == "1e+300"
