"""Work that takes time says so (issue 51): on a server started without the warm-up (`streamlit run app.py`, its
caches empty), the first switch to Sentence vectors' "2. Word order" and "3. Search" embeds the shipped pairs and
sentences (a spinner saying so), and Text to tokens' first visit trains its BPEs (a progress bar): each says what it
does before its result shows, never a greyed-out page with no word.

The server is this file's own, not the session's (whose caches other tests fill): started, then stopped."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from labtools.browser import screen_page
from labtools.server import serving
from ui.i18n import catalog

EN = catalog("en")
SPINNER = '[data-testid="stSpinner"]'
FIRST = 300_000  # ms: a cold server embeds the shipped sentences on a loaded machine


@pytest.fixture(scope="module")
def cold_url():
    with serving() as url:
        yield url


def says_then_shows(page, what: str, result) -> None:
    """The spinner saying `what` is seen before `result` (a locator) is, and gone once it is."""
    spinner = page.locator(SPINNER).filter(has_text=what)
    expect(spinner).to_be_visible(timeout=FIRST)
    assert result.count() == 0, f"{what}: the result was there with the spinner"
    expect(result.first).to_be_visible(timeout=FIRST)
    expect(spinner).to_have_count(0)


def test_text_to_tokens_first_visit_shows_its_trainings_progress(screens, cold_url):
    """The BPE trainings behind the fertility chart (50,000 merges in each language) run as jobs: their progress bar,
    saying what it trains, comes before the chart."""
    with screen_page(screens, "laptop") as page:
        page.goto(f"{cold_url}/text_to_tokens")
        progress = page.locator('[data-testid="stProgress"]')
        expect(progress.first).to_be_visible(timeout=FIRST)
        assert progress.first.inner_text().strip(), "a progress bar that says nothing of what it does"
        charts = page.locator(".st-key-tt_fertility_chart .js-plotly-plot")
        assert charts.count() == 0, "the chart was there with the progress bar"
        expect(charts).to_be_visible(timeout=FIRST)


def test_sentence_vectors_first_chapters_say_what_they_compute(screens, cold_url):
    with screen_page(screens, "laptop") as page:
        page.goto(f"{cold_url}/sentence_vectors?sv_chapter=order")
        says_then_shows(page, EN["sv.working_order"], page.locator(".st-key-csv_word_order_pairs"))
        page.goto(f"{cold_url}/sentence_vectors?sv_chapter=search")
        collection = page.get_by_text(EN["sv.collection"].split("{")[0])
        says_then_shows(page, EN["sv.working_collection"], collection)
