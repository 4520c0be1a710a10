"""The learned-vs-sinusoidal page in a real Chromium: Train trains and shows the result."""

from tests.browser.harness import EXCEPTION, wait_until_idle


def test_train_button_trains_and_shows_the_result(page, server_url):
    page.goto(f"{server_url}/learned_vs_sinusoidal")
    page.wait_for_selector(".js-plotly-plot")
    for label, value in (("Steps", "30"), ("Trained length (max_len)", "8"), ("Test length", "16"), ("Seed", "5")):
        box = page.get_by_label(label, exact=True)
        box.fill(value)
        box.press("Enter")
        wait_until_idle(page)
    page.get_by_role("button", name="Train").click()
    page.wait_for_selector('[data-testid="stMetric"]', timeout=60_000)
    assert page.locator('[data-testid="stMetric"]').count() == 3
    assert page.locator(EXCEPTION).count() == 0
