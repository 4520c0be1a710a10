"""Every page's shared link, opened as a learner opens it (issue 50): on the lab served as scripts/run.sh and the image
serve it (serve.py: labtools.server.start_server), each page with every setting its link holds changed comes back as
that page with those settings, after a reload, after Back and Forward, and from an address below the page. Served
as `streamlit run app.py` they did; served by serve.py every such link opened the overview and lost its settings,
while the tests served app.py."""

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from labtools.browser import EXCEPTION, wait_until_idle
from tests.app.test_links import SHARED, in_link
from ui.i18n import catalog
from ui.pages import OVERVIEW, PATH

LINKS = {lesson.folder: {k: in_link(v) for k, v in SHARED[lesson.script].items()} for lesson in PATH}
TITLES = {lesson.folder: catalog("en")[f"app.{lesson.key}"] for lesson in (OVERVIEW, *PATH)}
CURRENT = '[data-testid="stSidebarNav"] a[aria-current="page"]'


def same(shown: list[str], given: str | list[str]) -> bool:
    """A value the address shows is the one the link gave (a number as Streamlit writes it back: 8.0 for 8)."""
    given = given if isinstance(given, list) else [given]
    if shown == given:
        return True
    try:
        return len(shown) == len(given) and all(float(a) == float(b) for a, b in zip(shown, given, strict=True))
    except ValueError:
        return False


def assert_shows(page, folder: str, params: dict) -> None:
    """The page open is `folder`'s, with every one of `params` in its address, and no traceback."""
    wait_until_idle(page)
    address = urlsplit(page.url)
    assert address.path == f"/{folder}", page.url
    page.locator(CURRENT).first.wait_for()
    assert page.locator(CURRENT).first.inner_text().splitlines()[-1] == TITLES[folder]
    query = parse_qs(address.query)
    lost = {key: value for key, value in params.items() if not same(query.get(key, []), value)}
    assert not lost, f"{folder}: the address lost or changed {lost}: {page.url}"
    assert page.locator(EXCEPTION).count() == 0


@pytest.mark.parametrize("folder", list(LINKS))
def test_a_shared_link_opens_its_page_with_its_settings_after_a_reload_and_back(page, server_url, folder):
    params = LINKS[folder]
    link = f"{server_url}/{folder}?{urlencode(params, doseq=True)}"
    page.goto(link)
    assert_shows(page, folder, params)
    page.reload()
    assert_shows(page, folder, params)
    # left for another page, the overview (the default page, at "/"; it draws no chart, so the walk away and back
    # costs the browser little), then Back to the link's page and Forward again
    page.locator('[data-testid="stSidebarNav"] a').filter(has_text=TITLES[OVERVIEW.folder]).click()
    page.wait_for_url(lambda url: urlsplit(url).path == "/")
    page.locator(CURRENT).filter(has_text=TITLES[OVERVIEW.folder]).wait_for()
    wait_until_idle(page)
    page.go_back()
    assert_shows(page, folder, params)
    page.go_forward()
    page.wait_for_url(lambda url: urlsplit(url).path == "/")
    wait_until_idle(page)


def test_history_is_kept_from_the_first_moment(page, server_url):
    """Before Streamlit's own script runs, history.js already makes a learner's first click an entry (serve.py's
    FirstInPage): installed by its component alone it came after the first run had drawn, and leaving a page before
    then lost its settings from Back (1 in 10 of the test above in CI)."""
    page.goto(f"{server_url}/rotary?rp_seed=2", wait_until="domcontentloaded")  # module scripts have run
    assert page.evaluate("window.__viewHistory === true && window.__linkLimits.most > 0")


def test_an_address_below_a_page_opens_that_page_with_its_settings(page, server_url):
    params = {"pe_d_model": "64", "pe_chapter": "checks"}
    page.goto(f"{server_url}/positional_encoding/extra/more?{urlencode(params)}")
    assert_shows(page, "positional_encoding", params)
    page.goto(f"{server_url}/positional_encoding/?{urlencode(params)}")  # a trailing slash
    assert_shows(page, "positional_encoding", params)
