"""The browser tests. What they share with the benchmarks and scripts (a server, Chromium, a learner's moves, the
layout check) is labtools; what only the browser tests share is here."""

import functools
from urllib.parse import urlsplit

import pytest

import lessons
from labtools.axe import describe, failing, run_axe
from labtools.browser import EXCEPTION, MODES, views_checked_wide, wait_until_idle
from ui.pages import LESSONS, OVERVIEW


def walks(test):
    """A page's walk, once in each mode of labtools.browser.MODES: on a laptop's window; in presenter mode at
    1024 x 768; on a touch screen, a phone of 390 x 844. The `page` fixture (tests/conftest.py) opens the page in the
    mode and checks the layout after every move at the mode's first screen (labtools.browser.check_after_moves).
    On the mode's second screen (1920 x 1080, a tablet) the page is opened and each new view checked, then narrowed
    to the first (labtools.browser.check_views_wide); once the walk has ended, every chapter of the page must have
    been checked there. In two of the modes the page as the walk first opens it (its defaults) is also checked with
    axe-core (assert_accessible, run by the `page` fixture after the walk's first goto): in the light theme on a
    laptop's window, in the dark theme in presenter mode (AXE_THEMES)."""

    @functools.wraps(test)
    def walk(**fixtures):
        test(**fixtures)
        checked = views_checked_wide(fixtures["page"])
        if checked is not None:  # None: a laptop's window, one screen
            home, seen = checked
            assert home is not None, "the walk opened no page on the wider screen"
            wanted = {(home, None), *((home, chapter) for chapter in chapters_at(home)[1:])}
            assert wanted <= seen, f"not checked on the wider screen: {sorted(wanted - seen, key=str)}"

    return pytest.mark.parametrize("page", list(MODES), indirect=True)(walk)


def chapters_at(path: str) -> tuple[str, ...]:
    """The chapters of the page at the address path `path` ("/" the overview), read from its declaration; () for a
    page without chapters, or an address that is no page's."""
    folder = path.strip("/") or OVERVIEW.folder
    pages = {OVERVIEW.folder, *(lesson.folder for lesson in LESSONS.values())}
    return lessons.chapters(folder) if folder in pages else ()


# the PE table's window: the first chart's z as plotly decoded it (the figure carries it in base64)
HEATMAP_SHAPE = "(z => z.length + ', ' + z[0].length)(document.querySelector('.js-plotly-plot')._fullData[0].z)"
HEATMAP_Y0 = "document.querySelector('.js-plotly-plot').data[0].y0"


# The walks' modes in which the page as first opened is checked with axe-core (tests/conftest.py's `page` fixture),
# and the theme each asks the browser for (its colour preference picks Streamlit's light or dark theme). Presenter
# mode changes sizes, not colours: both themes' colours are checked, the light one on a laptop's window.
AXE_THEMES = {"laptop": "light", "presenter": "dark"}
# every chart drawn: plotly has laid it out
CHARTS_DRAWN = (
    "() => [...document.querySelectorAll('.js-plotly-plot')].every(p => p._fullLayout && p.querySelector('.main-svg'))"
)
BACKGROUND_DARK = """(() => {
    const [r, g, b] = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor.match(/\\d+/g);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
})()"""
ZOOM = "getComputedStyle(document.querySelector('[data-testid=\"stMainBlockContainer\"]')).zoom"


def assert_accessible(page, scheme: str, requested: list[str]) -> None:
    """The page as it was just opened, drawn whole: no exception, nothing asked of the internet (`requested`: every
    URL the page asked for so far; the lab runs offline), the theme `scheme` ("light", "dark") the one shown,
    presenter mode's zoom where the link asks for it, and no serious or critical axe-core violation (WCAG 2 A and
    AA, and axe's best practices), which fails the test naming the rule and the offending elements."""
    address = urlsplit(page.url)
    page.wait_for_selector('[data-testid="stMain"] h1')
    if address.path.strip("/") not in ("", OVERVIEW.folder):  # every lesson draws a chart; the overview none
        page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    page.wait_for_function(CHARTS_DRAWN)
    own = f"{address.scheme}://{address.netloc}"
    # e.g. a ":material/...:" page icon makes Streamlit fetch the favicon from fonts.gstatic.com
    elsewhere = [url for url in requested if not url.startswith((own, "data:", "blob:"))]
    assert page.locator(EXCEPTION).count() == 0 and elsewhere == []
    assert page.evaluate(BACKGROUND_DARK) == (scheme == "dark")  # the theme asked for is the one checked
    if "present=true" in address.query:  # the zoom's <style> comes with the run's other elements: wait for it
        page.wait_for_function(f"{ZOOM} === '1.3'")
    else:
        assert page.evaluate(ZOOM) == "1"
    serious = failing(run_axe(page))
    if serious:
        pytest.fail("axe-core:\n" + describe(serious, where=f"{scheme} {page.url}: "), pytrace=False)
