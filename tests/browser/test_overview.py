"""The overview in a real Chromium: its links reach every step, and an exercise checks an answer."""

from urllib.parse import urlparse

from labtools.browser import EXCEPTION, assert_layout, rerun
from tests.browser import walks
from ui.i18n import catalog
from ui.pages import PATH


@walks
def test_the_overview_links_to_every_step_and_an_exercise_checks_its_answer(page, server_url):
    page.goto(server_url)
    page.wait_for_selector('[data-testid="stMain"] h1')
    assert page.locator('[data-testid="stMain"] h1').first.inner_text() == "Overview: from text to vectors"
    page.wait_for_selector('[data-testid="stMain"] [data-testid="stPageLink-NavLink"]')
    assert_layout(page)
    main_links = page.locator('[data-testid="stMain"] [data-testid="stPageLink-NavLink"]')
    hrefs = [main_links.nth(i).get_attribute("href") for i in range(main_links.count())]
    assert hrefs == [lesson.folder for lesson in PATH]  # in its order
    main_links.nth(hrefs.index("rotary")).click()
    page.wait_for_selector(".js-plotly-plot")
    assert urlparse(page.url).path == "/rotary"
    assert_layout(page)
    box = page.locator('[data-testid="stTextInput"] input[aria-label="Your answer"]').last
    with rerun(page):
        box.fill("0.5")
        box.press("Enter")
    page.get_by_role("button", name="Check").last.click()
    page.wait_for_selector('[data-testid="stAlertContentSuccess"]')
    said = page.locator('[data-testid="stAlertContentSuccess"]').inner_text()
    if "present=true" in page.url:  # presenter mode keeps the answers from the room: "Right." alone
        assert said == catalog("en")["ex.right"]
    else:
        assert "2^(−8/8)" in said
    assert page.locator(EXCEPTION).count() == 0


def test_the_overview_at_its_own_address_opens_without_a_warning(page, server_url):
    # issue 51: /overview warned "The link asks for the page overview, which the lab does not have"
    page.goto(f"{server_url}/overview")
    page.wait_for_selector('[data-testid="stMain"] [data-testid="stPageLink-NavLink"]')  # the page has run
    assert page.locator('[data-testid="stMain"] h1').first.inner_text() == "Overview: from text to vectors"
    assert page.locator('[data-testid="stAlert"]', has_text="does not have").count() == 0
    assert page.locator(EXCEPTION).count() == 0
