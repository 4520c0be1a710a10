"""Work that takes time says so (issue 51): on a server started without the warm-up (`python serve.py`, its caches
empty), the first switch to Sentence vectors' "2. Word order" and "3. Search" embeds the shipped pairs and
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


# Every spinner's text, as it is drawn, before the result it precedes: a batch of sentences can take a second, less
# than a locator's polling would reliably see (a MutationObserver sees every change of the page).
SEEN = """
window.__spinners = [];
new MutationObserver(() => {
  for (const s of document.querySelectorAll('[data-testid="stSpinner"]')) {
    const text = s.innerText.trim();
    if (text && !window.__spinners.includes(text)) window.__spinners.push(text);
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def says_then_shows(page, what: str, result) -> None:
    """The spinner saying `what` was drawn, then `result` (a locator) shows and the spinner is gone. The spinner
    wraps the work that makes the result (st.spinner), so having been drawn it came first."""
    expect(result.first).to_be_visible(timeout=FIRST)
    assert any(what.rstrip("…") in text for text in page.evaluate("window.__spinners")), what
    expect(page.locator(SPINNER).filter(has_text=what)).to_have_count(0)


def test_sentence_vectors_first_chapters_say_what_they_compute(screens, cold_url):
    with screen_page(screens, "laptop") as page:
        page.add_init_script(SEEN)
        page.goto(f"{cold_url}/sentence_vectors?sv_chapter=order")
        says_then_shows(page, EN["sv.working_order"], page.locator(".st-key-csv_word_order_pairs"))
        page.goto(f"{cold_url}/sentence_vectors?sv_chapter=search")
        collection = page.get_by_text(EN["sv.collection"].split("{")[0])
        says_then_shows(page, EN["sv.working_collection"], collection)
