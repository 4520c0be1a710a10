"""Two replicas behind HAProxy with deploy/haproxy.cfg (labtools/replicas.py), in Chromium: each browser
stays on one replica, so uploads (st.file_uploader's PUT) and downloads (/media GETs) reach the process that
holds its session; a stopped replica's learner comes back on the other with the same view; past capacity a new
learner gets the "full" page at once while those already in keep working; with no replica up, the proxy answers
503 with its page. Never skipped: scripts/test.sh installs haproxy."""

import urllib.error
import urllib.request

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

from labtools.browser import EXCEPTION, rerun, wait_for_plot, wait_until_idle
from labtools.moves import download, type_into
from labtools.replicas import REPLICA_HEADER, STICKY_COOKIE, start_proxy, start_replicas
from labtools.server import free_port
from tests.browser import HEATMAP_SHAPE
from tests.fixtures import FIXTURES


@pytest.fixture(scope="module")
def lab():
    with start_replicas(2) as running:
        yield running


def learner_urls(lab) -> list[str]:
    """Two learners in the one browser context: cookies are kept per host, so 127.0.0.1 and localhost are two
    browsers as far as the proxy's cookie goes."""
    return [lab.url, lab.url.replace("127.0.0.1", "localhost")]


def replica_of(page) -> str:
    return next(c["value"] for c in page.context.cookies(page.url) if c["name"] == STICKY_COOKIE)


@pytest.fixture(scope="module")
def learners(lab, browser):
    """One page per learner, each opened on the word page; the proxy put them on different replicas."""
    pages = []
    for url in learner_urls(lab):
        page = browser.new_page()
        page.set_default_timeout(60_000)
        page.goto(f"{url}/word_embeddings")
        page.wait_for_selector(".js-plotly-plot")
        wait_until_idle(page)
        pages.append(page)
    yield pages
    for page in pages:
        page.close()


def test_two_browsers_land_on_two_replicas(learners):
    assert replica_of(learners[0]) != replica_of(learners[1])


@pytest.mark.parametrize("learner", [0, 1])
def test_uploads_reach_the_replica_that_holds_the_session(learners, learner):
    page = learners[learner]
    replica = replica_of(page)
    url = page.url.split("?")[0]
    page.get_by_role("combobox", name="Vectors").click()
    page.get_by_role("option", name="Upload a file…").click()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(FIXTURES / "tiny_glove.4d.txt")
    expect(page.get_by_text("tiny_glove.4d.txt: 15 words")).to_be_visible()

    page.goto(url)  # a new session on the same replica, with the bundled vectors again
    page.wait_for_selector(".js-plotly-plot")
    page.get_by_text("upload a questions-words file").click()
    text = (FIXTURES / "analogies_tiny.txt").read_text()
    dropzone = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    dropzone.set_input_files(files=[{"name": "questions.txt", "mimeType": "text/plain", "buffer": text.encode()}])
    expect(page.locator('[data-testid="stFileChipName"]')).to_have_text("questions.txt")
    wait_until_idle(page)
    page.get_by_role("button", name="Evaluate").click()
    expect(page.get_by_text("Accuracy").first).to_be_visible(timeout=60_000)
    assert page.locator(EXCEPTION).count() == 0
    assert replica_of(page) == replica


@pytest.mark.parametrize("learner", [0, 1])
def test_downloads_reach_the_replica_that_holds_the_session(learners, learner):
    page = learners[learner]
    replica = replica_of(page)
    base = page.url.split("/word_embeddings")[0]
    page.goto(f"{base}/word_embeddings")
    page.wait_for_selector('[data-testid="stDataFrame"]')
    wait_until_idle(page)
    name, path = download(page, "csv_word_vectors")
    frame = pd.read_csv(path)
    assert name == "word_vectors.csv" and list(frame.columns[:3]) == ["word", "index", "v0"] and frame.word[0] == "man"

    page.goto(f"{base}/positional_encoding")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 128'")
    wait_until_idle(page)
    name, path = download(page, "npy_pe_window")
    window = np.load(path)
    assert name == "pe_rows0-99_dims0-127.npy" and window.shape == (100, 128)
    np.testing.assert_allclose(window[:, 0], np.sin(np.arange(100)), atol=1e-5)
    assert page.locator(EXCEPTION).count() == 0
    assert replica_of(page) == replica
    page.goto(f"{base}/word_embeddings")  # where the next test expects it


