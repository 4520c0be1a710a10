"""The text-to-tokens page in a real Chromium: a learner's walk through every control, the layout checked after each
move; bad text; and "Use these tokens" opening the input layer on the sentence and the cut."""

import re

import pytest
from playwright.sync_api import expect

from labtools.browser import (
    EXCEPTION,
    assert_layout,
    check_wider_screen,
    screen_page,
    wait_for_plot,
    wait_until_idle,
)
from labtools.moves import click_button, drag_slider, pick, slider_named, type_into
from tests.browser import walks

CHARTS = "document.querySelectorAll('[data-testid=\"stMain\"] .js-plotly-plot').length"


def write(page, text: str) -> None:
    """Type a text into the page's text area and commit it (Ctrl+Enter, as Streamlit's text area takes it)."""
    box = page.get_by_label("Your text", exact=True)
    box.fill(text)
    box.press("Control+Enter")
    wait_until_idle(page)


def opened(page, server_url: str, query: str = "") -> None:
    """The page opened and its three charts drawn (the trainings behind them run in the background, once)."""
    page.goto(f"{server_url}/text_to_tokens{query}")
    page.wait_for_function(f"{CHARTS} >= 3", timeout=240_000, polling=500)
    assert_layout(page, steady=True)


def wait_for_marked_merge(page) -> None:
    """Wait until the merges chart, as plotly drew it, marks the merge the page names ("Merge k: ..."): its line, then
    the marker drawn over it (ui.live_chart's overlay)."""
    said = page.get_by_text(re.compile(r"^Merge \d+:")).inner_text()
    k = int(said.split()[1].rstrip(":"))
    marked = """(k) => [...document.querySelectorAll('.live-chart')].some((gd) => (gd.data || []).length === 2
        && gd.data[0].mode === 'lines' && gd.data[1].x[0] === k)"""
    page.wait_for_function(marked, arg=k, timeout=60_000, polling=200)


@walks
def test_every_control_keeps_the_layout_after_every_move(page, server_url):
    opened(page, server_url)
    write(page, "我喜欢机器学习。Tokenizers cut unbelievable words 🙂")
    assert_layout(page)
    check_wider_screen(page)  # the sentence in three scripts, wide and narrowed (presenter mode, a tablet)
    page.locator('[data-testid="stMain"]').get_by_role("radio", name="中文", exact=True).click()
    wait_until_idle(page)
    assert_layout(page)
    drag_slider(page, "Merge step (of 2,000)", 0.5)
    expect(page.get_by_text(re.compile(r"^Merge \d+:"))).to_be_visible()
    wait_for_marked_merge(page)
    assert_layout(page)
    type_into(page, "Merges to learn", 500)
    page.wait_for_function(f"{CHARTS} >= 3", timeout=120_000, polling=500)
    assert_layout(page)
    drag_slider(page, "Words it learns from (the most frequent)", 0)
    page.wait_for_function(f"{CHARTS} >= 3", timeout=120_000, polling=500)
    assert_layout(page)
    drag_slider(page, "Merge step (of 500)", 0.25)  # it opens at the last merge: a move to the end asks no run
    assert_layout(page)
    pick(page, "BPE (trained here)")
    assert_layout(page)
    assert "tt_words=1000" in page.url and "tt_merges=500" in page.url and "tt_lang=zh" in page.url
    assert page.locator(EXCEPTION).count() == 0


def test_bad_text_is_named_and_kept(page, server_url):
    opened(page, server_url)
    write(page, "")
    expect(page.get_by_text("The text is empty", exact=False)).to_be_visible()
    assert_layout(page)
    write(page, "x" * 10_000)
    expect(page.get_by_text("Your text has 10,000 characters", exact=False)).to_be_visible()
    assert page.get_by_label("Your text", exact=True).input_value() == "x" * 10_000
    assert_layout(page)
    write(page, "zero\u200bwidth 🙂 \x07")
    expect(page.get_by_text("invisible characters", exact=False)).to_be_visible()
    assert_layout(page)
    type_into(page, "Merges to learn", 60_000)
    drag_slider(page, "Words it learns from (the most frequent)", 0)
    expect(page.get_by_text("allow only", exact=False)).to_be_visible(timeout=120_000)
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0


