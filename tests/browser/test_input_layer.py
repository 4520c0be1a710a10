"""The input-layer page in a real Chromium: a typed sentence goes through every stage."""

from tests.browser.harness import EXCEPTION, wait_for_plot, wait_until_idle


def test_typing_a_sentence_shows_every_stage(page, server_url):
    page.goto(f"{server_url}/input_layer")
    page.wait_for_selector(".js-plotly-plot")
    box = page.get_by_label("Sentence (segment A)", exact=True)
    box.fill("The cat sat on the mat")
    box.press("Enter")
    wait_for_plot(
        page,
        "[...document.querySelectorAll('.js-plotly-plot')].some(p => Array.isArray(p.data[0].y) && p.data[0].y.includes('5: mat'))",
    )
    wait_until_idle(page)
    plots = "[...document.querySelectorAll('.js-plotly-plot')]"
    wait_for_plot(page, f"{plots}.every(p => typeof p.layout.title.text === 'string')")  # none mid-redraw
    titles = page.evaluate(f"{plots}.map(p => p.layout.title.text.replace(/<[^>]+>/g, ''))")
    assert titles[:6] == ["token", "scaled", "+ position", "+ segment", "LayerNorm", "dropout"]
    assert page.locator(EXCEPTION).count() == 0
