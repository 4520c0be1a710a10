"""The input-layer page in a real Chromium: a typed sentence goes through every stage, in its part of the page
alone, and the link follows; a shared link opens with its table and sentence."""

from playwright.sync_api import expect

from labtools.browser import EXCEPTION, assert_layout, check_wider_screen, wait_for_plot, wait_until_idle
from labtools.moves import drag_slider, pick, toggle, type_into
from tests.browser import walks

PLOTS = "[...document.querySelectorAll('.js-plotly-plot')]"


@walks
def test_every_section_keeps_its_layout_after_every_move(page, server_url):
    """A learner's walk through the page: after each move every stage's heatmap and the norms' plot keep their
    height, cover nothing and have their tick labels (labtools.browser.assert_layout)."""
    page.goto(f"{server_url}/input_layer")
    page.wait_for_selector(".js-plotly-plot")
    assert_layout(page)
    type_into(page, "Sentence (segment A)", "the cat sat on the mat and the dog ran to the park")
    type_into(page, "Second sentence (segment B, optional)", "I love you")
    assert_layout(page)
    check_wider_screen(page)  # a long sentence's stages, wide and narrowed (presenter mode, a tablet)
    pick(page, "random")
    drag_slider(page, "d_model", 1)
    assert_layout(page)
    type_into(page, "max_len", 8)  # the sentences cut, with a warning
    assert_layout(page)
    drag_slider(page, "Dropout p", 0.5)
    toggle(page, "Training mode")
    toggle(page, "× √d_model")
    pick(page, "learned")
    assert_layout(page)
    pick(page, "xavier")
    assert_layout(page)
    type_into(page, "Vocabulary", 50_000)
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0


def test_typing_a_sentence_shows_every_stage(page, server_url):
    page.goto(f"{server_url}/input_layer")
    page.wait_for_selector(".js-plotly-plot")
    box = page.get_by_label("Sentence (segment A)", exact=True)
    box.fill("The cat sat on the mat")
    box.press("Enter")
    wait_for_plot(page, f"{PLOTS}.some(p => Array.isArray(p.data[0].y) && p.data[0].y.includes('5: mat'))")
    page.wait_for_url(lambda url: "il_sentence=The" in url)  # the browser writes the setting into the link
    wait_until_idle(page)
    wait_for_plot(page, f"{PLOTS}.every(p => typeof p.layout.title.text === 'string')")  # none mid-redraw
    titles = page.evaluate(f"{PLOTS}.map(p => p.layout.title.text.replace(/<[^>]+>/g, ''))")
    assert titles[:6] == ["token", "scaled", "+ position", "+ segment", "LayerNorm", "dropout"]
    assert page.locator(EXCEPTION).count() == 0


def test_a_shared_link_opens_with_its_table_and_sentence(page, server_url):
    page.goto(f"{server_url}/input_layer?il_mode=random&il_sentence=I+love+you&il_d_model=16")
    wait_for_plot(page, "document.querySelector('.js-plotly-plot').data[0].y.includes('2: you')")
    wait_until_idle(page)
    assert page.get_by_role("radio", name="random").is_checked()
    expect(page.get_by_text("random table", exact=True)).to_be_visible()  # the table's name, under its code
    assert page.get_by_role("slider", name="d_model").first.get_attribute("aria-valuetext") == "16"
    page.locator("label").filter(has_text="glove").first.click()
    page.wait_for_url(lambda url: "il_mode" not in url and "il_sentence=I" in url)  # the default leaves the link
    wait_until_idle(page)
    assert page.locator(EXCEPTION).count() == 0
