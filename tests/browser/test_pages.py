"""Every page in a real Chromium against a real server: it renders, draws a chart, and reacts."""

import numpy as np
import pandas as pd
from playwright.sync_api import expect

from tests.browser.harness import wait_for_plot, wait_until_idle
from tests.fixtures import FIXTURES

EXCEPTION = '[data-testid="stException"]'
# the PE table's window, which the browser cuts from its block: rows of a Float32Array
HEATMAP_SHAPE = "(z => z.length + ', ' + z[0].length)(document.querySelector('.js-plotly-plot').data[0].z)"
HEATMAP_Y0 = "document.querySelector('.js-plotly-plot').data[0].y0"


def page_links(page, server_url) -> list[str]:
    page.goto(server_url)
    page.wait_for_selector('[data-testid="stSidebarNav"] a')
    links = page.locator('[data-testid="stSidebarNav"] a')
    return [links.nth(i).get_attribute("href") for i in range(links.count())]


def test_every_page_renders_without_exception_and_asks_nothing_of_the_internet(page, server_url):
    elsewhere = []  # e.g. a ":material/...:" page icon makes Streamlit fetch the favicon from fonts.gstatic.com
    page.on("request", lambda r: None if r.url.startswith((server_url, "data:", "blob:")) else elsewhere.append(r.url))
    links = page_links(page, server_url)
    assert len(links) == 7
    for href in links[1:]:  # the lesson pages; the overview has no chart
        page.goto(href)
        page.wait_for_selector('[data-testid="stMain"] h1')
        page.wait_for_selector(".js-plotly-plot")  # a chart rendered (fails after the timeout otherwise)
        wait_until_idle(page)
        assert page.locator(EXCEPTION).count() == 0, href
    assert elsewhere == []


def test_the_overview_links_to_every_step_and_an_exercise_checks_its_answer(page, server_url):
    page.goto(server_url)
    page.wait_for_selector('[data-testid="stMain"] h1')
    assert page.locator('[data-testid="stMain"] h1').first.inner_text() == "Overview: from text to vectors"
    page.wait_for_selector('[data-testid="stMain"] [data-testid="stPageLink-NavLink"]')
    wait_until_idle(page)
    main_links = page.locator('[data-testid="stMain"] [data-testid="stPageLink-NavLink"]')
    hrefs = [main_links.nth(i).get_attribute("href") for i in range(main_links.count())]
    assert sorted(hrefs) == sorted(
        ["input_layer", "word_embeddings", "embedding_space", "positional_encoding", "rotary", "learned_vs_sinusoidal"]
    )
    main_links.nth(hrefs.index("rotary")).click()
    page.wait_for_selector(".js-plotly-plot")
    assert page.url.endswith("/rotary")
    box = page.locator('[data-testid="stTextInput"] input[aria-label="Your answer"]').last
    box.fill("0.5")
    box.press("Enter")
    wait_until_idle(page)
    page.get_by_role("button", name="Check").last.click()
    page.wait_for_selector('[data-testid="stAlertContentSuccess"]')
    assert "2^(−8/8)" in page.locator('[data-testid="stAlertContentSuccess"]').inner_text()
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
    page.get_by_role("slider", name="Positions shown").press("ArrowLeft")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 64'")
    wait_until_idle(page)
    # another base: a table of the same shape, whose cells the heatmap shows
    cell = "document.querySelector('.js-plotly-plot').data[0].z[5][10]"
    assert abs(page.evaluate(cell) - np.sin(5 / 10000 ** (10 / 64))) < 1e-6
    base = page.get_by_label("base", exact=True)
    base.fill("500000")
    base.press("Enter")
    wait_for_plot(page, f"Math.abs({cell} - {np.sin(5 / 500000 ** (10 / 64))}) < 1e-6")
    assert page.evaluate(HEATMAP_SHAPE) == "50, 64"
    # ui.live_chart redrew the chart it had, in place, rather than a new one
    assert page.evaluate("document.querySelector('.js-plotly-plot').dataset.first") == "yes"
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
    page.get_by_role("slider", name="Positions shown").press("ArrowLeft")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128' && {HEATMAP_Y0} === 0")
    page.wait_for_url("**pos_span=50")
    wait_until_idle(page)
    box = page.get_by_role("slider", name="First position").bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 8, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2, y, steps=5)
    wait_for_plot(page, f"{HEATMAP_Y0} >= 20 && {HEATMAP_Y0} <= 30")
    page.wait_for_timeout(300)
    assert "pos_start" not in page.url  # nothing sent while the thumb is held
    page.mouse.up()
    wait_until_idle(page)
    start = page.evaluate(HEATMAP_Y0)
    page.wait_for_url(f"**pos_start={start}")
    caption = page.get_by_text(f"Positions {start}–{start + 49} × dimensions 0–127")
    expect(caption).to_be_visible()
    # keys pressed faster than the reruns: the window ends where the last key left it, and so does the link
    slider = page.get_by_role("slider", name="First position")
    for _ in range(5):
        slider.press("ArrowLeft")
    wait_for_plot(page, f"{HEATMAP_Y0} === {start - 5}")
    page.wait_for_url(f"**pos_start={start - 5}")
    wait_until_idle(page)
    assert page.evaluate(HEATMAP_Y0) == start - 5 and page.url.endswith(f"pos_start={start - 5}")
    assert slider.get_attribute("aria-valuetext") == str(start - 5)
    assert page.locator(EXCEPTION).count() == 0


