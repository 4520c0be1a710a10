"""A view too large for a link travels as a file (issue 55, item 6): ui.share_link.view_file writes the settings a
link would hold, read_view_file reads back, for every page, exactly what its widgets take, and refuses anything else
with a reason (never unpickled, size capped)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons import declared
from ui.pages import LESSONS
from ui.settings import BY_HAND
from ui.share_link import FILE_MOST, read_view_file, view_file

DECLARED = {key: s for key, lesson in LESSONS.items() if (s := declared(lesson.folder)) is not None}


@pytest.mark.parametrize("page", sorted(DECLARED))
def test_a_views_settings_come_back_from_its_file(page):
    settings = DECLARED[page]
    state = {s.key: s.default for s in settings} | {"_other": 1}
    for s in settings:
        if s.widget in ("text_input", "text_area"):
            state[s.key] = "long text 东京 " * 2_000  # past what an address holds
    values, left = read_view_file(view_file(settings, state), settings)
    expected = {s.key: state[s.key] for s in settings if s.in_link and s.widget not in BY_HAND}
    assert values == json.loads(json.dumps(expected)) and not left  # a multiselect's tuple comes back a list


@settings(max_examples=50, deadline=None)
@given(page=st.sampled_from(sorted(DECLARED)), data=st.data())
def test_a_file_holds_only_values_the_widgets_take(page, data):
    settings = DECLARED[page]
    keys = [s.key for s in settings] + ["bogus"]
    hostile = st.one_of(st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.floats(), st.text(max_size=5),
                        st.lists(st.text(max_size=3), max_size=3))  # fmt: skip
    held = data.draw(st.dictionaries(st.sampled_from(keys), hostile, max_size=6))
    raw = json.dumps({"settings": settings.prefix, "values": held}).encode()
    values, left = read_view_file(raw, settings)
    assert set(values) | set(left) == set(held)
    for key, value in values.items():
        s = settings[key]
        if s.widget in ("number_input", "slider"):
            assert (s.low is None or value >= s.low) and (s.high is None or value <= s.high)
        elif s.options and s.widget != "multiselect":
            assert value in s.options or value is None


@pytest.mark.parametrize(
    "raw", [b"\x80\x81", b"[1, 2]", b'{"settings": "xx", "values": {}}', b"{" * 10, b" " * (FILE_MOST + 1)]
)
def test_a_file_that_is_not_a_pages_settings_is_refused_with_a_reason(raw):
    with pytest.raises(ValueError, match=r"\w"):
        read_view_file(raw, DECLARED["il"])
