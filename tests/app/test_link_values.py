"""A link's value for a setting that its first view does not draw (another chapter's, another method's) is named
when its widget is first drawn and does not take it, as a value for a setting drawn at once is named at once
(ui.link.check_link's WAITING). Streamlit alone drops such a value without a word when the widget is drawn.

Every setting of every page (tests/app/test_links.py's SHARED) is given a value that its widget's range or choices
may refuse, in one link per page (a value a widget takes is then set to a valid one, so that the rest of the
page is drawn); the test then opens every view of the page (each chapter, each method) and checks
that each value was taken by its widget or named in a notice, and that every setting was drawn by some view.
"""

import re
from pathlib import Path

import pytest

from lessons import link_kinds
from tests.app import open_link
from tests.app.test_link_fuzz import holds
from tests.app.test_links import LATER, SHARED, declaration

TEXTS = ("text_input", "text_area")  # any text is a value they take: nothing to refuse
PINNED = "pinned"  # a pinned A (ui.compare) names its own refusal: tests/app/test_links.py


def views(page: str) -> dict[str, tuple]:
    """The controls that change which widgets a page draws, and their options."""
    controls = {
        "lessons/positional_encoding/positional_encoding.py": ("pe_chapter",),
        "lessons/attention/attention.py": ("at_chapter", "at_content"),
        "lessons/real_transformer/real_transformer.py": ("tf_chapter",),
        "lessons/embedding_space/embedding_space.py": ("es_method",),
        "lessons/input_layer/input_layer.py": ("il_mode",),
        "lessons/sentence_vectors/sentence_vectors.py": ("sv_chapter",),
        "lessons/text_to_tokens/text_to_tokens.py": ("tt_cut",),
    }.get(page, ())
    settings = declaration(page)
    assert settings is not None or not controls, page
    return {key: settings[key].options for key in controls} if settings is not None else {}


def refused(kind: str) -> str:
    """A value a widget of this kind refuses unless its range is unbounded (a float box without a maximum)."""
    return (
        "99999999999999999999"
        if kind in ("number_input", "slider")
        else "maybe"
        if kind in ("toggle", "checkbox")
        else "nope"
    )


@pytest.mark.parametrize("page", list(SHARED))
def test_a_value_for_a_widget_drawn_later_is_named_when_drawn_unless_taken(page):
    kinds = link_kinds(Path(page).parent.name)
    asked = {
        key: refused(kinds[key])
        for key in SHARED[page]
        if kinds.get(key) not in (*TEXTS, PINNED) and key in kinds and key not in LATER
    }
    at = open_link(page, asked)
    said: list[str] = []
    drawn: dict[str, object] = {}
    held: dict[str, bool] = {}

    def look() -> None:
        assert not at.exception, at.exception
        said.extend(w.value for w in at.warning)
        for key in asked:
            if key in at.session_state and key not in drawn:
                drawn[key] = at.session_state[key]
                held[key] = holds([asked[key]], drawn[key])

    look()
    taken = [key for key in drawn if held[key]]  # a huge number an unbounded box took: the page may stop on it
    for key in taken:  # (the rotary page's config refused: nothing below it drawn), so it is set to a valid one
        at.session_state[key] = SHARED[page][key]
    at.run()
    look()
    for control, options in views(page).items():
        for option in (*options[1:], options[0]):
            at.session_state[control] = option
            at.run()
            look()
    notices = "\n".join(said)
    assert set(drawn) == set(asked), f"never drawn: {set(asked) - set(drawn)} (a view missing from views())"
    for key, value in asked.items():
        named = re.search(rf"(?<!\w){re.escape(key)}={re.escape(value)} \(", notices)
        assert named or held[key], (key, value, drawn[key], notices)
        assert not (named and held[key]), (key, "taken, yet named")