def test_a_window_outside_the_block_is_drawn_from_the_block_the_server_sends(page, server_url):
    # 100,000 x 128 is too large to send whole: each window comes with its own block
    page.goto(f"{server_url}/positional_encoding?max_len=100000&pos_span=50")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128' && {HEATMAP_Y0} === 0")
    wait_until_idle(page)
    page.get_by_role("slider", name="First position").press("End")
    wait_for_plot(page, f"{HEATMAP_Y0} === 99950")
    wait_until_idle(page)
    assert "pos_start=99950" in page.url and page.locator(".live-chart.waiting").count() == 0
    page.get_by_role("slider", name="Positions shown").press("End")  # 1000 rows: the window moves back inside
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '1000, 128' && {HEATMAP_Y0} === 99000")
    wait_until_idle(page)
    assert "pos_start=99000" in page.url
    assert page.locator(EXCEPTION).count() == 0


def test_the_curves_window_moves_in_the_browser_too(page, server_url):
    page.goto(f"{server_url}/positional_encoding?chapter=wavelengths&max_len=1000")
    lines = "(d => d.length + '|' + d[0].x0 + '|' + d[0].y.length)(document.querySelector('.live-chart').data)"
    wait_for_plot(page, f"{lines} === '4|0|100'")
    wait_until_idle(page)
    start = page.get_by_role("slider", name="From position")
    for _ in range(3):
        start.press("ArrowRight")
    wait_for_plot(page, f"{lines} === '4|3|100'")
    page.wait_for_url("**curve_start=3")
    page.get_by_role("slider", name="Positions plotted").press("End")  # 2,000 of 1,000: all of them, from 0
    wait_for_plot(page, f"{lines} === '4|0|1000'")
    page.wait_for_url(lambda url: "curve_span=2000" in url and "curve_start" not in url)
    expect(start).to_have_count(0)
    assert page.locator(EXCEPTION).count() == 0


def test_the_similarity_window_moves_in_the_browser_and_the_offsets_follow(page, server_url):
    page.goto(f"{server_url}/positional_encoding?chapter=similarity")
    square = "(d => [d.y0, d.x0, d.z.length, d.z[0].length].join())(document.querySelector('.live-chart').data[0])"
    wait_for_plot(page, f"{square} === '0,0,100,100'")
    wait_until_idle(page)
    page.get_by_role("slider", name="Positions compared").press("ArrowLeft")
    wait_for_plot(page, f"{square} === '0,0,50,50'")
    for _ in range(2):
        page.get_by_role("slider", name="From position").press("ArrowRight")
    wait_for_plot(page, f"{square} === '2,2,50,50'")
    page.wait_for_url("**sim_start=2")
    # the offset chart, drawn by the rerun: its second reference is now the first position
    wait_for_plot(page, "document.querySelectorAll('.live-chart')[1].data[1].name === 'n = 2'")
    assert page.locator(EXCEPTION).count() == 0


