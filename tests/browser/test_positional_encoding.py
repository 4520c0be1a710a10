"""The positional-encoding page in a real Chromium: the windows' sliders, chapters, theme, code, errors, links."""

import numpy as np
from playwright.sync_api import expect

from labtools.browser import EXCEPTION, assert_layout, requests, rerun, shared_link, wait_for_plot, wait_until_idle
from labtools.moves import choose, click_button, drag_slider, pick, press_slider, type_into
from tests.browser import HEATMAP_SHAPE, HEATMAP_Y0, walks

CHART = "document.querySelector('.live-chart')"  # the first window chart (ui.window.window_chart)
# the first chart's lines: how many, the first one's first position and its length
LINES = f"(d => d.length + '|' + d[0].x0 + '|' + d[0].y.length)({CHART}._fullData)"
# the similarity's square: its first row and column and its size
SQUARE = f"(d => [d.y0, d.x0, d.z.length, d.z[0].length].join())({CHART}._fullData[0])"


def open_pe(page, server_url, query: str = "", shape: str = "100, 128") -> None:
    page.goto(f"{server_url}/positional_encoding{query}")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '{shape}'")
    wait_until_idle(page)


@walks
def test_every_chapter_keeps_its_layout_after_every_move(page, server_url):
    """A learner's walk through the page: after each move every chart keeps its height, covers nothing and has its
    tick labels (labtools.browser.assert_layout). The table's heatmap once collapsed to 0 px after the first new figure
    (d_model typed) and was drawn over the caption, the download, the formula and "Show the code" below it."""
    open_pe(page, server_url)
    assert_layout(page)
    type_into(page, "d_model", 64)
    assert_layout(page)
    type_into(page, "max_len (positions)", 50)
    assert_layout(page)
    drag_slider(page, "Positions shown", 0.15)  # 20 of 50 positions: a first position to choose
    assert_layout(page)
    press_slider(page, "First position", "End")
    assert_layout(page)
    drag_slider(page, "Dimensions shown", 0)
    assert_layout(page)
    pick(page, "500000")  # a common base
    assert_layout(page)
    choose(page, "Preset", "Illustrated Transformer: 512 × 20, sines then cosines")
    assert_layout(page)
    click_button(page, "Pin these settings as A")
    type_into(page, "d_model", 256)
    assert_layout(page)  # B − A under the table
    pick(page, "2. Wavelengths")
    assert_layout(page)
    drag_slider(page, "Positions plotted", 1)
    type_into(page, "Dimensions to plot", "0, 1, 100, 255")
    assert_layout(page)  # with A against B's wavelengths
    click_button(page, "Unpin A")
    pick(page, "3. Similarity")
    assert_layout(page)
    press_slider(page, "Positions compared", "ArrowLeft")
    with rerun(page):
        page.get_by_text("cosine", exact=True).click()
    assert_layout(page)
    pick(page, "4. Checks")
    type_into(page, "Shift k", 3)
    assert_layout(page)
    pick(page, "5. In a model")
    assert_layout(page)
    pick(page, "Try this")
    assert_layout(page)
    pick(page, "1. The table")
    page.get_by_text("Show the code").first.click()
    page.wait_for_selector('[data-testid="stCode"]')
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0


def test_moving_d_model_changes_the_heatmap_in_place(page, server_url):
    page.goto(f"{server_url}/positional_encoding")
    page.wait_for_selector(".js-plotly-plot")
    # the element exists before plotly attaches its data: wait for the default shape rather than read it at once
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")
    page.evaluate("document.querySelector('.js-plotly-plot').dataset.first = 'yes'")
    box = page.get_by_label("d_model")
    box.fill("64")
    box.press("Enter")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 64'")
    with rerun(page):  # ui/live_chart.js asks for the run once it has drawn the move
        page.get_by_role("slider", name="Positions shown").press("ArrowLeft")
        wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 64'")
    # another base: a table of the same shape, whose cells the heatmap shows
    cell = f"{CHART}.data[0].z[5][10]"
    assert abs(page.evaluate(cell) - np.sin(5 / 10000 ** (10 / 64))) < 1e-6
    base = page.get_by_label("base", exact=True)
    base.fill("500000")
    base.press("Enter")
    wait_for_plot(page, f"Math.abs({cell} - {np.sin(5 / 500000 ** (10 / 64))}) < 1e-6")
    assert page.evaluate(HEATMAP_SHAPE) == "50, 64"
    # ui.live_chart redrew the chart it had, in place, rather than a new one
    assert page.evaluate("document.querySelector('.js-plotly-plot').dataset.first") == "yes"
    page.wait_for_url(lambda url: all(p in url for p in ("pe_d_model=64", "pe_pos_span=50", "pe_base=500000")))
    assert page.locator(EXCEPTION).count() == 0


