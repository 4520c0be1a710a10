"""A hostile link in Chromium: the values it plants in notices, boxes and a chart's legend show as text, and the
page holds no link to the foreign host and no picture from it (tests/app/test_markup.py checks the Markdown and the
figures' JSON on every page; this is the browser's own rendering: Streamlit's Markdown with GFM, plotly's SVG)."""

from urllib.parse import urlencode, urlsplit

import pytest
from playwright.sync_api import expect

from labtools.browser import EXCEPTION, wait_until_idle

HOST = "evil.example"
MARKUP = (
    f"[CLICK ME](https://{HOST}/phish) ![x](http://{HOST}/track.png) https://{HOST}/bare www.{HOST} "
    f'me@{HOST} <https://{HOST}/auto> <a href="https://{HOST}/a">a</a> <img src="http://{HOST}/i.png"> $x^2$ *em*'
)
LINKS = {
    "overview": {"zz": MARKUP, "yy": f"![x](http://{HOST}/track.png)"},
    "word_embeddings": {"we_words": f"cat, {MARKUP}"},
    "rotary": {"rp_a": f"{MARKUP}:1"},
    "embedding_space": {"es_own_groups": f'<a href="//{HOST}/x">pets</a>: cat, dog\n{MARKUP}: red'},
}
# every element (open shadow roots too: Playwright's CSS pierces them) that links to the host or loads from it
PLANTED = f'a[href*="{HOST}"], [*|href*="{HOST}"], img[src*="{HOST}"], image[href*="{HOST}"]'


@pytest.mark.parametrize("path", list(LINKS))
def test_a_hostile_link_plants_no_link_or_image(page, server_url, path):
    fetched = []
    page.on("request", lambda request: fetched.append(request.url) if urlsplit(request.url).hostname == HOST else None)
    page.goto(f"{server_url}/{'' if path == 'overview' else path}?{urlencode(LINKS[path])}")
    notice = page.locator('[data-testid="stAlert"]').filter(has_text=HOST).first
    expect(notice).to_be_visible(timeout=60_000)
    wait_until_idle(page)
    if path == "embedding_space":  # the group's name in the legend, as text
        expect(page.locator(".legend").filter(has_text='<a href="//').first).to_be_visible(timeout=60_000)
    assert page.locator(EXCEPTION).count() == 0
    assert page.locator(PLANTED).count() == 0, page.locator(PLANTED).evaluate_all("e => e.map(x => x.outerHTML)")
    assert not page.locator("[data-testid=stAlert] .katex").count()  # $x^2$ is no formula
    assert not fetched, fetched
    if path != "embedding_space":
        shown = notice.inner_text().replace("\u2060", "")  # the word joiner that keeps GFM from making a link
        assert f"](https://{HOST}/phish) ![x](http://{HOST}/track.png)" in shown.replace(",", ""), shown  # as typed