def test_live_charts_take_the_theme_and_go_full_screen_and_back(page, server_url):
    page.emulate_media(color_scheme="dark")  # Streamlit follows the system's theme: a learner's dark mode
    page.goto(f"{server_url}/positional_encoding?chapter=wavelengths")
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
    page.goto(f"{server_url}/positional_encoding")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    assert page.locator('[data-testid="stCode"]').count() == 0  # collapsed code is not in the page
    page.get_by_text("Show the code").first.click()
    page.wait_for_selector('[data-testid="stCode"]')
    assert "def inverse_frequencies" in page.locator('[data-testid="stCode"]').first.inner_text()
    assert page.locator(EXCEPTION).count() == 0


def test_bad_base_shows_a_message_not_a_traceback(page, server_url):
    page.goto(f"{server_url}/positional_encoding")
    page.wait_for_selector(".js-plotly-plot")
    box = page.get_by_role("textbox", name="base", exact=True)
    box.fill("1")
    box.press("Enter")
    page.wait_for_selector('[data-testid="stAlertContentError"]')
    assert "above 1" in page.locator('[data-testid="stAlertContentError"]').inner_text()
    assert page.locator(EXCEPTION).count() == 0
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")  # the table still drawn, with the last valid base


def test_chapters_switch_and_stay_in_the_link(page, server_url):
    page.goto(f"{server_url}/positional_encoding")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    page.get_by_role("radio", name="3. Similarity").click()
    wait_for_plot(page, "document.querySelectorAll('.js-plotly-plot').length === 2")
    wait_until_idle(page)
    assert "chapter=similarity" in page.url
    page.goto(page.url)  # the link opens the same chapter
    page.wait_for_selector('[data-testid="stMain"] h2')
    assert "Similarity depends only on the offset" in page.locator('[data-testid="stMain"] h2').first.inner_text()
    wait_for_plot(page, "document.querySelectorAll('.js-plotly-plot').length === 2")
    assert page.locator(EXCEPTION).count() == 0


def test_downloads_hold_the_window_shown_and_every_dimension(page, server_url):
    page.goto(f"{server_url}/positional_encoding")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")
    wait_until_idle(page)
    with page.expect_download() as npy:
        page.get_by_role("button", name="Download (NPY)").click()
    assert npy.value.suggested_filename == "pe_rows0-99_dims0-127.npy"
    window = np.load(npy.value.path())
    position, i = np.arange(100)[:, None], np.arange(64)[None, :]
    angle = position / 10000 ** (2 * i / 128)
    np.testing.assert_allclose(window[:, 0::2], np.sin(angle), atol=1e-5)
    np.testing.assert_allclose(window[:, 1::2], np.cos(angle), atol=1e-5)
    page.get_by_role("slider", name="Positions shown").press("ArrowLeft")  # the same button, the new window's file
    page.get_by_role("slider", name="First position").press("End")
    page.wait_for_url("**pos_start=50")
    wait_until_idle(page)
    with page.expect_download() as npy:
        page.get_by_role("button", name="Download (NPY)").click()
    assert npy.value.suggested_filename == "pe_rows50-99_dims0-127.npy"
    np.testing.assert_array_equal(np.load(npy.value.path()), window[50:])

    page.goto(f"{server_url}/word_embeddings")
    page.wait_for_selector('[data-testid="stDataFrame"]')
    wait_until_idle(page)
    with page.expect_download() as csv:
        page.get_by_role("button", name="Download (CSV)").first.click()
    frame = pd.read_csv(csv.value.path())
    assert list(frame.columns) == ["word", "index", *(f"v{j}" for j in range(50))]  # the table shows 8 of them
    assert list(frame.word) == ["man", "woman", "king", "queen", "cat", "dog", "mother", "father"]
    with page.expect_download() as csv:
        page.get_by_role("button", name="Download (CSV)").nth(1).click()  # the PCA plot's coordinates
    assert csv.value.suggested_filename == "pca_coordinates.csv"
    coordinates = pd.read_csv(csv.value.path())
    assert list(coordinates.columns) == ["word", "pc1", "pc2"] and list(coordinates.word) == list(frame.word)
    assert page.locator(EXCEPTION).count() == 0


