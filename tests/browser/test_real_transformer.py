"""The real-Transformer page in Chromium: a learner's walk through every chapter, in English and 中文, keeps the layout
after every move; a click on the heads' grid shows that head, the pickers and the link follow; every chapter draws
without an exception; a refused sentence gets its message; the settings go into the link."""

import os
from urllib.parse import urlencode

from playwright.sync_api import expect

from labtools.browser import EXCEPTION, assert_layout, rerun, wait_for_plot, wait_until_idle
from labtools.moves import click_button, pick, toggle, type_into
from tests.browser import walks
from ui.i18n import catalog

PLOTS = "document.querySelectorAll('.js-plotly-plot')"
TITLE = f"{PLOTS}[1].layout.title.text"  # the head's heatmap, below the grid
SHOTS = os.environ.get("EMBLAB_SHOTS")  # a folder: screenshots to look at (none in CI)


def shot(page, name: str) -> None:
    """The whole page as it is now, when EMBLAB_SHOTS names a folder (Streamlit scrolls its main column itself: the
    window is made as tall as the column for the picture)."""
    if SHOTS:
        size = page.viewport_size
        tall = page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
        page.set_viewport_size({"width": size["width"], "height": max(size["height"], tall)})
        page.wait_for_timeout(1000)  # plotly redraws at the new size
        page.screenshot(path=os.path.join(SHOTS, f"tf_{name}.png"))
        page.set_viewport_size(size)


def click_cell(page, layer: int, head: int) -> None:
    """Click the middle of a head's cell in the grid (layer and head from 1), where a learner clicks."""
    at = page.evaluate(
        f"""(() => {{ const p = {PLOTS}[0], l = p._fullLayout, r = p.getBoundingClientRect();
        return [r.left + l.xaxis._offset + l.xaxis.l2p({head - 0.5}), r.top + l.yaxis._offset + l.yaxis.l2p({layer - 0.5})];
        }})()"""
    )
    page.mouse.click(*at)


# 25 tokens with its pair: more rows than the heatmaps can label at their first height
LONG = "The old man the boat while the children sleep on the shore near the bank of the river."
USES = "The river was high after the rain.\nWe walked along the river at dusk.\nA river of tears ran down her face."


@walks
def test_every_chapter_keeps_its_layout_after_every_move(page, server_url):
    """A learner's walk through the four chapters: after each move every chart keeps its height, covers nothing and
    labels its axes (labtools.browser.assert_layout). The other tests of this file check the layout after their own moves (a
    click on the grid, the head, the seed, a word split into pieces, a refused sentence): not repeated here."""
    text = lambda key: catalog("en")[f"tf.{key}"]  # noqa: E731
    page.goto(f"{server_url}/real_transformer")
    page.wait_for_selector(".js-plotly-plot")
    assert_layout(page)
    type_into(page, text("sentence"), LONG)  # a longer sentence: the head's heatmap grows with it
    assert_layout(page)
    toggle(page, text("yours"))  # the grid over the learner's sentence
    assert_layout(page)
    shot(page, "walk_heads_en")

    pick(page, text("chapter_positions"))
    assert_layout(page)
    shown = page.get_by_label(text("head"), exact=True).first.input_value()  # the head the page picks (3 here)
    type_into(page, text("head"), 4 if shown == "3" else 3)  # the variants' four maps, in their fragment
    assert_layout(page)
    shot(page, "walk_positions_en")

    pick(page, text("chapter_context"))
    type_into(page, text("word"), "river")
    uses = page.get_by_label(text("uses"), exact=True)
    with rerun(page):
        uses.fill(USES)
        uses.press("Control+Enter")  # a text area applies on Ctrl+Enter
    assert_layout(page)
    type_into(page, text("k"), 8)
    assert_layout(page)
    shot(page, "walk_context_en")

    pick(page, text("chapter_exercises"))
    type_into(page, page.get_by_label(catalog("en")["ex.answer"]).first, 4)
    click_button(page, catalog("en")["ex.check"])
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0


