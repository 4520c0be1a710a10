"""figures.plain: the builders that write plotly's JSON themselves send what plotly's validation would send.

Each figure is validated again (`go.Figure(fig.to_dict())`: every property through plotly's validators, which
raise on a misspelt name or a value out of range) and must serialise to the same JSON.
"""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from figures.attention import distance_figure, heatmaps_figure
from figures.input_layer import stage_figure
from figures.plain import colorscale

TOKENS = ["the", "cat", "the"]
A = np.array([[1.0, -np.inf, -np.inf], [0.5, -2.0, -np.inf], [0.0, 3.0, -1.0]])

BUILT = {
    "heatmaps": lambda: heatmaps_figure({"rope": A, "alibi": A.T, "none": A * 2}, TOKENS, "logits", columns=2),
    "heatmaps shared": lambda: heatmaps_figure(
        {"rope": A, "alibi": A.T}, TOKENS, "weights", shared=True, colorscale="Blues", zmid=None, axis_titles=("k", "q")
    ),
    "distance": lambda: distance_figure(
        np.array([-2, 0, 3, 1]), {"rope": np.array([0.1, 0.5, -0.2, 0.3])}, "d", "x", "y", revision="at"
    ),
    "stage": lambda: stage_figure(np.arange(12.0).reshape(3, 4) - 6, "+ position", TOKENS, "dimension"),
}


@pytest.mark.parametrize("name", BUILT)
def test_a_plain_figure_is_the_one_plotly_validates(name):
    fig = BUILT[name]()
    validated = json.loads(pio.to_json(go.Figure(fig.to_dict()), validate=True))
    assert validated == json.loads(pio.to_json(fig, validate=False))


def test_a_named_colour_scale_is_written_out_reversed_names_included():
    assert colorscale("RdBu")[0][0] == 0 and colorscale("RdBu")[-1][0] == 1
    assert colorscale("Blues_r")[0][1] == colorscale("Blues")[-1][1]