def test_the_cloud_download_holds_every_point_drawn(page, server_url):
    page.goto(f"{server_url}/embedding_space")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    with page.expect_download() as csv:
        page.get_by_role("button", name="Download (CSV)").click()
    frame = pd.read_csv(csv.value.path())
    drawn = page.evaluate("document.querySelector('.js-plotly-plot').data.reduce((n, t) => n + t.hovertext.length, 0)")
    assert csv.value.suggested_filename == f"cloud_pca_{len(frame)}.csv" and len(frame) == drawn == 5010
    assert list(frame.columns) == ["word", "PCA_1", "PCA_2"] and frame.word[0] == "the"
    assert page.locator(EXCEPTION).count() == 0


def test_king_minus_man_plus_woman_is_queen(page, server_url):
    page.goto(f"{server_url}/word_embeddings")
    page.wait_for_selector(".js-plotly-plot")
    for label, word in (("a", "man"), ("b", "woman"), ("c", "king")):
        box = page.get_by_role("textbox", name=label, exact=True)
        box.fill(word)
        box.press("Enter")
        wait_until_idle(page)
    first = page.locator('[data-testid="stTable"]').first.locator("tbody tr").first
    assert first.locator("th").inner_text().strip() == "queen"
    assert page.locator(EXCEPTION).count() == 0


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


def test_typing_a_sentence_shows_every_stage(page, server_url):
    page.goto(f"{server_url}/input_layer")
    page.wait_for_selector(".js-plotly-plot")
    box = page.get_by_label("Sentence (segment A)", exact=True)
    box.fill("The cat sat on the mat")
    box.press("Enter")
    wait_for_plot(
        page,
        "[...document.querySelectorAll('.js-plotly-plot')].some(p => Array.isArray(p.data[0].y) && p.data[0].y.includes('5: mat'))",
    )
    wait_until_idle(page)
    plots = "[...document.querySelectorAll('.js-plotly-plot')]"
    wait_for_plot(page, f"{plots}.every(p => typeof p.layout.title.text === 'string')")  # none mid-redraw
    titles = page.evaluate(f"{plots}.map(p => p.layout.title.text.replace(/<[^>]+>/g, ''))")
    assert titles[:6] == ["token", "scaled", "+ position", "+ segment", "LayerNorm", "dropout"]
    assert page.locator(EXCEPTION).count() == 0


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


def test_searching_queen_highlights_it_with_its_neighbours(page, server_url):
    page.goto(f"{server_url}/embedding_space")
    page.wait_for_selector(".js-plotly-plot")
    box = page.get_by_role("textbox", name="Word", exact=True)
    box.fill("queen")
    box.press("Enter")
    found = "document.querySelector('.js-plotly-plot').data.find(t => t.meta === 'found')"
    wait_for_plot(page, f"{found}.hovertext[0] === 'queen'")
    page.wait_for_selector('[data-testid="stTable"] tbody th')
    wait_until_idle(page)
    wait_for_plot(page, "document.querySelector('.js-plotly-plot').data.some(t => t.meta === 'neighbours')")
    neighbours = page.evaluate(
        "document.querySelector('.js-plotly-plot').data.find(t => t.meta === 'neighbours').hovertext"
    )
    listed = page.locator('[data-testid="stTable"] tbody th').all_inner_texts()
    assert listed[:2] == ["princess", "lady"] and sorted(neighbours) == sorted(listed)
    page.get_by_text("Isolate", exact=True).click()
    wait_for_plot(page, "document.querySelector('.js-plotly-plot').data.length === 2")
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