def test_in_chinese_every_chapter_keeps_its_layout(page, server_url):
    """The same in 中文, whose titles break into lines differently (figures.minilm.title_lines): a link to a long
    sentence over the learner's own sentence, then each chapter picked."""
    text = lambda key: catalog("zh")[f"tf.{key}"]  # noqa: E731
    link = urlencode(dict(lang="zh", tf_yours="true", tf_sentence=LONG, tf_pair="It slept."))
    page.goto(f"{server_url}/real_transformer?{link}")
    page.wait_for_selector(".js-plotly-plot")
    assert_layout(page)
    shot(page, "walk_heads_zh")
    for chapter in ("positions", "context"):
        pick(page, text(f"chapter_{chapter}"))
        assert_layout(page)
        shot(page, f"walk_{chapter}_zh")
    assert page.locator(EXCEPTION).count() == 0


def test_a_click_on_the_grid_shows_that_head_and_the_link_keeps_it(page, server_url):
    page.set_viewport_size({"width": 1400, "height": 2200})
    page.goto(f"{server_url}/real_transformer")
    wait_for_plot(page, f"{PLOTS}.length === 2 && {TITLE}.includes('layer 1, head 3')")
    wait_until_idle(page)
    assert page.evaluate(f"{PLOTS}[0]._fullData[2].x.length") == 72  # one click target per head
    assert page.locator(EXCEPTION).count() == 0
    shot(page, "heads")

    click_cell(page, 2, 9)  # the strongest next-token head
    wait_for_plot(page, f"{TITLE}.includes('layer 2, head 9')")
    page.wait_for_url("**/real_transformer?*tf_layer=2*")
    assert "tf_head=9" in page.url
    expect(page.get_by_label("Layer", exact=True)).to_have_value("2")
    expect(page.get_by_label("Head", exact=True)).to_have_value("9")
    assert_layout(page)
    shot(page, "clicked")

    head = page.get_by_label("Head", exact=True)  # picking it works as well
    head.fill("10")
    head.press("Enter")
    wait_for_plot(page, f"{TITLE}.includes('layer 2, head 10')")
    click_cell(page, 1, 3)
    wait_for_plot(page, f"{TITLE}.includes('layer 1, head 3')")
    page.wait_for_url(lambda url: "tf_layer" not in url and "tf_head" not in url)  # back to the defaults
    assert page.locator(EXCEPTION).count() == 0


def test_every_chapter_draws_and_a_refused_sentence_is_named(page, server_url):
    page.set_viewport_size({"width": 1400, "height": 2600})
    page.goto(f"{server_url}/real_transformer?tf_chapter=positions&tf_pair=It+slept.")
    wait_for_plot(page, f"{PLOTS}.length === 3")  # how far each head moved, the cosines, one head's maps
    wait_until_idle(page)
    expect(page.get_by_text("equal within 1e-06")).to_be_visible(timeout=60_000)
    seed = page.get_by_role("spinbutton", name="Shuffle seed")
    seed.fill("4")
    seed.press("Enter")
    page.wait_for_url("**tf_seed=4*")
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0
    shot(page, "positions")

    page.get_by_role("radio", name="3. Static to contextual").click()
    page.wait_for_url("**tf_chapter=context*")
    wait_for_plot(page, f"{PLOTS}.length === 2")  # the cosines between uses, the PCA paths
    word = page.get_by_label("Word", exact=True)
    word.fill("embeddings")
    word.press("Enter")
    expect(page.get_by_text("as 4 pieces")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("give it in at least two sentences")).to_be_visible()
    assert_layout(page)  # the warnings, the neighbours' table, no curves
    assert page.locator(EXCEPTION).count() == 0
    shot(page, "context")

    sentence = page.get_by_label("Sentence (read in chapters 1 and 2)")
    sentence.fill("   ")
    sentence.press("Enter")
    expect(page.locator('[data-testid="stAlertContentError"]')).to_contain_text("no words", timeout=60_000)
    page.get_by_role("radio", name="1. Positional heads").click()
    wait_for_plot(page, f"{PLOTS}.length === 1")  # the grid over the shipped sentences; no head view
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0
    shot(page, "refused")
