"""The rotary page in a real Chromium: a preset base, a shared link with its language, the share button."""

from playwright.sync_api import expect

from tests.browser.harness import EXCEPTION, wait_for_plot, wait_until_idle


def test_rotary_page_redraws_for_llama3_base(page, server_url):
    page.goto(f"{server_url}/rotary")
    page.wait_for_selector(".js-plotly-plot")
    page.get_by_role("radio", name="500000").click()
    wait_for_plot(
        page, "[...document.querySelectorAll('.js-plotly-plot')].some(p => p.layout.title.text.includes('Pair'))"
    )
    wait_until_idle(page)
    assert page.get_by_role("textbox", name="base", exact=True).input_value() == "500000"
    assert page.locator(EXCEPTION).count() == 0


def test_a_shared_link_opens_with_its_settings_and_language(page, server_url):
    page.goto(f"{server_url}/rotary?head_dim=64&base=500000&distance=99999&lang=zh")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    assert page.locator('[data-testid="stMain"] h1').first.inner_text() == "旋转位置编码与长上下文"
    assert page.get_by_label("head_dim").input_value() == "64"
    assert page.get_by_role("textbox", name="base", exact=True).input_value() == "500000"
    assert "distance=99999" in page.locator('[data-testid="stAlertContentWarning"]').first.inner_text()
    assert "head_dim=64" in page.url and "lang=zh" in page.url
    page.get_by_text("分享当前视图").click()
    expect(page.get_by_role("textbox", name="分享当前视图")).to_have_value(page.url)
    assert "/rotary?" in page.url and "base=500000" in page.url
    assert page.locator(EXCEPTION).count() == 0


def test_the_share_button_copies_without_the_clipboard_api(page, server_url):
    # plain http on a workshop's network is not a secure context: Chromium has no navigator.clipboard there
    page.add_init_script("Object.defineProperty(window, 'isSecureContext', { value: false })")
    page.goto(f"{server_url}/rotary?head_dim=64")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    page.get_by_text("Share this view").click()
    page.get_by_role("button", name="Copy").click()
    page.get_by_role("button", name="Copied").wait_for()
    page.keyboard.press("Escape")
    page.evaluate("document.body.appendChild(Object.assign(document.createElement('textarea'), { id: 'paste' }))")
    page.locator("#paste").focus()
    page.keyboard.press("Control+V")
    assert page.locator("#paste").input_value() == page.url