def test_a_section_slider_keeps_the_link_and_its_share_control_current(page, server_url):
    # the PE page's sliders rerun their section alone (a fragment): the URL and the sidebar's link must follow
    page.goto(f"{server_url}/positional_encoding")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")
    wait_until_idle(page)
    page.get_by_role("slider", name="Positions shown").press("ArrowLeft")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128'")
    page.get_by_role("slider", name="First position").press("ArrowRight")
    wait_for_plot(page, f"{HEATMAP_Y0} === 1")
    wait_until_idle(page)
    assert "pos_span=50" in page.url and "pos_start=1" in page.url
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


def test_sections_that_rerun_alone_keep_the_link_and_back_brings_the_view_back(page, server_url):
    # the input layer's and rotary page's settings rerun their part alone (a fragment); the word page's k a full run
    page.goto(f"{server_url}/word_embeddings")
    neighbours = page.locator('[data-testid="stTable"]').nth(1).locator("tbody tr")  # the analogy's table is first
    neighbours.first.wait_for()
    wait_until_idle(page)
    expect(neighbours).to_have_count(10)
    page.locator('[data-testid="stSlider"] input[aria-label="k"]').press("ArrowRight")
    page.wait_for_url("**/word_embeddings?nn_k=11")
    expect(neighbours).to_have_count(11)
    wait_until_idle(page)
    page.go_back()
    page.wait_for_url("**/word_embeddings")
    expect(neighbours).to_have_count(10)
    wait_until_idle(page)

    page.goto(f"{server_url}/input_layer")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    box = page.get_by_label("Sentence (segment A)", exact=True)
    box.fill("I love you")
    box.press("Enter")
    page.wait_for_url(lambda url: "sentence=I" in url)
    wait_for_plot(page, "document.querySelector('.js-plotly-plot').data[0].y.includes('2: you')")
    wait_until_idle(page)

    page.goto(f"{server_url}/rotary")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    base = page.get_by_role("textbox", name="base", exact=True)
    base.fill("abc")
    base.press("Enter")
    expect(page.locator('[data-testid="stAlertContentError"]')).to_have_count(1)
    page.wait_for_url("**/rotary?base=abc")
    expect(page.get_by_role("heading", name="4. ALiBi", exact=False)).to_be_visible()  # it does not use the base
    base.fill("500000")
    base.press("Enter")
    page.wait_for_url("**/rotary?base=500000")
    expect(page.locator('[data-testid="stAlertContentError"]')).to_have_count(0)
    wait_until_idle(page)
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


def test_back_and_forward_step_through_the_views_of_a_page(page, server_url):
    # every change of a setting adds an address to the history: Back must bring that view back, not stay put
    page.goto(f"{server_url}/positional_encoding")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")
    wait_until_idle(page)
    page.get_by_role("slider", name="Positions shown").press("ArrowLeft")  # in a fragment
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128'")
    wait_until_idle(page)
    box = page.get_by_label("d_model")
    box.fill("64")
    box.press("Enter")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 64'")
    wait_until_idle(page)
    page.go_back()
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128'")
    wait_until_idle(page)
    assert page.get_by_label("d_model").input_value() == "128" and page.url.endswith("?pos_span=50")
    page.go_back()
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")
    wait_until_idle(page)
    assert page.url.endswith("/positional_encoding")
    page.go_forward()
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128'")
    page.locator('[data-testid="stSidebarNav"] a').nth(2).click()  # another page, and back by its link
    page.wait_for_url("**/word_embeddings")
    page.locator('[data-testid="stSidebarNav"] a').nth(1).click()
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '50, 128'")  # the settings were kept, not reset
    wait_until_idle(page)
    assert page.url.endswith("?pos_span=50")
    # Back: the other page, or first the bare URL of the link, if the browser kept it (the page wrote its
    # settings after it): that is not a view of the page's defaults, so it changes nothing
    page.go_back()
    page.wait_for_url(lambda url: url.endswith(("/word_embeddings", "/positional_encoding?pos_span=50")))
    if page.url.endswith("?pos_span=50"):
        wait_until_idle(page)
        assert page.evaluate(HEATMAP_SHAPE) == "50, 128"
        page.go_back()
        page.wait_for_url("**/word_embeddings")
    assert page.locator(EXCEPTION).count() == 0