def test_the_table_window_follows_a_drag_before_the_rerun_and_the_link_after_it(page, server_url):
    # at the defaults both windows hold their whole axis: no first position or dimension to choose, and the
    # dimensions' slider stays in its own column
    page.goto(f"{server_url}/positional_encoding")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")
    positions, dimensions = (page.get_by_role("slider", name=n) for n in ("Positions shown", "Dimensions shown"))
    assert positions.bounding_box()["y"] == dimensions.bounding_box()["y"]
    assert dimensions.bounding_box()["x"] > positions.bounding_box()["x"] + positions.bounding_box()["width"]
    assert page.get_by_role("slider", name="First position").count() == 0
    # the browser holds the whole default table: the heatmap follows the thumb while it is held, with no rerun
    with rerun(page):  # ui/live_chart.js asks for the run once it has drawn the move
        page.get_by_role("slider", name="Positions shown").press("ArrowLeft")
        wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128' && {HEATMAP_Y0} === 0")
    page.wait_for_url(lambda url: "pe_pos_span=50" in url)
    box = page.get_by_role("slider", name="First position").bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 8, y)
    page.mouse.down()
    asked = requests(page)
    page.mouse.move(box["x"] + box["width"] / 2, y, steps=5)
    wait_for_plot(page, f"{HEATMAP_Y0} >= 20 && {HEATMAP_Y0} <= 30")
    # a check that nothing happens: the time a drawn move takes to be sent (ui/live_chart.js sends it after the
    # next frame), given to a run that a held thumb must not ask for
    page.wait_for_timeout(300)
    assert requests(page) == asked and "pe_pos_start" not in page.url  # nothing sent while the thumb is held
    with rerun(page):
        page.mouse.up()
    start = page.evaluate(HEATMAP_Y0)
    page.wait_for_url(lambda url: f"pe_pos_start={start}" in url)
    caption = page.get_by_text(f"Positions {start}–{start + 49} × dimensions 0–127")
    expect(caption).to_be_visible()
    # keys pressed faster than the reruns: the window ends where the last key left it, and so does the link
    slider = page.get_by_role("slider", name="First position")
    for _ in range(5):
        slider.press("ArrowLeft")
    wait_for_plot(page, f"{HEATMAP_Y0} === {start - 5}")
    page.wait_for_url(lambda url: f"pe_pos_start={start - 5}" in url)
    wait_until_idle(page)
    assert page.evaluate(HEATMAP_Y0) == start - 5 and page.url.endswith(f"pe_pos_start={start - 5}")
    assert slider.get_attribute("aria-valuetext") == str(start - 5)
    assert page.locator(EXCEPTION).count() == 0


def test_a_window_outside_the_block_is_drawn_from_the_block_the_server_sends(page, server_url):
    # 100,000 x 128 is too large to send whole: each window comes with its own block
    page.goto(f"{server_url}/positional_encoding?pe_max_len=100000&pe_pos_span=50")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128' && {HEATMAP_Y0} === 0")
    wait_until_idle(page)
    page.get_by_role("slider", name="First position").press("End")
    wait_for_plot(page, f"{HEATMAP_Y0} === 99950")
    wait_until_idle(page)
    assert "pe_pos_start=99950" in page.url and page.locator(".live-chart.waiting").count() == 0
    page.get_by_role("slider", name="Positions shown").press("End")  # 1000 rows: the window moves back inside
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '1000, 128' && {HEATMAP_Y0} === 99000")
    wait_until_idle(page)
    assert "pe_pos_start=99000" in page.url
    assert page.locator(EXCEPTION).count() == 0


def test_the_curves_window_moves_in_the_browser_too(page, server_url):
    page.goto(f"{server_url}/positional_encoding?pe_chapter=wavelengths&pe_max_len=1000")
    wait_for_plot(page, f"{LINES} === '4|0|100'")
    wait_until_idle(page)
    start = page.get_by_role("slider", name="From position")
    for _ in range(3):
        start.press("ArrowRight")
    wait_for_plot(page, f"{LINES} === '4|3|100'")
    page.wait_for_url(lambda url: "pe_curve_start=3" in url)
    page.get_by_role("slider", name="Positions plotted").press("End")  # 2,000 of 1,000: all of them, from 0
    wait_for_plot(page, f"{LINES} === '4|0|1000'")
    page.wait_for_url(lambda url: "pe_curve_span=2000" in url and "pe_curve_start" not in url)
    expect(start).to_have_count(0)
    assert page.locator(EXCEPTION).count() == 0


