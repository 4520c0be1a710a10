"""The attention page in a real Chromium: it renders every scheme without an exception, a setting redraws the
heatmaps and goes into the link, and the distance slider moves the score-against-distance plot."""

from playwright.sync_api import expect

from labtools.browser import EXCEPTION, assert_layout, rerun, wait_for_plot, wait_until_idle
from labtools.moves import drag_slider, pick, press_slider, type_into
from tests.browser import walks

# The first heatmap's panels (one per scheme) and the number of key columns of its first panel
LOGITS = (
    "(() => { const p = document.querySelectorAll('.js-plotly-plot')[0];"
    " return p.data.length + '|' + (p.data[0].x || []).length; })()"
)

# 60 words (the most is 64): too many to label every row and column of a heatmap
LONG = " ".join(["the cat sat on the mat because it was tired", "and the dog ran to the park with its friends"] * 3)


@walks
def test_every_chapter_keeps_its_layout_after_every_move(page, server_url):
    """A learner's walk through the page: after each move every heatmap and plot keeps its height (ui.live_chart
    draws them all into the <div>s they had), covers nothing and labels its axes (labtools.browser.assert_layout). A sentence
    of 60 words once dropped every token label from the heatmaps."""
    page.goto(f"{server_url}/attention")
    page.wait_for_selector(".js-plotly-plot")
    assert_layout(page)
    type_into(page, "head_dim", 32)
    assert_layout(page)
    page.get_by_text("Causal mask", exact=True).click()
    assert_layout(page)
    type_into(page, "Sentence (through GloVe)", LONG)
    wait_for_plot(page, f"{LOGITS} === '6|60'")
    assert_layout(page)
    type_into(page, "Base (sinusoidal and RoPE)", 500000)
    assert_layout(page)
    pick(page, "2. Four terms")
    assert_layout(page)
    pick(page, "3. Learned table")
    assert_layout(page)
    pick(page, "4. m − n? Past the length?")
    assert_layout(page)
    pick(page, "5. Score vs distance")
    assert_layout(page)
    drag_slider(page, "Query position m", 0.5)
    assert_layout(page)
    press_slider(page, "Largest distance shown", "End")
    type_into(page, "Query token (index)", 3)
    assert_layout(page)
    pick(page, "Try this")
    assert_layout(page)
    pick(page, "1. Every scheme")
    with rerun(page):
        page.get_by_text("random", exact=True).click()  # random vectors instead of a sentence
    type_into(page, "Random tokens", 40)
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0


def test_the_page_renders_every_scheme_and_a_setting_redraws_the_heatmaps_and_the_link(page, server_url):
    page.goto(f"{server_url}/attention")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    assert page.evaluate("document.querySelectorAll('.js-plotly-plot').length") == 2  # logits, softmax
    assert page.evaluate(LOGITS) == "6|10"  # six schemes, ten tokens of the default sentence
    assert page.locator(EXCEPTION).count() == 0

    sentence = page.get_by_label("Sentence (through GloVe)")
    sentence.fill("the dog ran")
    sentence.press("Enter")
    wait_for_plot(page, f"{LOGITS} === '6|3'")
    page.wait_for_url("**/attention?at_sentence=the+dog+ran")
    wait_until_idle(page)

    head_dim = page.get_by_label("head_dim")
    head_dim.fill("15")
    head_dim.press("Enter")
    expect(page.locator('[data-testid="stAlertContentError"]')).to_contain_text("head_dim must be even")
    page.wait_for_url("**/attention?*at_head_dim=15*")
    assert page.locator(EXCEPTION).count() == 0


def test_a_link_opens_the_view_and_the_query_slider_moves_the_distance_plot(page, server_url):
    page.goto(f"{server_url}/attention?at_head_dim=32&at_query_pos=20&at_chapter=distance")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    assert page.get_by_label("head_dim").input_value() == "32"
    title = "document.querySelectorAll('.js-plotly-plot')[0].layout.title.text"
    assert "position 20" in page.evaluate(title)
    page.get_by_role("slider", name="Query position m").press("ArrowRight")
    wait_for_plot(page, f"{title}.includes('position 21')")
    page.wait_for_url("**/attention?*at_query_pos=21*")
    wait_until_idle(page)
    assert "at_head_dim=32" in page.url and "at_chapter=distance" in page.url
    page.get_by_role("radio", name="2. Four terms").click()  # another chapter: the link names it
    page.wait_for_url("**/attention?*at_chapter=terms*")
    wait_for_plot(page, "document.querySelectorAll('.js-plotly-plot')[0].data.length === 5")
    assert page.locator(EXCEPTION).count() == 0
