"""axe-core on every page at its defaults, in the light and dark themes and in presenter mode: no serious or critical
violation (WCAG 2 A and AA, and axe's best practices). Workshops run on projectors, where low contrast is worse.
Each page is also drawn whole without an exception, and asks nothing of the internet (the lab runs offline)."""

import pytest

from labtools.axe import describe, failing, run_axe
from labtools.browser import EXCEPTION, wait_until_idle
from ui.pages import OVERVIEW, PATH

# each page's address is what st.navigation makes of its script's name (a lesson folder's: its url path); the overview is the default page, at "/"
PAGES = {lesson.key: "" if lesson is OVERVIEW else lesson.folder for lesson in (OVERVIEW, *PATH)}
# and one view that is no page's default: the input layer with the real model, whose own scale, positions, width
# and dropout leave most of its settings disabled (their labels read at 2.57:1 once, let through as inactive)
PAGES["il-real"] = "input_layer?il_mode=minilm"
# the browser's colour preference picks Streamlit's light or dark theme; presenter mode zooms the main column.
# Presenter mode changes sizes, not colours, so it is checked once per page, in the dark theme (both themes'
# colours are checked: light here, dark there).
MODES = {"light": ("light", ""), "dark-presenter": ("dark", "?present=true")}
# every chart drawn: plotly has laid it out
CHARTS_DRAWN = (
    "() => [...document.querySelectorAll('.js-plotly-plot')].every(p => p._fullLayout && p.querySelector('.main-svg'))"
)
BACKGROUND_DARK = """(() => {
    const [r, g, b] = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor.match(/\\d+/g);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
})()"""
ZOOM = "getComputedStyle(document.querySelector('[data-testid=\"stMainBlockContainer\"]')).zoom"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key", PAGES)
def test_no_serious_or_critical_accessibility_violation(page, server_url, key, mode):
    scheme, query = MODES[mode]
    page.emulate_media(color_scheme=scheme)
    address = PAGES[key] + (query.replace("?", "&") if "?" in PAGES[key] else query)
    # e.g. a ":material/...:" page icon makes Streamlit fetch the favicon from fonts.gstatic.com
    elsewhere = []
    page.on("request", lambda r: None if r.url.startswith((server_url, "data:", "blob:")) else elsewhere.append(r.url))
    page.goto(f"{server_url}/{address}")
    page.wait_for_selector('[data-testid="stMain"] h1')
    if key != OVERVIEW.key:  # every lesson draws a chart; the overview none
        page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    page.wait_for_function(CHARTS_DRAWN)
    assert page.locator(EXCEPTION).count() == 0 and elsewhere == []
    assert page.evaluate(BACKGROUND_DARK) == (scheme == "dark")  # the theme asked for is the one checked
    if "present" in query:  # the zoom's <style> comes with the run's other elements; wait for it, not a moment
        page.wait_for_function(f"{ZOOM} === '1.3'")
    else:
        assert page.evaluate(ZOOM) == "1"
    serious = failing(run_axe(page))
    if serious:
        pytest.fail("axe-core:\n" + describe(serious, where=f"{mode} /{address}: "), pytrace=False)