def test_an_uploaded_vectors_file_is_used_and_a_bad_one_gets_a_message(page, server_url):
    page.goto(f"{server_url}/word_embeddings")
    page.wait_for_selector(".js-plotly-plot")
    page.get_by_role("combobox", name="Vectors").click()
    page.get_by_role("option", name="Upload a file…").click()
    dropzone = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    dropzone.set_input_files(FIXTURES / "tiny_glove.4d.txt")
    expect(page.get_by_text("tiny_glove.4d.txt: 15 words")).to_be_visible()
    dropzone.set_input_files(files=[{"name": "empty.pt", "mimeType": "application/octet-stream", "buffer": b""}])
    expect(page.get_by_text("empty.pt was refused")).to_be_visible()  # an empty .pt raised IndexError once
    assert "Using the bundled GloVe 6B 50d instead" in page.locator('[data-testid="stAlertContentError"]').inner_text()
    assert page.locator(EXCEPTION).count() == 0


def test_an_uploaded_questions_file_is_evaluated_and_a_bad_one_gets_a_message(page, server_url):
    page.goto(f"{server_url}/word_embeddings")
    page.wait_for_selector(".js-plotly-plot")
    page.get_by_text("upload a questions-words file").click()
    dropzone = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    unknown = "zzqq xxqq yyqq wwqq\n"
    for name, text, shown in [
        ("analogies_tiny.txt", (FIXTURES / "analogies_tiny.txt").read_text(), "Accuracy"),
        ("three.txt", ": family\nman woman king\n", "That file is not in questions-words format: line 2"),
        ("unknown.txt", unknown + "man woman king zzqq\n", "All 2 questions were skipped"),  # 'nan%' once
        ("many.txt", unknown * 20_001, "The file has 20,001 questions; the first 20,000 are asked"),
    ]:
        dropzone.set_input_files(files=[{"name": name, "mimeType": "text/plain", "buffer": text.encode()}])
        expect(page.locator('[data-testid="stFileChipName"]')).to_have_text(name)
        wait_until_idle(page)  # the upload's run: a click during it could be undone by it
        page.get_by_role("button", name="Evaluate").click()
        expect(page.get_by_text(shown).first).to_be_visible(timeout=30_000)
        assert page.locator(EXCEPTION).count() == 0, name
    dropzone.set_input_files(files=[{"name": "big.txt", "mimeType": "text/plain", "buffer": b" " * 2_100_000}])
    expect(page.get_by_text("or smaller")).to_be_visible()  # the uploader's own 2 MB cap


def test_in_chinese_the_preset_box_radio_and_chapters_work(page, server_url):
    # AppTest cannot move a select box or radio after ?lang=zh (it looks values up among the translated labels)
    page.goto(f"{server_url}/positional_encoding?lang=zh")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")
    wait_until_idle(page)
    expect(page.get_by_role("slider", name="显示的位置数")).to_be_visible()  # the table window's own sliders
    page.get_by_role("combobox", name="预设").click()
    page.get_by_role("option", name="Illustrated Transformer：512 × 20，先正弦后余弦").click()
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '20, 512'")
    wait_until_idle(page)
    assert "layout=concatenated" in page.url and "d_model=512" in page.url
    page.get_by_text("交错", exact=True).click()  # the layout radio: the preset box goes back to custom
    page.wait_for_url(lambda url: "layout=" not in url)
    wait_until_idle(page)
    expect(page.get_by_role("combobox", name="预设")).to_have_value("自定义")
    page.get_by_role("radio", name="2. 波长").click()  # the chapter control
    page.wait_for_url("**chapter=wavelengths**")
    wait_until_idle(page)
    assert page.locator(".js-plotly-plot").count() == 2 and page.locator(EXCEPTION).count() == 0
    page.get_by_text("English", exact=True).click()  # the same sliders, relabelled
    expect(page.get_by_role("slider", name="Positions plotted")).to_be_visible()
    expect(page.get_by_text("Positions plotted", exact=True)).to_be_visible()