def test_the_similarity_window_moves_in_the_browser_and_the_offsets_follow(page, server_url):
    page.goto(f"{server_url}/positional_encoding?pe_chapter=similarity")
    wait_for_plot(page, f"{SQUARE} === '0,0,100,100'")
    wait_until_idle(page)
    page.get_by_role("slider", name="Positions compared").press("ArrowLeft")
    wait_for_plot(page, f"{SQUARE} === '0,0,50,50'")
    for _ in range(2):
        page.get_by_role("slider", name="From position").press("ArrowRight")
    wait_for_plot(page, f"{SQUARE} === '2,2,50,50'")
    page.wait_for_url(lambda url: "pe_sim_start=2" in url)
    # the offset chart (st.plotly_chart), drawn by the rerun: its second reference is now the first position
    wait_for_plot(page, "document.querySelectorAll('.js-plotly-plot')[1].data[1].name === 'n = 2'")
    assert page.locator(EXCEPTION).count() == 0


def test_live_charts_take_the_theme_and_go_full_screen_and_back(page, server_url):
    page.emulate_media(color_scheme="dark")  # Streamlit follows the system's theme: a learner's dark mode
    page.goto(f"{server_url}/positional_encoding?pe_chapter=wavelengths")
    wait_for_plot(page, "document.querySelector('.live-chart').data.length === 4")
    wait_until_idle(page)
    chart = "document.querySelector('.live-chart')"
    theme = page.evaluate(
        f"['--st-border-color-light', '--st-text-color', '--st-chart-categorical-colors', '--st-background-color']"
        f".map((name) => getComputedStyle({chart}).getPropertyValue(name).trim())"
    )
    assert theme[3] != "#FFFFFF"  # the dark theme is on
    drawn = page.evaluate(
        f"[{chart}._fullLayout.xaxis.gridcolor, {chart}._fullLayout.font.color, {chart}._fullLayout.colorway.join()]"
    )
    assert drawn == theme[:3]  # grid lines, text and lines in the theme's colours, not plotly_white's
    assert page.evaluate(f"{chart}._fullData[0].line.color") == theme[2].split(",")[0]
    height = page.evaluate(f"{chart}._fullLayout.height")
    page.locator(".live-chart").first.hover()
    page.locator('.live-chart .modebar-btn[data-title="Full screen"]').first.click()
    wait_for_plot(page, f"document.fullscreenElement === {chart} && {chart}._fullLayout.height > {height}")
    page.evaluate("document.exitFullscreen()")
    wait_for_plot(page, f"!document.fullscreenElement && {chart}._fullLayout.height === {height}")
    assert page.locator(EXCEPTION).count() == 0


def test_show_the_code_draws_the_source_only_when_opened(page, server_url):
    open_pe(page, server_url)
    assert page.locator('[data-testid="stCode"]').count() == 0  # collapsed code is not in the page
    page.get_by_text("Show the code").first.click()
    page.wait_for_selector('[data-testid="stCode"]')
    assert "def inverse_frequencies" in page.locator('[data-testid="stCode"]').first.inner_text()
    assert page.locator(EXCEPTION).count() == 0


def test_bad_base_shows_a_message_not_a_traceback(page, server_url):
    open_pe(page, server_url)
    box = page.get_by_role("textbox", name="base", exact=True)
    box.fill("1")
    box.press("Enter")
    page.wait_for_selector('[data-testid="stAlertContentError"]')
    assert "above 1" in page.locator('[data-testid="stAlertContentError"]').inner_text()
    assert page.locator(EXCEPTION).count() == 0
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")  # the table still drawn, with the last valid base


def test_chapters_switch_and_stay_in_the_link_and_an_old_link_opens_the_same_view(page, server_url):
    open_pe(page, server_url)
    page.get_by_role("radio", name="3. Similarity").click()
    wait_for_plot(page, "document.querySelectorAll('.js-plotly-plot').length === 2")
    page.wait_for_url(lambda url: "pe_chapter=similarity" in url)
    wait_until_idle(page)
    page.goto(page.url)  # the link opens the same chapter
    page.wait_for_selector('[data-testid="stMain"] h2')
    assert "Similarity depends only on the offset" in page.locator('[data-testid="stMain"] h2').first.inner_text()
    wait_for_plot(page, "document.querySelectorAll('.js-plotly-plot').length === 2")
    # a link made before the settings had their page's prefix: renamed, the same view, no notice
    page.goto(f"{server_url}/positional_encoding?chapter=similarity&d_model=64&sim_span=50")
    wait_for_plot(page, f"{SQUARE} === '0,0,50,50'")
    page.wait_for_url(lambda url: all(p in url for p in ("pe_chapter=similarity", "pe_d_model=64", "pe_sim_span=50")))
    wait_until_idle(page)
    assert page.locator('[data-testid="stAlert"]').count() == 0 and page.locator(EXCEPTION).count() == 0


