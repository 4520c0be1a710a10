"""serve.py, what the Docker image serves: app.py as `streamlit run app.py` serves it, with Streamlit's static files
gzipped once per process (Streamlit alone sends them uncompressed, and has no option to compress them)."""

import gzip
import urllib.request
from pathlib import Path

import pytest
import streamlit

from labtools.server import ROOT, free_port, start_server

STATIC = Path(streamlit.__file__).parent / "static" / "static"


@pytest.fixture(scope="module")
def url():
    port = free_port()
    server = start_server(port, script="serve.py")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def get(url: str, **headers: str):
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=60) as answer:
        return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()


@pytest.mark.parametrize("pattern", ["js/PlotlyChart.*.js", "js/protobuf.*.js", "css/*.css"])
def test_streamlits_javascript_and_css_come_gzipped_to_a_browser_that_accepts_gzip(url, pattern):
    file = next(STATIC.glob(pattern))
    path = f"{url}/static/{file.relative_to(STATIC)}"
    for _ in range(2):  # compressed the first time, kept for the next
        status, headers, body = get(path, **{"Accept-Encoding": "gzip, deflate"})
        assert status == 200 and headers["content-encoding"] == "gzip" and headers["vary"] == "Accept-Encoding"
        assert gzip.decompress(body) == file.read_bytes() and int(headers["content-length"]) == len(body)
        assert len(body) < 0.4 * file.stat().st_size
        assert headers["cache-control"] == "public, immutable, max-age=31536000"  # Streamlit's, kept
    status, headers, body = get(path)  # no Accept-Encoding: the file as it is
    assert status == 200 and "content-encoding" not in headers and body == file.read_bytes()
    status, headers, body = get(path, **{"Accept-Encoding": "gzip", "Range": "bytes=0-99"})
    assert status == 206 and "content-encoding" not in headers and body == file.read_bytes()[:100]


def test_fonts_pass_through_as_they_are(url):
    font = next(STATIC.glob("media/*.woff2"))  # compressed already
    for _ in range(2):
        status, headers, body = get(f"{url}/static/{font.relative_to(STATIC)}", **{"Accept-Encoding": "gzip"})
        assert status == 200 and "content-encoding" not in headers and body == font.read_bytes()


def test_the_lab_serves_its_pages_under_serve_py(url):
    from loadtest.protocol import Session

    for page in ("", "positional_encoding", "word_embeddings"):
        with Session.open(url, page) as session:
            assert not session.exceptions() and session.page_elements(), page
    assert get(f"{url}/_stcore/health")[0] == 200


def test_the_image_serves_serve_py():
    entrypoint = (ROOT / "scripts" / "docker_entrypoint.sh").read_text()
    assert entrypoint.count("streamlit run serve.py") == 2 and "run app.py" not in entrypoint
    assert "COPY app.py serve.py /app/" in (ROOT / "Dockerfile").read_text()


@pytest.mark.parametrize("below", ["positional_encoding", "positional_encoding/extra", "no_such_page/a/b"])
def test_index_htmls_own_files_asked_from_below_a_page_are_those_files(url, below):
    file = next(STATIC.glob("js/index.*.js"))  # what index.html loads first
    status, headers, body = get(f"{url}/{below}/static/{file.relative_to(STATIC)}")
    assert status == 200 and "javascript" in headers["content-type"] and body == file.read_bytes()
    assert get(f"{url}/{below}/_stcore/health")[0] == 200


def test_the_script_that_serves_the_lab_on_a_laptop_serves_serve_py():
    assert (ROOT / "scripts" / "run.sh").read_text().count("streamlit run serve.py") == 1


def test_an_address_below_a_page_opens_the_lab_and_names_what_it_asked_for(url, page):
    """Before serve.py sent them their files, /positional_encoding/extra drew a blank page (issue 40)."""
    from labtools.browser import EXCEPTION

    page.goto(f"{url}/positional_encoding/extra?pe_d_model=64")
    notice = page.locator('[data-testid="stAlert"]', has_text="positional_encoding/extra")
    notice.wait_for(timeout=90_000)
    assert "does not have" in notice.inner_text() and page.locator(EXCEPTION).count() == 0
