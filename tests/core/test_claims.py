"""core.claims against the series it reads, generated: a trend's direction and peak, the leaders, the extremes, the
regions' means and T5's buckets, each checked against what the numbers say computed another way (numpy, a scan)."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from core import claims
from core.attention.scores import t5_bucket

values = st.floats(0, 1, allow_nan=False)
series = st.lists(values, min_size=1, max_size=8)


def as_series(ys: list[float]) -> dict[int, float]:
    return {k: y for k, y in zip((5, 10, 30, 100, 200, 300, 400, 500), ys, strict=False)}


@given(series)
def test_a_trend_says_which_way_the_series_goes_from_its_first_point_to_its_last(ys):
    seen = claims.trend(as_series(ys))
    change = ys[-1] - ys[0]
    assert seen.direction == ("flat" if abs(change) < claims.TOLERANCE else "rises" if change > 0 else "falls")
    assert (seen.first, seen.last) == (ys[0], ys[-1])
    assert seen.best == max(ys) and seen.best_x == list(as_series(ys))[int(np.argmax(ys))]
    # a peak is an inside point above both ends by the tolerance: the sentence "highest at k" never names an end
    inside = ys[1:-1]
    assert seen.peak == bool(inside and max(inside) - max(ys[0], ys[-1]) >= claims.TOLERANCE and max(inside) == max(ys))


def test_a_rise_like_umaps_at_20000_words_is_called_a_rise():
    """Issue 41: UMAP's neighbours kept went from 0.14 at k = 5 to 0.24 at k = 100; the notice said it fell."""
    seen = claims.trend({5: 0.14, 10: 0.16, 30: 0.20, 100: 0.24})
    assert seen.direction == "rises" and seen.best_x == 100 and not seen.peak


@given(st.dictionaries(st.text(min_size=1, max_size=3), st.one_of(values, st.just(math.nan)), max_size=5))
def test_the_leaders_are_every_entry_within_the_tolerance_of_the_best_and_never_nan(scores):
    leading = claims.leaders(scores)
    finite = {n: s for n, s in scores.items() if not math.isnan(s)}
    if not finite:
        assert leading == ()
        return
    top = max(finite.values())
    assert set(leading) == {n for n, s in finite.items() if top - s < claims.TOLERANCE}
    assert finite[leading[0]] == top


@given(st.lists(values, min_size=1, max_size=10))
def test_extremes_name_the_highest_and_the_lowest_pair(cosines):
    pairs = {(i, i + 1): c for i, c in enumerate(cosines)}
    ends = claims.extremes(pairs)
    assert ends.closest_value == max(cosines) and pairs[ends.closest] == max(cosines)
    assert ends.farthest_value == min(cosines) and pairs[ends.farthest] == min(cosines)


def test_bat_the_two_sports_uses_end_lowest_and_the_extremes_say_so():
    """Issue 41: with "bat" the sports uses ended lowest (0.77), the animal ones at 0.92."""
    ends = claims.extremes({(0, 1): 0.85, (0, 2): 0.77, (1, 3): 0.92, (2, 3): 0.80})
    assert (ends.closest, ends.farthest) == ((1, 3), (0, 2))


@given(st.lists(st.lists(values, min_size=3, max_size=3), min_size=1, max_size=6))
def test_the_mean_by_stage_is_numpys(rows):
    curves = {(i, i + 1): row for i, row in enumerate(rows)}
    np.testing.assert_allclose(claims.mean_by_stage(curves), np.mean(rows, axis=0))


@given(st.lists(st.one_of(values, st.just(math.nan)), min_size=1, max_size=12), st.integers(0, 12))
def test_region_means_leave_nan_out_and_split_at_the_trained_length(accuracy, split):
    inside, beyond = claims.region_means(accuracy, split)
    for got, part in ((inside, accuracy[:split]), (beyond, accuracy[split:])):
        seen = [a for a in part if not math.isnan(a)]
        assert math.isnan(got) if not seen else got == pytest.approx(np.mean(seen))


