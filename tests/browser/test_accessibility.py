"""axe-core on every page of the registry at its defaults, in the light theme on a laptop's window and in the dark
theme in presenter mode: no serious or critical violation (WCAG 2 A and AA, and axe's best practices). Workshops run
on projectors, where low contrast is worse. Each page is also drawn whole without an exception, and asks nothing of
the internet (the lab runs offline).

The pages at their defaults are checked in their own walks (tests/browser/test_<page>.py, `@walks`): the `page`
fixture runs tests.browser.assert_accessible after the walk's first goto, in the walk's laptop mode (light) and
presenter mode (dark), so no page is loaded a second time for it. Here: that every page has such a walk, and the one
view that is no page's default."""

import ast
from pathlib import Path

import pytest

from tests.browser import AXE_THEMES, assert_accessible
from ui.pages import OVERVIEW, PATH

HERE = Path(__file__).parent
# the input layer with the real model, whose own scale, positions, width and dropout leave most of its settings
# disabled (their labels read at 2.57:1 once, let through as inactive)
VIEWS = {"il-real": "input_layer?il_mode=minilm"}
# the browser's colour preference picks Streamlit's light or dark theme; presenter mode zooms the main column
MODES = {"light": ("light", ""), "dark-presenter": ("dark", "&present=true")}


def walked(folder: str) -> bool:
    """tests/browser/test_<folder>.py has a walk (a test decorated with `walks`)."""
    path = HERE / f"test_{folder}.py"
    if not path.exists():
        return False
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.FunctionDef)
        and any(isinstance(d, ast.Name) and d.id == "walks" for d in node.decorator_list)
        for node in ast.walk(tree)
    )


@pytest.mark.parametrize("folder", [lesson.folder for lesson in (OVERVIEW, *PATH)])
def test_every_page_has_a_walk_that_checks_it_with_axe_in_both_themes(folder):
    assert walked(folder), f"tests/browser/test_{folder}.py has no walk: its page is checked by axe-core nowhere"
    assert set(AXE_THEMES.values()) == {"light", "dark"} and AXE_THEMES["presenter"] == "dark"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key", VIEWS)
def test_no_serious_or_critical_accessibility_violation(page, server_url, key, mode):
    scheme, query = MODES[mode]
    page.emulate_media(color_scheme=scheme)
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(f"{server_url}/{VIEWS[key]}{query}")
    assert_accessible(page, scheme, requested)