FULL = "The lab is full"


def test_past_capacity_a_new_learner_is_told_the_lab_is_full_and_those_in_keep_working(lab, browser):
    """A proxy with room for one learner per replica, in front of one of the lab's replicas: the second learner's
    first page is the "full" page (503, both languages) within the queue's bound, while the first moves on; once
    the first leaves, the second gets in."""
    # Two browsers as far as the proxy's cookie goes: cookies are kept per host (not per port), and the other tests'
    # learners hold cookies for 127.0.0.1 and localhost, so these two come by hosts of their own.
    port = free_port()
    bind = ",".join(f"127.0.0.{i}:{port}" for i in (1, 2, 3))
    proxy, _ = start_proxy(
        [f"127.0.0.1:{lab.ports[0]}"], port, env={"EMBLAB_LEARNERS_PER_REPLICA": "1", "EMBLAB_PROXY_BIND": bind}
    )
    url, other = f"http://127.0.0.2:{port}", f"http://127.0.0.3:{port}"
    inside, arrival = browser.new_page(), browser.new_page()
    try:
        inside.set_default_timeout(60_000)
        inside.goto(f"{url}/positional_encoding")
        wait_for_plot(inside, f"{HEATMAP_SHAPE} === '100, 128'")
        wait_until_idle(inside)

        answer = arrival.goto(f"{other}/positional_encoding", timeout=10_000)  # the queue's 5 s, and some
        assert answer.status == 503 and answer.headers["retry-after"] == "60"
        expect(arrival.get_by_role("heading", name=FULL)).to_be_visible()
        expect(arrival.get_by_role("heading", name="实验室已满")).to_be_visible()
        with pytest.raises(urllib.error.HTTPError) as plain:  # a request that is not a browser's page alike
            urllib.request.urlopen(urllib.request.Request(other, headers={"Accept": "text/html"}), timeout=10)
        assert plain.value.code == 503 and FULL in plain.value.read().decode()

        # the learner already in: a move reruns, and a file (not a session) still comes through
        type_into(inside, "d_model", 64)
        wait_for_plot(inside, f"{HEATMAP_SHAPE} === '100, 64'")
        assert inside.locator(EXCEPTION).count() == 0
        assert inside.request.get(f"{url}/_stcore/health").ok

        inside.close()  # the place is free again: the arrival's next try gets in
        for _ in range(30):
            answer = arrival.goto(f"{other}/positional_encoding")
            if answer.status == 200:
                break
            arrival.wait_for_timeout(500)  # the proxy sees the websocket close
        assert answer.status == 200
        wait_for_plot(arrival, f"{HEATMAP_SHAPE} === '100, 128'")
    finally:
        for page in (inside, arrival):
            if not page.is_closed():
                page.close()
        proxy.terminate()
        proxy.wait(timeout=10)


def test_a_stopped_replicas_learner_comes_back_on_the_other_with_the_same_view(lab, learners):
    page, other = learners
    served_by = page.goto(f"{page.url.split('/word_embeddings')[0]}/positional_encoding?d_model=64")
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 64'")
    wait_until_idle(page)
    gone, kept = replica_of(page), replica_of(other)
    lab.stop_replica(int(served_by.headers[REPLICA_HEADER].removeprefix("app")) - 1)
    # the frontend reconnects by itself; a reload does what a learner would do if it did not
    page.reload()
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 64'", timeout=60_000)
    assert page.get_by_label("d_model").input_value() == "64"
    assert replica_of(page) == kept != gone
    assert page.locator(EXCEPTION).count() == 0
    # the other learner's session goes on where it was, on its replica
    box = other.get_by_role("textbox", name="a", exact=True)
    with rerun(other):
        box.fill("king")
        box.press("Enter")
    assert other.locator(EXCEPTION).count() == 0 and replica_of(other) == kept


def test_a_proxy_with_no_replica_up_answers_503_with_its_page(page):
    proxy, url = start_proxy([f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"])
    try:
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(url + "/word_embeddings", timeout=10)
        assert answer.value.code == 503 and FULL in answer.value.read().decode()
        response = page.goto(url)
        assert response.status == 503
        expect(page.get_by_role("heading", name=FULL)).to_be_visible()
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)
