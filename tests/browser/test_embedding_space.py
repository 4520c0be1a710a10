"""The embedding-space page in a real Chromium: the cloud's download, the word search and the link."""

import re

import pandas as pd

from tests.browser.harness import (
    EXCEPTION,
    assert_layout,
    drag_slider,
    pick,
    toggle,
    type_into,
    wait_for_plot,
    wait_until_idle,
)


def test_every_section_keeps_its_layout_after_every_move(page, server_url):
    """A learner's walk through the page: after each move the cloud, the neighbours and the sweep keep their height,
    cover nothing and have their tick labels (harness.assert_layout)."""
    page.goto(f"{server_url}/embedding_space")
    page.wait_for_selector(".js-plotly-plot")
    assert_layout(page)
    drag_slider(page, "Most frequent words", 0)
    assert_layout(page)
    type_into(page, "Word", "queen")
    drag_slider(page, "Neighbours (k)", 1)
    assert_layout(page)  # the cloud beside the neighbours' table
    toggle(page, "Isolate")
    assert_layout(page)
    pick(page, "3D")
    assert_layout(page)
    pick(page, "2D")
    toggle(page, "Colour by neighbours kept")
    type_into(page, "Neighbours compared (k)", 5)
    assert_layout(page)
    type_into(page, "Perplexities (comma-separated)", "5")
    page.get_by_role("button", name=re.compile("^Run t-SNE")).click()  # one run on the two clusters
    page.wait_for_selector(".st-key-es_sweep_plot .js-plotly-plot", timeout=120_000)
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0


def test_the_cloud_download_holds_every_point_drawn(page, server_url):
    page.goto(f"{server_url}/embedding_space")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    with page.expect_download() as csv:
        page.get_by_role("button", name="Download (CSV)").click()
    frame = pd.read_csv(csv.value.path())
    drawn = page.evaluate("document.querySelector('.js-plotly-plot').data.reduce((n, t) => n + t.hovertext.length, 0)")
    assert csv.value.suggested_filename == f"cloud_pca_{len(frame)}.csv" and len(frame) == drawn == 5010
    assert list(frame.columns) == ["word", "PCA_1", "PCA_2"] and frame.word[0] == "the"
    assert page.locator(EXCEPTION).count() == 0


def test_searching_queen_highlights_it_with_its_neighbours(page, server_url):
    page.goto(f"{server_url}/embedding_space")
    page.wait_for_selector(".js-plotly-plot")
    box = page.get_by_role("textbox", name="Word", exact=True)
    box.fill("queen")
    box.press("Enter")
    found = "document.querySelector('.js-plotly-plot').data.find(t => t.meta === 'found')"
    wait_for_plot(page, f"{found}.hovertext[0] === 'queen'")
    page.wait_for_selector('[data-testid="stTable"] tbody th')
    wait_until_idle(page)
    wait_for_plot(page, "document.querySelector('.js-plotly-plot').data.some(t => t.meta === 'neighbours')")
    neighbours = page.evaluate(
        "document.querySelector('.js-plotly-plot').data.find(t => t.meta === 'neighbours').hovertext"
    )
    listed = page.locator('[data-testid="stTable"] tbody th').all_inner_texts()
    assert listed[:2] == ["princess", "lady"] and sorted(neighbours) == sorted(listed)
    page.wait_for_url("**/embedding_space?es_find=queen")  # the browser writes the view into the link
    page.get_by_text("Isolate", exact=True).click()
    wait_for_plot(page, "document.querySelector('.js-plotly-plot').data.length === 2")
    page.wait_for_url("**/embedding_space?es_find=queen&es_isolate=true")
    assert page.locator(EXCEPTION).count() == 0


def test_a_link_opens_its_view(page, server_url):
    page.goto(f"{server_url}/embedding_space?es_find=queen&es_k=5&es_isolate=true&es_groups=family")
    wait_for_plot(page, "document.querySelector('.js-plotly-plot').data.length === 2")
    assert page.locator('[data-testid="stTable"] tbody th').all_inner_texts()[:2] == ["princess", "lady"]
    drawn = page.evaluate("document.querySelector('.js-plotly-plot').data.reduce((n, t) => n + t.hovertext.length, 0)")
    assert drawn == 6 and page.locator('[data-testid="stTable"] tbody tr').count() == 5
    wait_until_idle(page)
    assert page.locator(EXCEPTION).count() == 0 and page.locator('[data-testid="stAlert"]').count() == 0


def test_the_honesty_numbers_show_and_the_toggle_colours_by_neighbours_kept(page, server_url):
    page.goto(f"{server_url}/embedding_space")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    kept = page.locator('[data-testid="stMetric"]', has_text="Neighbours kept (k = 10)")
    trust = page.locator('[data-testid="stMetric"]', has_text="Trustworthiness (k = 10)")
    assert kept.locator('[data-testid="stMetricValue"]').inner_text().endswith("%")
    assert 0 < float(trust.locator('[data-testid="stMetricValue"]').inner_text()) < 1
    page.get_by_text("Colour by neighbours kept", exact=True).click()
    plot = "document.querySelector('.js-plotly-plot')"
    wait_for_plot(page, f"{plot}.data.length === 1 && {plot}.data[0].marker.cmax === 10")
    assert page.evaluate(f"{plot}.data[0].text.length") == 5010
    page.wait_for_url("**/embedding_space?es_colour_kept=true")
    assert page.locator(EXCEPTION).count() == 0
