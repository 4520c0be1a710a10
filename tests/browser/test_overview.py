"""The overview in a real Chromium: its links reach every step, and an exercise checks an answer."""

from labtools.browser import EXCEPTION, assert_layout, rerun
from ui.pages import PATH


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
    assert page.url.endswith("/rotary")
    assert_layout(page)
    box = page.locator('[data-testid="stTextInput"] input[aria-label="Your answer"]').last
    with rerun(page):
        box.fill("0.5")
        box.press("Enter")
    page.get_by_role("button", name="Check").last.click()
    page.wait_for_selector('[data-testid="stAlertContentSuccess"]')
    assert "2^(−8/8)" in page.locator('[data-testid="stAlertContentSuccess"]').inner_text()
    assert page.locator(EXCEPTION).count() == 0
