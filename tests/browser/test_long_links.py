"""Every address the lab writes can be opened (issue 55, item 6): a text too long for an address is left out of it
(ui.address.keep_openable), "Share this view" says so and offers the view's settings as a file, and that file opens the
same view on a fresh page (ui.share_link)."""

from urllib.parse import urlsplit

from playwright.sync_api import expect

from labtools.browser import EXCEPTION, wait_until_idle
from labtools.moves import download, drag_slider, type_into
from ui.address import LINK_MOST

SENTENCE = "Sentence (segment A)"  # il.sentence


def test_a_text_too_long_for_an_address_is_left_out_and_the_view_travels_as_a_file(page, server_url):
    text = " ".join(f"w{i}" for i in range(3_000))  # 16,889 characters: a link with it would not open everywhere
    page.goto(f"{server_url}/input_layer?il_d_model=8")
    wait_until_idle(page, 120_000)
    type_into(page, SENTENCE, text)
    wait_until_idle(page)
    assert len(page.url) <= LINK_MOST and "il_sentence" not in urlsplit(page.url).query, len(page.url)
    assert "il_d_model=8" in page.url  # the rest of the view is in it
    page.get_by_text("Share this view").click()
    expect(page.get_by_text("too long for a link", exact=False)).to_be_visible(timeout=30_000)
    name, path = download(page, "_share_download")
    assert name == "il_view.json"

    page.goto(f"{server_url}/input_layer")  # another learner, given the file
    wait_until_idle(page, 120_000)
    page.get_by_text("Share this view").click()
    held = {"name": name, "mimeType": "application/json", "buffer": path.read_bytes()}  # saved under its name
    page.locator('.st-key-_share_load [data-testid="stFileUploaderDropzoneInput"]').set_input_files(files=[held])
    expect(page.get_by_label(SENTENCE, exact=True).first).to_have_value(text, timeout=60_000)
    assert page.locator(EXCEPTION).count() == 0


def test_back_to_a_view_whose_address_left_a_text_out_brings_the_text_back(page, server_url):
    """ui/history.js keeps a text it left out of an entry's address in the entry: Back to it restores the box's text,
    not its default (issue 55)."""
    text = " ".join(f"w{i}" for i in range(3_000))
    page.goto(f"{server_url}/input_layer?il_mode=random&il_d_model=8")
    wait_until_idle(page, 120_000)
    type_into(page, SENTENCE, text)
    wait_until_idle(page)
    assert "il_sentence" not in urlsplit(page.url).query
    drag_slider(page, "d_model", 1)  # a new entry, its address without the text too
    page.wait_for_url(lambda url: "il_d_model=8" not in url)
    wait_until_idle(page)
    page.go_back()
    page.wait_for_url(lambda url: "il_d_model=8" in url)
    wait_until_idle(page)
    expect(page.get_by_label(SENTENCE, exact=True).first).to_have_value(text, timeout=60_000)
    assert len(page.url) <= LINK_MOST and "il_sentence" not in urlsplit(page.url).query  # out of the address again
    assert page.locator(EXCEPTION).count() == 0
