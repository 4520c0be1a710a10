"""Tests that span pages in a real Chromium: the pages' names in the reader's language, downloads on two pages, links
and Back/Forward across pages and the sections that rerun alone (every page drawn offline: each page's walk,
tests.browser.assert_accessible)."""

import numpy as np
import pandas as pd
from playwright.sync_api import expect

from labtools.browser import EXCEPTION, wait_for_plot, wait_until_idle
from labtools.moves import download
from tests.browser import HEATMAP_SHAPE
from ui.i18n import catalog
from ui.pages import OVERVIEW, PATH


def test_a_chinese_link_names_the_pages_in_chinese_from_its_first_draw(page, server_url):
    """The sidebar's page titles are made before the language box reads the link: they once stayed English until
    the next rerun."""
    page.goto(f"{server_url}/positional_encoding?lang=zh")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    titles = [catalog("zh")[f"app.{lesson.key}"] for lesson in (OVERVIEW, *PATH)]
    shown = page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()  # "<icon's name>\n\n<title>"
    assert [text.splitlines()[-1] for text in shown] == titles


LOOKUP = ["man", "woman", "king", "queen", "cat", "dog", "mother", "father"]  # the word page's default words


def test_downloads_hold_the_window_shown_and_every_dimension(page, server_url):
    page.goto(f"{server_url}/positional_encoding")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")
    wait_until_idle(page)
    name, path = download(page, "npy_pe_window")
    assert name == "pe_rows0-99_dims0-127.npy"
    window = np.load(path)
    position, i = np.arange(100)[:, None], np.arange(64)[None, :]
    angle = position / 10000 ** (2 * i / 128)
    np.testing.assert_allclose(window[:, 0::2], np.sin(angle), atol=1e-5)
    np.testing.assert_allclose(window[:, 1::2], np.cos(angle), atol=1e-5)
    page.get_by_role("slider", name="Positions shown").press("ArrowLeft")  # the same button, the new window's file
    page.get_by_role("slider", name="First position").press("End")
    page.wait_for_url("**pe_pos_start=50")
    wait_until_idle(page)
    name, path = download(page, "npy_pe_window")
    assert name == "pe_rows50-99_dims0-127.npy"
    np.testing.assert_array_equal(np.load(path), window[50:])

    page.goto(f"{server_url}/word_embeddings")
    page.wait_for_selector('[data-testid="stDataFrame"]')
    wait_until_idle(page)
    assert_lookup_file(*download(page, "csv_word_vectors"))
    name, path = download(page, "csv_pca_coordinates")
    assert name == "pca_coordinates.csv"
    coordinates = pd.read_csv(path)
    assert list(coordinates.columns) == ["word", "pc1", "pc2"] and list(coordinates.word) == LOOKUP
    assert page.locator(EXCEPTION).count() == 0


def assert_lookup_file(name: str, path) -> None:
    """The word page's lookup table as its CSV holds it: every dimension, though the table shows 8."""
    assert name == "word_vectors.csv"
    frame = pd.read_csv(path)
    assert list(frame.columns) == ["word", "index", *(f"v{j}" for j in range(50))]
    assert list(frame.word) == LOOKUP


def test_after_k_moves_each_download_of_the_word_page_is_its_own_file(page, server_url):
    # The neighbours' word, k and metric are a fragment. With them in one before, a download test that pressed the
    # first "Download (CSV)" got a file with the neighbours' columns, once (not reproduced since: /work notes,
    # profile.md): here each press names its button, during the fragment's run and after it, and each file is
    # checked by its name and its rows.
    page.goto(f"{server_url}/word_embeddings")
    rows = page.locator('[data-testid="stTable"]').nth(1).locator("tbody tr")  # the analogy's table is first
    rows.first.wait_for()  # a cold server loads the vectors first
    expect(rows).to_have_count(10)
    wait_until_idle(page)
    for k in (11, 12):
        page.locator('[data-testid="stSlider"] input[aria-label="k"]').press("ArrowRight")
        assert_lookup_file(*download(page, "csv_word_vectors"))  # pressed while the fragment reruns
        page.wait_for_url(f"**/word_embeddings?we_nn_k={k}")
        expect(rows).to_have_count(k)
        wait_until_idle(page)
        assert_lookup_file(*download(page, "csv_word_vectors"))
        name, path = download(page, "csv_neighbours")
        neighbours = pd.read_csv(path)
        assert name == "neighbours.csv" and list(neighbours.columns) == ["word", "cosine"]
        assert len(neighbours) == k and "toad" in list(neighbours.word) and "frog" not in list(neighbours.word)
        shown = [rows.nth(i).locator("th").inner_text().strip() for i in range(k)]
        assert list(neighbours.word) == shown  # the file holds the table drawn
    assert page.locator(EXCEPTION).count() == 0


