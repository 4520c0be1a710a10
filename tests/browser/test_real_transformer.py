"""The real-Transformer page in Chromium: a click on the heads' grid shows that head, the pickers and the link follow;
every chapter draws without an exception; a refused sentence gets its message; the settings go into the link."""

import os

from playwright.sync_api import expect

from tests.browser.harness import EXCEPTION, wait_for_plot, wait_until_idle

PLOTS = "document.querySelectorAll('.js-plotly-plot')"
TITLE = f"{PLOTS}[1].layout.title.text"  # the head's heatmap, below the grid
SHOTS = os.environ.get("EMBLAB_SHOTS")  # a folder: screenshots to look at (none in CI)


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"tf_{name}.png"), full_page=True)


def click_cell(page, layer: int, head: int) -> None:
    """Click the middle of a head's cell in the grid (layer and head from 1), where a learner clicks."""
    at = page.evaluate(
        f"""(() => {{ const p = {PLOTS}[0], l = p._fullLayout, r = p.getBoundingClientRect();
        return [r.left + l.xaxis._offset + l.xaxis.l2p({head - 0.5}), r.top + l.yaxis._offset + l.yaxis.l2p({layer - 0.5})];
        }})()"""
    )
    page.mouse.click(*at)


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
    wait_until_idle(page)
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
    wait_until_idle(page)
    assert page.locator(EXCEPTION).count() == 0
    shot(page, "positions")

    page.get_by_role("radio", name="3. Static to contextual").click()
    page.wait_for_url("**tf_chapter=context*")
    wait_for_plot(page, f"{PLOTS}.length === 2")  # the cosines between uses, the PCA paths
    word = page.get_by_label("Word", exact=True)
    word.fill("embeddings")
    word.press("Enter")
    expect(page.get_by_text("as 4 piece(s)")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("give it in at least two sentences")).to_be_visible()
    wait_until_idle(page)
    assert page.locator(EXCEPTION).count() == 0
    shot(page, "context")

    sentence = page.get_by_label("Sentence (read in chapters 1 and 2)")
    sentence.fill("   ")
    sentence.press("Enter")
    expect(page.locator('[data-testid="stAlertContentError"]')).to_contain_text("no words", timeout=60_000)
    page.get_by_role("radio", name="1. Positional heads").click()
    wait_for_plot(page, f"{PLOTS}.length === 1")  # the grid over the shipped sentences; no head view
    wait_until_idle(page)
    assert page.locator(EXCEPTION).count() == 0
    shot(page, "refused")
