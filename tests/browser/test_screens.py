"""Every page and chapter on the screens a laptop's window is not: a projector in presenter mode (1920 x 1080 and
1024 x 768) and a touch screen (a tablet, 768 x 1024, and a phone, 390 x 844). Each chapter is opened on the mode's
wider screen, and after a move or two, the layout check holds there and once the window is narrowed to the other
screen (labtools.browser.assert_layout_on: no sideways scroll, every chart whole, within the screen, at least 150 px
tall, its tick labels apart, every control within reach): charts drawn wide must fit when narrowed, as a tablet
turned or a window dragged narrower. On a phone the sidebar opens and its language switch and share link take a
tap; in presenter mode a click on the MiniLM grid's last head picks that head.

One browser and the session's one server serve every test of the file; each page is opened in both modes in one test
(the second mode finds the first one's results in the server's caches). The pages' walks check the layout after
every move in each mode, at its narrower screen (tests/browser/__init__.py: walks)."""

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

import lessons
from labtools.browser import (
    EXCEPTION,
    MODES,
    assert_layout,
    assert_layout_on,
    screen_link,
    screen_page,
    wait_until_idle,
)
from labtools.moves import click_button
from ui.i18n import catalog
from ui.pages import LESSONS, OVERVIEW

MODES_SHOWN = ("presenter", "touch")  # labtools.browser.MODES, both screens of each
EN = catalog("en")


def chapters(key: str) -> list[dict]:
    """A link's settings for each chapter of the page `key` (one view for a page without chapters), read from its
    declaration without running the page, as scripts/screenshots.py reads them."""
    folder = OVERVIEW.folder if key == OVERVIEW.key else LESSONS[key].folder
    return [{f"{key}_chapter": chapter} for chapter in lessons.chapters(folder)] or [{}]


def run_sweep(page) -> None:
    """The embedding space's perplexity sweep (the link made it small), and its small multiples; on the second screen
    the server has them already, and shows them without the button."""
    button = page.get_by_role("button", name=re.compile(r"^Run t-SNE \d+ times"))
    plot = page.locator(".st-key-es_sweep_plot .js-plotly-plot")
    button.or_(plot).first.wait_for()
    if button.count():
        button.click()
    plot.wait_for(timeout=180_000)


def train(page) -> None:
    click_button(page, EN["lv.train"])
    page.wait_for_selector('[data-testid="stMetric"]', timeout=120_000)


# page: (path, a link's extra settings, the moves after its last chapter, each followed by the layout check)
# each page: its address, the link's settings it opens with, the moves made before its layout is checked
PAGES: dict[str, tuple[str, dict[str, object], list[Callable[[Page], None]]]] = {
    "ov": ("", {}, []),
    "tt": ("text_to_tokens", {"tt_sentence": "我喜欢机器学习。Tokenizers cut unbelievable words 🙂"}, []),
    "il": ("input_layer", {"il_sentence": "the cat sat on the mat and the dog ran to the park"}, []),
    "we": ("word_embeddings", {}, [lambda page: click_button(page, EN["we.evaluate"])]),
    "es": (
        "embedding_space",
        {"es_size": 500, "es_method": "t-SNE", "es_iterations": 300, "es_sweep": "5, 30"},
        [run_sweep],
    ),
    "pe": ("positional_encoding", {}, []),
    "rp": ("rotary", {}, []),
    "at": ("attention", {}, []),
    "tf": ("real_transformer", {}, []),
    "lv": ("learned_vs_sinusoidal", {"lv_steps": 30, "lv_train_len": 8, "lv_test_len": 16, "lv_seed": 5}, [train]),
}


def open_view(page, url: str) -> None:
    """Open `url` and wait for its run to end (the layout check then waits for the charts it sent)."""
    page.goto(url)
    page.wait_for_selector('[data-testid="stMain"] h1')
    wait_until_idle(page)


@pytest.mark.parametrize("key", list(PAGES))
def test_every_chapter_fits_the_projector_the_phone_and_the_tablet(screens, server_url, key):
    path, settings, moves = PAGES[key]
    for mode in MODES_SHOWN:
        narrow, wide = MODES[mode]
        with screen_page(screens, wide) as page:
            for chapter in chapters(key):
                open_view(page, screen_link(f"{server_url}/{path}", wide, {**settings, **chapter}))
                assert_layout_on(page, [wide, narrow])
            for move in moves:
                move(page)
                assert_layout_on(page, [wide, narrow])
            assert page.locator(EXCEPTION).count() == 0, mode


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
