"""The word page in a real Chromium: the analogy, the link, a zero axis, and uploaded vectors and questions files."""

from playwright.sync_api import expect

from labtools.browser import EXCEPTION, assert_layout, check_wider_screen, rerun, wait_until_idle
from labtools.moves import click_button, drag_slider, pick, toggle, type_into
from tests.browser import walks
from tests.fixtures import FIXTURES


@walks
def test_every_section_keeps_its_layout_after_every_move(page, server_url):
    """A learner's walk through the page: after each move the PCA and the axes' plots keep their height, cover
    nothing and have their tick labels (labtools.browser.assert_layout)."""
    page.goto(f"{server_url}/word_embeddings")
    page.wait_for_selector(".js-plotly-plot")
    assert_layout(page)
    type_into(page, "Words", "cat, dog, paris, france, berlin, germany, king, queen")
    assert_layout(page)
    for box, word in (("a", "france"), ("b", "paris"), ("c", "germany")):
        type_into(page, box, word)
    assert_layout(page)
    pick(page, "3D")
    assert_layout(page)
    pick(page, "2D")
    toggle(page, "Fit the axes on the most frequent words")
    drag_slider(page, "Most frequent words", 1)
    assert_layout(page)
    type_into(page, "Word", "paris")
    drag_slider(page, "k", 1)
    pick(page, "euclidean")
    assert_layout(page)
    type_into(page, "x to", "queen")
    type_into(page, "y from", "paris")
    assert_layout(page)
    drag_slider(page, "Only the most frequent words", 0)
    click_button(page, "Evaluate")
    page.wait_for_selector('[data-testid="stMetric"]', timeout=60_000)
    assert_layout(page)
    check_wider_screen(page)  # the evaluation's results, wide and narrowed (presenter mode, a tablet)
    assert page.locator(EXCEPTION).count() == 0


def test_king_minus_man_plus_woman_is_queen(page, server_url):
    page.goto(f"{server_url}/word_embeddings")
    page.wait_for_selector(".js-plotly-plot")
    for label, word in (("a", "man"), ("b", "woman"), ("c", "king")):
        box = page.get_by_role("textbox", name=label, exact=True)
        type_into(page, box, word, runs=box.input_value() != word)  # a box holding the word already asks for no run
    first = page.locator('[data-testid="stTable"]').first.locator("tbody tr").first
    assert first.locator("th").inner_text().strip() == "queen"
    assert page.locator(EXCEPTION).count() == 0


def test_an_old_form_link_opens_the_same_view_and_a_move_goes_into_the_link(page, server_url):
    page.goto(f"{server_url}/word_embeddings?nn_k=7")
    page.wait_for_url("**/word_embeddings?we_nn_k=7")  # renamed to the widget's key
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    neighbours = page.locator('[data-testid="stTable"]').nth(1).locator("tbody tr")  # the analogy's table is first
    expect(neighbours).to_have_count(7)
    wait_until_idle(page)
    assert page.locator('[data-testid="stAlert"]').count() == 0  # nothing of the link was ignored
    page.locator('[data-testid="stSlider"] input[aria-label="k"]').press("ArrowRight")
    page.wait_for_url("**/word_embeddings?we_nn_k=8")
    expect(neighbours).to_have_count(8)
    wait_until_idle(page)
    assert page.locator(EXCEPTION).count() == 0


def test_an_axis_from_a_word_to_itself_says_which_box_to_change(page, server_url):
    page.goto(f"{server_url}/word_embeddings?we_x_to=Man")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    expect(page.get_by_text("The x axis goes from man to Man: one word, man")).to_be_visible()
    expect(page.locator(".js-plotly-plot")).to_have_count(1)  # the PCA; no flat plot of the axes
    box = page.get_by_role("textbox", name="x to", exact=True)
    box.fill("woman")
    box.press("Enter")
    expect(page.locator(".js-plotly-plot")).to_have_count(2)
    expect(page.get_by_text("length 0")).to_have_count(0)
    assert page.locator(EXCEPTION).count() == 0


def test_an_uploaded_vectors_file_is_used_and_a_bad_one_gets_a_message(page, server_url):
    page.goto(f"{server_url}/word_embeddings")
    page.wait_for_selector(".js-plotly-plot")
    page.get_by_role("combobox", name="Vectors").click()
    page.get_by_role("option", name="Upload a file…").click()
    dropzone = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    with rerun(page):  # each upload's run
        dropzone.set_input_files(FIXTURES / "tiny_glove.4d.txt")
    expect(page.get_by_text("tiny_glove.4d.txt: 15 words")).to_be_visible()
    with rerun(page):
        dropzone.set_input_files(files=[{"name": "empty.pt", "mimeType": "application/octet-stream", "buffer": b""}])
    expect(page.get_by_text("empty.pt was refused")).to_be_visible()  # an empty .pt raised IndexError once
    assert (
        "Still using the file uploaded before, tiny_glove.4d.txt"
        in page.locator('[data-testid="stAlertContentError"]').inner_text()
    )  # the page keeps the vectors it had
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
        with rerun(page):  # the upload's run: a click during it could be undone by it
            dropzone.set_input_files(files=[{"name": name, "mimeType": "text/plain", "buffer": text.encode()}])
        expect(page.locator('[data-testid="stFileChipName"]')).to_have_text(name)
        page.get_by_role("button", name="Evaluate").click()
        expect(page.get_by_text(shown).first).to_be_visible(timeout=30_000)
        assert page.locator(EXCEPTION).count() == 0, name
    dropzone.set_input_files(files=[{"name": "big.txt", "mimeType": "text/plain", "buffer": b" " * 2_100_000}])
    expect(page.get_by_text("or smaller")).to_be_visible()  # the uploader's own 2 MB cap