def test_sections_that_rerun_alone_keep_the_link_and_back_brings_the_view_back(page, server_url):
    # the word page's neighbours and the input layer's settings rerun their part alone (fragments)
    page.goto(f"{server_url}/word_embeddings")
    neighbours = page.locator('[data-testid="stTable"]').nth(1).locator("tbody tr")  # the analogy's table is first
    neighbours.first.wait_for()
    wait_until_idle(page)
    expect(neighbours).to_have_count(10)
    page.locator('[data-testid="stSlider"] input[aria-label="k"]').press("ArrowRight")
    page.wait_for_url("**/word_embeddings?we_nn_k=11")
    expect(neighbours).to_have_count(11)
    wait_until_idle(page)
    page.go_back()
    page.wait_for_url("**/word_embeddings")
    expect(neighbours).to_have_count(10)
    wait_until_idle(page)

    page.goto(f"{server_url}/input_layer")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    box = page.get_by_label("Sentence (segment A)", exact=True)
    box.fill("I love you")
    box.press("Enter")
    page.wait_for_url(lambda url: "il_sentence=I" in url)
    wait_for_plot(page, "document.querySelector('.js-plotly-plot').data[0].y.includes('2: you')")
    wait_until_idle(page)
    assert page.locator(EXCEPTION).count() == 0  # the rotary page's sections: tests/browser/test_rotary.py


def test_back_and_forward_step_through_the_views_of_a_page(page, server_url):
    # every change of a setting adds an address to the history: Back must bring that view back, not stay put
    page.goto(f"{server_url}/positional_encoding")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")
    wait_until_idle(page)
    page.get_by_role("slider", name="Positions shown").press("ArrowLeft")  # in a fragment
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128'")
    wait_until_idle(page)
    box = page.get_by_label("d_model")
    box.fill("64")
    box.press("Enter")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 64'")
    wait_until_idle(page)
    page.go_back()
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128'")
    wait_until_idle(page)
    assert page.get_by_label("d_model").input_value() == "128" and page.url.endswith("?pe_pos_span=50")
    page.go_back()
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")
    wait_until_idle(page)
    assert page.url.endswith("/positional_encoding")
    page.go_forward()
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128'")
    page.locator(
        '[data-testid="stSidebarNav"] a[href$="/word_embeddings"]'
    ).click()  # another page, and back by its link
    page.wait_for_url("**/word_embeddings")
    page.locator('[data-testid="stSidebarNav"] a[href$="/positional_encoding"]').click()
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128'")  # the settings were kept, not reset
    wait_until_idle(page)
    assert page.url.endswith("?pe_pos_span=50")
    page.go_back()  # one entry per change the learner made: the other page, not an address made on the way
    page.wait_for_url("**/word_embeddings")
    assert page.locator(EXCEPTION).count() == 0


def test_a_link_names_what_it_could_not_use_and_old_links_still_open_their_view(page, server_url):
    page.goto(f"{server_url}/rotary?head_dim=64&rp_pair=999&colour=red")  # old-form, out of range, unknown
    notice = page.locator('[data-testid="stAlertContentWarning"]').first
    expect(notice).to_contain_text("rp_pair=999", timeout=60_000)  # a cold server's first page
    expect(notice).to_contain_text("colour=red (not a setting of this page: dropped)")
    page.wait_for_url("**/rotary?rp_head_dim=64")  # renamed, kept; the rest taken out
    page.goto(f"{server_url}/no_such_page?lang=xx")
    expect(page.get_by_text("The link asks for the page no_such_page")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("lang=xx (not a value this setting takes", exact=False)).to_be_visible()
    assert page.locator(EXCEPTION).count() == 0


def test_back_brings_the_language_back(page, server_url):
    page.goto(f"{server_url}/?lang=zh")
    expect(page.get_by_role("heading", name="概览：从文本到向量")).to_be_visible()
    wait_until_idle(page)
    page.get_by_text("English", exact=True).click()
    page.wait_for_url(lambda url: "lang=" not in url)
    expect(page.get_by_role("heading", name="Overview: from text to vectors")).to_be_visible()
    wait_until_idle(page)
    page.go_back()
    page.wait_for_url("**/?lang=zh")
    expect(page.get_by_role("heading", name="概览：从文本到向量")).to_be_visible()


def test_a_link_past_what_streamlit_reads_is_named_on_the_page(page, server_url):
    """Issue 55, item 3: a query string of more than 1,000 fields opened the page at its defaults in silence (only
    the server's log said so) while the address still showed every value."""
    query = "&".join(["rp_head_dim=64"] + [f"x{i}=1" for i in range(1_000)])  # 1,001 fields
    page.goto(f"{server_url}/rotary?{query}")
    expect(page.get_by_text("This link has 1,001 parameters", exact=False)).to_be_visible(timeout=60_000)
    expect(page.get_by_text("more than the 1,000 parameters", exact=False)).to_be_visible()
    assert page.locator(EXCEPTION).count() == 0
