"""What a screen other than a laptop's window needs beyond the layout check: on a phone the sidebar opens and its
language switch and share link take a tap; in presenter mode (1024 x 768 and 1920 x 1080) the sidebar is collapsed
and the page takes the width, and a click on the MiniLM grid's last head picks that head.

Every page and chapter on those screens is its walk's (tests/browser/__init__.py: walks): in presenter mode and on a
touch screen each page's walk opens it on the mode's wider screen (1920 x 1080, a tablet), checks each chapter there
and once narrowed (a phone, 1024 x 768: charts drawn wide must fit narrowed, as a tablet turned), and checks the
layout after every move on the narrower one. One browser and the session's one server serve every test of the file."""

import re

import pytest
from playwright.sync_api import expect

from labtools.browser import MODES, assert_layout, screen_link, screen_page, wait_until_idle
from ui.i18n import catalog

EN = catalog("en")


def open_view(page, url: str) -> None:
    """Open `url` and wait for its run to end (the layout check then waits for the charts it sent)."""
    page.goto(url)
    page.wait_for_selector('[data-testid="stMain"] h1')
    wait_until_idle(page)


def test_on_a_phone_the_sidebar_opens_and_its_controls_take_a_tap(screens, server_url):
    """Issue 42: a phone shows the sidebar collapsed; a tap opens it, the language switch and the share link work."""
    with screen_page(screens, "phone") as page:
        open_view(page, f"{server_url}/positional_encoding")
        sidebar = page.locator('[data-testid="stSidebar"]')
        expect(sidebar).to_have_attribute("data-collapsed", "true")
        page.locator('[data-testid="stExpandSidebarButton"]').tap()
        expect(sidebar).to_have_attribute("data-collapsed", "false")
        switch = sidebar.get_by_text("中文", exact=True)
        switch.tap()
        page.wait_for_url(re.compile(r"lang=zh"))
        wait_until_idle(page)
        share = sidebar.get_by_role("button", name=re.compile(catalog("zh")["ui.share"]))
        share.tap()
        link = page.locator(".share-link textarea")
        expect(link).to_be_visible()
        expect(link).to_have_value(re.compile(r"/positional_encoding\?.*lang=zh"))
        box = link.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box


def test_in_presenter_mode_a_click_on_the_last_head_picks_it(screens, server_url):
    """Issue 41: the MiniLM grid was drawn a third wider than its box; heads 10-12 and layer 6 could not be clicked."""
    with screen_page(screens, "presenter-1024") as page:
        open_view(page, screen_link(f"{server_url}/real_transformer", "presenter-1024"))
        grid = page.locator(".st-key-tf_grid .js-plotly-plot")
        grid.wait_for()
        assert_layout(page)
        grid.scroll_into_view_if_needed()
        # the middle of the cell (layer 6, head 12), as tests/browser/test_real_transformer.py's click_cell finds it
        at = grid.evaluate(
            """gd => { const l = gd._fullLayout, r = gd.getBoundingClientRect();
            return [r.left + l.xaxis._offset + l.xaxis.l2p(11.5), r.top + l.yaxis._offset + l.yaxis.l2p(5.5)]; }"""
        )
        page.mouse.click(*at)
        expect(page.get_by_label(EN["tf.layer"], exact=True)).to_have_value("6")
        expect(page.get_by_label(EN["tf.head"], exact=True)).to_have_value("12")


@pytest.mark.parametrize("screen", MODES["presenter"])
def test_in_presenter_mode_the_sidebar_is_collapsed_and_the_page_takes_the_width(screens, server_url, screen):
    """Issue 51: at 1024 x 768 the sidebar kept 300 px and the page had about 520. Presenter mode collapses it, the
    main column takes the screen's width, and one click on the arrow brings the sidebar back."""
    with screen_page(screens, screen) as page:
        open_view(page, screen_link(f"{server_url}/positional_encoding", screen))
        sidebar = page.locator('[data-testid="stSidebar"]')
        expect(sidebar).to_have_attribute("data-collapsed", "true")
        width = page.viewport_size["width"]
        column = page.locator('[data-testid="stMainBlockContainer"]').bounding_box()
        assert column is not None and column["width"] >= 0.95 * width, (column, width)
        page.locator('[data-testid="stExpandSidebarButton"]').click()
        expect(sidebar).to_have_attribute("data-collapsed", "false")
        expect(sidebar.get_by_role("switch", name=EN["app.present"])).to_be_checked()
