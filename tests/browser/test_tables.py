"""ui.tables in a real Chromium: a st.table that scrolls in its box (presenter mode on a projector's 1024 x 768, where
the input layer's three seed tables stand side by side) is reached with the keyboard, scrolled by its arrow keys, and
named in the reader's language (ui/tables.js; axe-core's scrollable-region-focusable)."""

import pytest

from labtools.browser import assert_layout, screen_link, screen_page
from ui.i18n import catalog

SCROLLING = """() => [...document.querySelectorAll('.stTable > div')].filter((box) =>
    box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight)
  .map((box) => [box.tabIndex, box.getAttribute('role'), box.getAttribute('aria-label')])"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_table_that_scrolls_in_its_box_takes_the_keyboard_and_is_named(screens, server_url, lang):
    with screen_page(screens, "presenter-1024") as page:
        page.goto(screen_link(f"{server_url}/input_layer", "presenter-1024", {"lang": lang}))
        assert_layout(page, timeout=120_000, steady=True)
        name = catalog(lang)["ui.table_region"]
        page.wait_for_function(
            f"() => ({SCROLLING})().length > 0 && ({SCROLLING})().every(([i, role, label]) => i === 0 && role === 'region' && label === {name!r})",
            timeout=60_000,
        )
        box = page.locator(".stTable > div[role=region]").first
        box.focus()
        assert page.evaluate("() => document.activeElement.getAttribute('role')") == "region"
        before = box.evaluate("(b) => [b.scrollLeft, b.scrollTop]")
        for key in ("ArrowRight", "ArrowDown"):
            box.press(key)
        page.wait_for_function(
            "([b, before]) => b.scrollLeft > before[0] || b.scrollTop > before[1]", arg=[box.element_handle(), before]
        )