def test_use_these_tokens_opens_the_input_layer_on_the_sentence_and_the_cut(page, server_url):
    opened(page, server_url, "?tt_sentence=Tokenizers+cut+words")
    pick(page, "UTF-8 bytes")
    page.get_by_role("link", name=re.compile("Use these tokens")).click()
    page.wait_for_url(re.compile(r"/input_layer\?.*il_from=bytes"))
    expect(page.get_by_text(re.compile("cut by UTF-8 bytes, 20 tokens"))).to_be_visible(timeout=60_000)
    assert page.get_by_label("Sentence (segment A)", exact=True).input_value() == "Tokenizers cut words"
    assert page.get_by_role("radio", name="random").is_checked()
    assert_layout(page)
    page.get_by_role("button", name="Back to the input layer's own tokens").click()
    wait_until_idle(page)
    expect(page.get_by_text(re.compile("cut by UTF-8 bytes"))).to_have_count(0)
    assert slider_named(page, "d_model").count() == 1
    assert page.locator(EXCEPTION).count() == 0


# The tokens of a group of coloured tokens (figures.tokens.tokens_html): each box's text without its id, as shown
CHIPS = """n => [...[...document.querySelectorAll('.tt-tokens')][n].querySelectorAll('.tt-token')]
    .map(box => box.firstChild.textContent)"""
# The rows of the input layer's first heatmap (figures.input_layer.stage_figure: "0: token"), spaces shown as the
# boxes show them
ROWS = """(() => document.querySelector('.js-plotly-plot').data[0].y
    .map(row => row.slice(row.indexOf(': ') + 2).replaceAll(' ', '␣')))()"""


def test_use_these_tokens_hands_the_bpe_cut_to_the_input_layers_table(page, server_url):
    """The BPE's tokens at the merge step shown become the input layer's rows: its table's, every heatmap's; the
    hand-off survives a move and a reload, and the way back gives the page's own words."""
    opened(page, server_url, "?tt_sentence=unbelievable+tokenizers&tt_words=1000&tt_merges=300&tt_step=200")
    pick(page, "BPE (trained here)")
    assert_layout(page)
    cut = page.evaluate(CHIPS, 4)  # the four cuts of section 1, then the BPE's at the step
    assert 2 < len(cut) < len("unbelievable tokenizers")  # merged, not bytes
    page.get_by_role("link", name=re.compile("Use these tokens")).click()
    page.wait_for_url(re.compile(r"/input_layer\?.*il_from=bpe-en-1000-300-200"))
    wait_for_plot(page, f"{ROWS}.length === {len(cut)}", timeout=60_000)
    assert page.evaluate(ROWS) == cut
    expect(page.get_by_text(re.compile(r"cut by BPE \(trained here\)"))).to_be_visible()
    assert page.get_by_label("Tokens from", exact=True).input_value() == "bpe-en-1000-300-200"
    assert_layout(page)
    drag_slider(page, "d_model", 1)  # a move keeps the hand-off
    assert page.evaluate(ROWS) == cut and "il_from=bpe-en-1000-300-200" in page.url
    assert_layout(page)
    page.reload()  # everything is in the link
    wait_for_plot(page, f"{ROWS}.length === {len(cut)}", timeout=60_000)
    wait_until_idle(page)
    assert page.evaluate(ROWS) == cut
    assert_layout(page)
    click_button(page, "Back to the input layer's own tokens")
    wait_for_plot(page, f"{ROWS}.join(' ') === 'unbelievable tokenizers'", timeout=30_000)
    page.wait_for_url(lambda url: "il_from" not in url)
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_no_toolbar_legend_or_bar_name_covers_a_text(screens, server_url, lang):
    """Issue 51: on a phone the slanted bar name "+ its own output layer" ran into the legend of MiniLM's price, the
    charts' toolbar covered their titles, and the merges table's toolbar "最近的合并：" above it."""
    with screen_page(screens, "phone") as page:
        page.goto(f"{server_url}/text_to_tokens?tt_lang={lang}&lang={lang}")
        page.wait_for_function(f"{CHARTS} >= 3", timeout=240_000, polling=500)
        assert_layout(page, steady=True)
