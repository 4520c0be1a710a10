"""The learned-vs-sinusoidal page in a real Chromium: Train trains and shows the result; the link keeps the
settings, so a shared link opens the same finished run."""

from tests.browser.harness import EXCEPTION, wait_until_idle


def test_train_button_trains_and_shows_the_result(page, server_url):
    page.goto(f"{server_url}/learned_vs_sinusoidal")
    page.wait_for_selector(".js-plotly-plot")
    for label, value in (("Steps", "30"), ("Trained length (max_len)", "8"), ("Test length", "16"), ("Seed", "5")):
        box = page.get_by_label(label, exact=True)
        box.fill(value)
        box.press("Enter")
        wait_until_idle(page)
    page.wait_for_url(lambda url: all(f"lv_{p}" in url for p in ("steps=30", "train_len=8", "test_len=16", "seed=5")))
    link = page.url
    page.get_by_role("button", name="Train").click()
    page.wait_for_selector('[data-testid="stMetric"]', timeout=60_000)
    assert page.locator('[data-testid="stMetric"]').count() == 3
    page.goto(link)  # the same settings from the link: the finished run, shown at once
    page.wait_for_selector('[data-testid="stMetric"]')
    assert page.locator('[data-testid="stMetric"]').count() == 3
    assert page.locator(EXCEPTION).count() == 0
