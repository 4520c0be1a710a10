"""The "Sentence vectors" page in Chromium: a learner's walk through every chapter, in English and 中文, keeps the
layout after every move; bad lines are named while the other sentences stay; the settings go into the link."""

from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from labtools.browser import EXCEPTION, assert_layout, plot_holds, screen_page, wait_for_plot, wait_until_idle
from labtools.moves import click_button, pick, type_into
from tests.browser import walks
from ui.i18n import catalog

PLOTS = "document.querySelectorAll('.js-plotly-plot')"
FIRST = 180_000  # ms: the first visit to the search embeds the shipped sentences, when no warm-up did it before


def text(key: str, lang: str = "en") -> str:
    return catalog(lang)[f"sv.{key}"]


def fill_area(page, label: str, value: str) -> None:
    """Type into a text area and apply it (Ctrl+Enter), as a learner does."""
    area = page.get_by_label(label, exact=True)
    area.fill(value)
    area.press("Control+Enter")
    wait_until_idle(page)


@walks
def test_every_chapter_keeps_its_layout_after_every_move(page, server_url):
    page.goto(f"{server_url}/sentence_vectors")
    wait_for_plot(page, f"{PLOTS}.length === 1", timeout=FIRST)
    assert_layout(page)
    fill_area(page, text("sentences"), "\n".join(f"sentence {w} about the weather" for w in "abcdefghijklmn"))
    assert_layout(page)  # a 14 x 14 matrix: a taller chart

    pick(page, text("chapter_order"))
    wait_for_plot(page, f"{PLOTS}.length === 1", timeout=FIRST)
    assert_layout(page)
    type_into(page, text("first"), "the teacher praised the student")
    assert_layout(page)  # not the same words: a notice above the table
    type_into(page, text("second"), "the student praised the teacher")
    assert_layout(page)
    page.wait_for_url("**sv_second=the+student*")

    pick(page, text("chapter_search"))
    expect(page.get_by_text(text("collection").split("{")[0])).to_be_visible(timeout=FIRST)
    assert_layout(page)
    type_into(page, text("query"), "my favourite band played a new song")
    assert_layout(page)
    type_into(page, "k", 12)
    assert_layout(page)

    pick(page, text("chapter_map"))
    wait_for_plot(page, f"{PLOTS}.length === 1")
    assert_layout(page)
    pick(page, text("space_glove"))
    assert_layout(page)
    type_into(page, text("kept_k"), 5)
    assert_layout(page)
    pick(page, "UMAP")
    assert_layout(page)  # the Run button in the map's place, or the map an earlier walk on this server computed
    umap = f"{PLOTS}.length === 1 && {PLOTS}[0].layout.title.text.includes('UMAP')"
    if not plot_holds(page, umap):
        click_button(page, catalog("en")["es.run"].format(method="UMAP", n=320))
    wait_for_plot(page, umap, timeout=FIRST)
    assert_layout(page)

    pick(page, text("chapter_exercises"))
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0


def test_in_chinese_every_chapter_keeps_its_layout(page, server_url):
    page.goto(f"{server_url}/sentence_vectors?{urlencode(dict(lang='zh'))}")
    wait_for_plot(page, f"{PLOTS}.length === 1", timeout=FIRST)
    expect(page.get_by_text("英文模型", exact=False).first).to_be_visible()
    assert_layout(page)
    for chapter in ("order", "search", "map"):
        pick(page, text(f"chapter_{chapter}", "zh"))
        wait_until_idle(page)
        assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0


def test_bad_lines_are_named_and_the_others_still_shown(page, server_url):
    page.goto(f"{server_url}/sentence_vectors")
    wait_for_plot(page, f"{PLOTS}.length === 1", timeout=FIRST)
    lines = ["the cat sat", "", "qwzxv blorptangle", "🙂 🙃", "a dog ran"] + [f"line {i}" for i in range(20)]
    fill_area(page, text("sentences"), "\n".join(lines))
    alerts = page.locator('[data-testid="stAlertContentWarning"]')
    expect(alerts.filter(has_text="Sentence 2 (“qwzxv blorptangle”)")).to_be_visible()
    expect(alerts.filter(has_text="Sentence 3").filter(has_text="MiniLM cannot read it")).to_contain_text("[UNK]")
    expect(alerts.filter(has_text="Only the first 20 sentences")).to_be_visible()
    wait_for_plot(page, f"{PLOTS}[0].layout.title.text.includes('18')")  # 20 lines, 2 refused: 18 shown
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_the_colour_bars_cover_neither_panel(screens, server_url, lang):
    """Issue 51: on a phone MiniLM's colour bar was drawn over the GloVe heatmap's first column and its row labels 1-6,
    and the chart's toolbar over its title; the layout check now sees both (labtools/layout.js)."""
    with screen_page(screens, "phone") as page:
        page.goto(f"{server_url}/sentence_vectors?{urlencode(dict(lang=lang))}")
        wait_for_plot(page, f"{PLOTS}.length === 1", timeout=FIRST)
        assert_layout(page, steady=True)