@given(
    st.sampled_from([4, 8, 16, 32, 64]),
    st.integers(8, 200),
    st.booleans(),
    st.integers(1, 64),
    st.integers(1, 256),
)
def test_bucket_reach_against_a_scan_of_t5s_buckets(buckets, max_distance, bidirectional, trained_len, length):
    max_distance = max(max_distance, buckets)  # the page's rule keeps max_distance above the exact buckets
    reach = max(length, trained_len, max_distance + 1)
    per_distance = t5_bucket(-torch.arange(reach), bidirectional, buckets, max_distance).tolist()
    got = claims.bucket_reach(per_distance, trained_len, length)
    far = length - 1
    assert got.farthest == far and got.bucket == per_distance[far]
    assert got.buckets_used == len(set(per_distance[:length]))
    assert got.unseen == len(set(per_distance[:length]) - set(per_distance[:trained_len]))
    own = [per_distance[d] != per_distance[d - 1] for d in range(1, length)]
    assert got.shared_from == (None if all(own) else own.index(False) + 1)
    last = max(per_distance)
    assert got.clips_from == min(d for d, b in enumerate(per_distance) if b == last)
    assert got.reaches_last == (per_distance[far] == last)


def test_at_16_tokens_t5s_defaults_never_reach_the_last_bucket():
    """Issue 41: at 16 tokens (trained on 8) the page named the distance 91 that no distance of 16 tokens reaches."""
    per_distance = t5_bucket(-torch.arange(129), True, 32, 128).tolist()
    got = claims.bucket_reach(per_distance, 8, 16)
    assert got.farthest == 15 and not got.reaches_last and got.clips_from > 15
    assert got.shared_from == 9 and got.unseen > 0  # 0..7 one bucket each, then wider ones training never used


def test_axis_ends_put_the_to_word_at_the_high_end():
    assert claims.axis_ends("small", "big") == ("small", "big")


matrices = st.integers(1, 6).flatmap(
    lambda n: st.integers(1, 6).flatmap(
        lambda d: st.lists(st.lists(st.floats(-100, 100), min_size=d, max_size=d), min_size=n, max_size=n)
    )
)


@given(matrices)
def test_row_moments_are_numpys_mean_and_biased_variance_per_row(rows):
    got = claims.row_moments(rows)
    x = np.asarray(rows)
    assert got.largest_mean == pytest.approx(np.abs(x.mean(axis=1)).max(), abs=1e-9)
    assert got.least_var == pytest.approx(x.var(axis=1).min(), rel=1e-9, abs=1e-9)
    assert got.largest_var == pytest.approx(x.var(axis=1).max(), rel=1e-9, abs=1e-9)


@given(st.lists(st.tuples(st.floats(-50, 50), st.floats(-50, 50)), min_size=1, max_size=20), st.floats(0.1, 10))
def test_spread_scales_with_the_layout_and_ignores_where_it_sits(points, scale):
    xy = np.asarray(points)
    assert claims.spread(xy * scale + 7.0) == pytest.approx(scale * claims.spread(xy), rel=1e-6, abs=1e-9)
    assert claims.spread(xy) == pytest.approx(np.sqrt(((xy - xy.mean(0)) ** 2).sum(1).mean()), abs=1e-9)


@given(st.floats(0.5, 20), st.floats(0.5, 20))
def test_size_and_gap_ratios_read_back_the_layout_they_are_given(wide, far):
    rng = np.random.default_rng(0)
    unit = rng.normal(size=(50, 2))
    labels = np.repeat([0, 1], 50)
    xy = np.concatenate([unit, unit * wide + 100])
    assert claims.size_ratio(xy, labels) == pytest.approx(wide, rel=1e-9)
    centres = np.array([[0.0, 0.0], [1.0, 0.0], [1.0 + far, 0.0]])
    three = np.concatenate([unit * 0.01 + c for c in centres])
    assert claims.gap_ratio(three, np.repeat([0, 1, 2], 50)) == pytest.approx(far, rel=1e-6)


@given(st.dictionaries(st.tuples(st.integers(0, 5), st.integers(0, 11)), values, min_size=1))
def test_highest_is_the_largest_value_and_its_key(grid):
    key, value = claims.highest(grid)
    assert value == max(grid.values()) and grid[key] == value
