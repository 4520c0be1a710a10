"""The learned-vs-sinusoidal page in a real Chromium: Train trains and shows the result; the link keeps the
settings, so a shared link opens the same finished run; the layout holds after every move, trained or not."""

from labtools.browser import EXCEPTION, assert_layout
from labtools.moves import choose, click_button, drag_slider, type_into
from tests.browser import walks


@walks
def test_train_button_trains_and_shows_the_result_and_the_layout_holds(page, server_url):
    """After each move, and once the models are trained, every chart keeps its height, covers nothing and has its
    tick labels (labtools.browser.assert_layout)."""
    page.goto(f"{server_url}/learned_vs_sinusoidal")
    page.wait_for_selector(".js-plotly-plot")
    assert_layout(page)
    choose(page, "Task", "reverse")
    drag_slider(page, "d_model", 0)
    assert_layout(page)
    for label, value in (("Steps", 30), ("Trained length (max_len)", 8), ("Test length", 16), ("Seed", 5)):
        type_into(page, label, value)
    settings = ("task=reverse", "d_model=16", "steps=30", "train_len=8", "test_len=16", "seed=5")
    page.wait_for_url(lambda url: all(f"lv_{p}" in url for p in settings))
    link = page.url
    click_button(page, "Train")
    page.wait_for_selector('[data-testid="stMetric"]', timeout=60_000)
    assert page.locator('[data-testid="stMetric"]').count() == 3
    assert_layout(page)  # the losses, accuracies, tables and their similarities
    type_into(page, "Test length", 24)
    assert_layout(page)
    page.goto(link)  # the same settings from the link: the finished run, shown at once
    page.wait_for_selector('[data-testid="stMetric"]')
    assert page.locator('[data-testid="stMetric"]').count() == 3
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0
