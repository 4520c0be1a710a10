"""figures/tokens.py: the tokens in place escape what they show, and the charts hold the values they are given."""

import re

from hypothesis import given
from hypothesis import strategies as st

from figures.tokens import (
    DRAWN_MERGES,
    drawn_steps,
    fertility_figure,
    merge_marker,
    merges_figure,
    price_figure,
    tokens_html,
)


def test_tokens_in_place_show_each_token_and_id_escaped_and_say_how_many_more():
    page = tokens_html(["<img src=x>", " ", "a\\nb"], [1, None, 3], limit=2)
    assert "<img" not in page and "&lt;img␣src=x&gt;" in page
    boxes = re.findall(r'class="tt-token"[^>]*>(.*?)<sub>(.*?)</sub>', page)
    assert boxes == [("&lt;img␣src=x&gt;", "1"), ("␣", "?")]
    assert "+1" in page and "#fecaca" in page  # the unknown token's own colour


def test_the_charts_hold_their_values():
    fig = merges_figure([1, 2, 3], [30, 20, 10], "t", "x", "y")
    assert list(fig.data[0].x) == [1, 2, 3] and list(fig.data[0].y) == [30, 20, 10] and fig.layout.showlegend
    marker = merge_marker(2, 20, "this").data
    assert len(marker) == 1 and list(marker[0].x) == [2] and list(marker[0].y) == [20] and marker[0].name == "this"
    fig = fertility_figure({"BPE": ([256, 1000], [4.0, 2.0])}, {"WordPiece": (30522, 1.1)}, "t", "x", "y")
    assert [list(d.y) for d in fig.data] == [[4.0, 2.0], [1.1]] and fig.layout.xaxis.type == "log"
    fig = price_figure({"a": {"table": 3, "rest": 4}, "b": {"table": 3, "rest": 4, "out": 3}}, "t", "y")
    assert [list(d.y) for d in fig.data] == [[3, 3], [4, 4], [0, 3]] and fig.layout.barmode == "stack"


@given(st.integers(0, 200_000))
def test_the_merges_chart_draws_each_merge_or_as_many_as_it_can_evenly_from_the_first_to_the_last(learned):
    steps = drawn_steps(learned)
    assert len(steps) == min(learned, DRAWN_MERGES) and steps == sorted(set(steps))
    if learned:
        assert steps[0] == 1 and steps[-1] == learned
        gaps = [b - a for a, b in zip(steps, steps[1:], strict=False)]
        assert not gaps or max(gaps) - min(gaps) <= 1  # evenly: gaps differ by rounding alone
