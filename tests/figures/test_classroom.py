"""The room's answers chart: one bar per answer, the most given on top, right answers coloured apart."""

import pytest

from figures.classroom import RIGHT, WRONG, answers_figure


def test_one_bar_per_answer_most_given_on_top_right_ones_green():
    fig = answers_figure(["16", "8", "32"], [5, 2, 1], [True, False, False], "The room's answers", "Learners").to_dict()
    bar = fig["data"][0]
    assert list(bar["y"]) == ["32", "8", "16"] and list(bar["x"]) == [1, 2, 5]  # the last bar is drawn on top
    assert list(bar["marker"]["color"]) == [WRONG, WRONG, RIGHT]
    assert fig["layout"]["xaxis"]["title"]["text"] == "Learners" and fig["layout"]["yaxis"]["type"] == "category"


def test_no_answers_is_an_empty_chart_and_mismatched_lists_are_refused():
    assert list(answers_figure([], [], [], "t", "a").to_dict()["data"][0]["x"]) == []
    with pytest.raises(ValueError):
        answers_figure(["a"], [1, 2], [True], "t", "a")
