"""The word page in a real Chromium: the analogy, and uploaded vectors and questions files."""

from playwright.sync_api import expect

from tests.browser.harness import EXCEPTION, wait_until_idle
from tests.fixtures import FIXTURES


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
