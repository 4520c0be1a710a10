"""figures.titles: a st.plotly_chart figure's title fits a phone's chart (issue 42)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from figures.positional import offset_figure
from figures.titles import LINE_PX, NARROW_UNITS, _units, narrow_title, title_lines

# words, spaces and CJK characters (a closing mark never opens a line: tests/figures/test_minilm.py)
WORDS = st.text(alphabet=st.sampled_from("abcdefghij =位置编码"), max_size=200)


@given(WORDS)
def test_a_title_wider_than_a_phone_is_broken_into_lines_that_fit_and_pushes_the_margin(text):
    spec, top = narrow_title(text, 40)
    lines = spec["text"].split("<br>")
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost
    longest_word = max((_units(w) for w in text.split()), default=0)
    assert all(_units(line) <= max(NARROW_UNITS, longest_word) for line in lines)
    assert top == 40 + LINE_PX * (len(lines) - 1)  # room for the lines above the plot
    assert len(lines) == 1 or (spec["yref"], spec["y"], spec["yanchor"]) == ("container", 1, "top")  # drawn down


def test_a_short_title_stays_as_it_was():
    assert narrow_title("PE[pos, i]", 40) == (dict(text="PE[pos, i]"), 40)
    assert title_lines("x" * NARROW_UNITS, NARROW_UNITS) == ["x" * NARROW_UNITS]


def test_the_pe_pages_offset_chart_has_a_title_that_fits_a_phone():
    title = "Dot product against the offset k = m − n, one line per reference position n"
    layout = offset_figure(np.array([[1.0, 0.5]]), [0], (title, "offset k", "PE[n] · PE[n+k]")).to_dict()["layout"]
    assert layout["title"]["text"].count("<br>") == 1 and layout["margin"]["t"] == 40 + LINE_PX