def test_a_section_slider_keeps_the_link_and_its_share_control_current(page, server_url):
    open_pe(page, server_url)
    page.get_by_role("slider", name="Positions shown").press("ArrowLeft")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128'")
    wait_until_idle(page)
    page.get_by_role("slider", name="First position").press("ArrowRight")
    wait_for_plot(page, f"{HEATMAP_Y0} === 1")
    page.wait_for_url(lambda url: "pe_pos_span=50" in url and "pe_pos_start=1" in url)
    wait_until_idle(page)
    page.get_by_text("Share this view").click()
    link = page.url
    expect(page.get_by_role("textbox", name="Share this view")).to_have_value(link)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server_url)
    page.get_by_role("button", name="Copy").click()
    page.get_by_role("button", name="Copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == link
    page.goto(link)  # the link shows the same window
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128' && {HEATMAP_Y0} === 1")
    assert page.locator(EXCEPTION).count() == 0


def test_in_chinese_the_preset_box_layout_and_chapters_work_and_stay_in_the_link(page, server_url):
    # AppTest cannot move a select box or radio after ?lang=zh (it looks values up among the translated labels)
    open_pe(page, server_url, "?lang=zh")
    expect(page.get_by_role("slider", name="显示的位置数")).to_be_visible()  # the table window's own sliders
    page.get_by_role("combobox", name="预设").click()
    page.get_by_role("option", name="Illustrated Transformer：512 × 20，先正弦后余弦").click()
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '20, 512'")
    page.wait_for_url(lambda url: "pe_layout=concatenated" in url and "pe_d_model=512" in url)
    wait_until_idle(page)
    expect(page.get_by_text("拼接", exact=True)).to_be_visible()  # the layouts' names in Chinese (issue 41, 4e)
    page.get_by_text("交错", exact=True).click()  # the layout radio: the preset box goes back to custom
    page.wait_for_url(lambda url: "pe_layout=" not in url)
    wait_until_idle(page)
    expect(page.get_by_role("combobox", name="预设")).to_have_value("自定义")
    page.get_by_role("radio", name="2. 波长").click()  # the chapter control
    page.wait_for_url(lambda url: "pe_chapter=wavelengths" in url)
    wait_until_idle(page)
    wait_for_plot(page, "document.querySelectorAll('.js-plotly-plot').length === 2")  # the window chart draws itself
    assert page.locator(EXCEPTION).count() == 0
    page.get_by_text("English", exact=True).click()  # the same sliders, relabelled
    expect(page.get_by_role("slider", name="Positions plotted")).to_be_visible()
    page.wait_for_url(lambda url: "lang=" not in url and "pe_chapter=wavelengths" in url)
    wait_until_idle(page)
    page.goto(f"{page.url}&lang=zh")  # the chapter's link is the same in either language
    expect(page.get_by_role("slider", name="画出的位置数")).to_be_visible(timeout=30_000)  # a new page: 5 s was short
    assert page.locator('[data-testid="stAlert"]').count() == 0 and page.locator(EXCEPTION).count() == 0


def test_an_a_b_link_round_trip(page, browser, server_url):
    """Pin A, change B, and the page's URL opened in a new page shows A pinned, B's settings and B − A."""
    diff_drawn = "[...document.querySelectorAll('.js-plotly-plot')].some(p => p.layout.title.text.includes('B − A'))"
    open_pe(page, server_url)
    page.get_by_role("button", name="Pin these settings as A").click()
    expect(page.get_by_text("B equals A: change a setting to compare")).to_be_visible()
    page.wait_for_url(lambda url: "pe_a=d_model" in url)  # A is written into the link
    base = page.get_by_label("base", exact=True)
    base.fill("500000")
    base.press("Enter")
    wait_for_plot(page, diff_drawn)
    page.wait_for_url(lambda url: "pe_base=500000" in url and "pe_a=" in url)
    wait_until_idle(page)
    shared = page.url
    assert page.locator(EXCEPTION).count() == 0

    with shared_link(browser, shared) as other:
        wait_for_plot(other, diff_drawn)
        wait_until_idle(other)
        assert other.get_by_label("base", exact=True).input_value() == "500000"  # B
        expect(other.get_by_text("A is pinned: d_model 128, max_len 100, base 10000,")).to_be_visible()  # A
        cell = "[...document.querySelectorAll('.js-plotly-plot')].at(-1)._fullData[0].z[5][10]"
        b_less_a = np.sin(5 / 500000 ** (10 / 128)) - np.sin(5 / 10000 ** (10 / 128))
        assert abs(other.evaluate(cell) - b_less_a) < 1e-5
        assert other.locator('[data-testid="stAlertContentWarning"]').count() == 0
        assert other.locator(EXCEPTION).count() == 0
