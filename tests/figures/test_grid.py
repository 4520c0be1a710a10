"""figures.grid: small multiples' axes as a layout dict, the same placement plotly.subplots.make_subplots gives."""

import pytest
from plotly.subplots import make_subplots

from figures.grid import grid_layout


@pytest.mark.parametrize(("n", "columns"), [(1, 3), (3, 3), (5, 5), (7, 3)])
def test_the_domains_are_make_subplots(n, columns):
    places, layout = grid_layout([str(i) for i in range(n)], columns, hspace=0.02, vspace=0.08)
    rows = -(-n // columns)
    reference = make_subplots(rows=rows, cols=min(n, columns), horizontal_spacing=0.02, vertical_spacing=0.08)
    theirs = reference.to_dict()["layout"]
    for place in places:
        suffix = place["xaxis"][1:]
        for axis in ("xaxis", "yaxis"):
            assert layout[axis + suffix]["domain"] == pytest.approx(theirs[axis + suffix]["domain"], abs=1e-6)
    assert [a["text"] for a in layout["annotations"]] == [str(i) for i in range(n)]


def test_unshared_axes_keep_their_own_ranges_and_ticks():
    places, layout = grid_layout(["a", "b"], 2, shared=False, axis_titles=("x", "y"))
    assert places == [{"xaxis": "x", "yaxis": "y"}, {"xaxis": "x2", "yaxis": "y2"}]
    assert "matches" not in layout["xaxis2"] and "showticklabels" not in layout["yaxis2"]
    assert layout["yaxis2"]["title"]["text"] == "y" and layout["xaxis2"]["anchor"] == "y2"
