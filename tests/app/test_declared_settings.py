"""A page's settings as declared (lessons/<lesson>/settings.py, ui.settings) are the widgets it draws: each page is
opened in every view that draws other widgets (its chapters, a method's own settings), and every widget with a key of
the page's prefix that holds a value is a declared setting, of the declared kind, with the declared default, and bound
to the link when the declaration says it is in it; and every declared setting is drawn in one of those views. So a
declaration and its page cannot drift apart."""

import importlib
from typing import Any

import pytest

from tests.app import open_link
from ui.pages import LESSONS, OVERVIEW, Lesson
from ui.settings import Setting, Settings

# The views of each page (by its key) that together draw every widget: the link's parameters that open each (a
# chapter, a method).
VIEWS: dict[str, list[dict[str, str]]] = {
    "il": [{}],
    "we": [{}],
    "es": [{}, {"es_method": "t-SNE"}, {"es_method": "UMAP"}],
    "tf": [{}, {"tf_chapter": "positions"}, {"tf_chapter": "context"}, {"tf_chapter": "exercises"}],
    "ov": [{}],
}
PAGES = {key: OVERVIEW if key == OVERVIEW.key else LESSONS[key] for key in VIEWS}
# Declared settings no view above draws, and why (each is drawn by key in the test named).
NOT_DRAWN_HERE = {
    # drawn once a t-SNE run has kept its layouts: tests/app/test_embedding_space.py, t-SNE in the background
    "es_replay",
}
# The AppTest element that each widget of a declaration is read back as.
ELEMENTS = {
    "number_input": "number_input",
    "slider": "slider",
    "select_slider": "select_slider",
    "text_input": "text_input",
    "text_area": "text_area",
    "toggle": "toggle",
    "checkbox": "checkbox",
    "radio": "radio",
    "selectbox": "selectbox",
    "segmented_control": "button_group",
    "pills": "button_group",
    "multiselect": "multiselect",
}


def declaration(lesson: Lesson) -> Settings:
    """The page's SETTINGS (lessons/<folder>/settings.py), or none for a page that has no settings."""
    try:
        return importlib.import_module(f"lessons.{lesson.folder}.settings").SETTINGS
    except ModuleNotFoundError:
        return Settings(lesson.key, ())


def drawn(lesson: Lesson, params: dict[str, str]) -> dict[str, tuple[str, Any, Any]]:
    """{key: (element, value, its proto)} of every widget holding a value with a key of the page's prefix, in the view
    the link's params open."""
    at = open_link(lesson.script, params)
    out = {}
    for element in sorted(set(ELEMENTS.values())):
        widgets: list[Any] = list(at.get(element))
        for widget in widgets:
            if widget.key and widget.key.startswith(f"{lesson.key}_"):
                out[widget.key] = (element, widget.value, widget.proto)
    return out


def as_default(setting: Setting, value):
    """A widget's value as its declaration writes the default (a multiselect's list as the declared tuple)."""
    return tuple(value) if setting.widget == "multiselect" else value


@pytest.mark.parametrize("page", list(VIEWS))
def test_every_widget_a_page_draws_is_its_declared_setting(page):
    settings = declaration(PAGES[page])
    assert settings.prefix == page
    seen: set[str] = set()
    for params in VIEWS[page]:
        for key, (element, value, proto) in drawn(PAGES[page], params).items():
            assert key in settings, f"{page} draws {key}, which its settings.py does not declare"
            setting = settings[key]
            assert element == ELEMENTS[setting.widget], key
            if key not in params:  # the view's own switch holds the value that opened it
                assert as_default(setting, value) == setting.default, key
            if setting.widget in ("number_input", "slider"):
                if setting.low is not None:
                    assert proto.min == setting.low, key
                if setting.high is not None:
                    assert proto.max == setting.high, key
            bound = getattr(proto, "query_param_key", "") == key
            assert bound == (setting.in_link and not setting.translated), key  # a translated choice: kept by hand
            seen.add(key)
    declared = {s.key for s in settings}
    assert declared - seen <= NOT_DRAWN_HERE, f"declared and never drawn: {sorted(declared - seen - NOT_DRAWN_HERE)}"


def test_a_translated_choice_is_declared_with_its_first_option_as_its_default():
    # ui.link.translated_choice writes nothing for the first option: it must be the default
    for page in VIEWS:
        for setting in declaration(PAGES[page]):
            if setting.translated and setting.widget != "multiselect":
                assert setting.options[0] == setting.default, setting.key
