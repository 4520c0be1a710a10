"""serve.py, how the lab is served everywhere: app.py as `streamlit run app.py` serves it, with Streamlit's static
files gzipped once per process (Streamlit alone sends them uncompressed), an address below a page sent to its page,
and a reconnect's first move run whole."""

import gzip
import shlex
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import streamlit

from labtools.server import ROOT, server_command, serving
from serve import FirstInPage, command, resumes
from ui.address import history_script

STATIC = Path(streamlit.__file__).parent / "static" / "static"


@pytest.fixture(scope="module")
def url():
    with serving() as url:
        yield url


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


@pytest.mark.parametrize("page", ["", "positional_encoding", "no_such_page"])
@pytest.mark.parametrize("encoding", ["gzip, deflate", "identity"])
def test_every_page_installs_history_js_before_streamlits_script(url, page, encoding):
    """A learner's first click is a history entry even before the first run has drawn (serve.FirstInPage)."""
    status, headers, body = get(f"{url}/{page}?pe_d_model=64", **{"Accept-Encoding": encoding})
    html = (gzip.decompress(body) if headers.get("content-encoding") == "gzip" else body).decode()
    assert status == 200 and int(headers["content-length"]) == len(body)
    assert ("gzip" in encoding) == (headers.get("content-encoding") == "gzip")
    ours = html.index(history_script())
    assert ours < html.index('<script type="module" crossorigin src="./static/js/index.')
    assert headers["etag"].endswith(f'{FirstInPage.SUFFIX.decode()}"')


def exec_line(script: str) -> list[str]:
    """The words of a shell script's `exec` line that serves the lab (its last one)."""
    lines = [line.strip() for line in (ROOT / "scripts" / script).read_text().splitlines()]
    return shlex.split([line for line in lines if line.startswith("exec ")][-1].split(" #")[0])[1:]


def test_the_tests_the_laptop_and_the_image_serve_the_lab_with_one_command():
    """scripts/run.sh, the image's entry point and labtools.server.start_server (every browser test, walk and
    benchmark) run serve.command: the lab the tests run is the lab the users run (issue 50)."""
    assert exec_line("run.sh") == command(".venv/bin/python", "$@")
    warm = '$warm_up --server.address=0.0.0.0 --server.port="${STREAMLIT_SERVER_PORT:-8501}" "$@"'
    assert exec_line("docker_entrypoint.sh") == command("python3", *shlex.split(warm.replace('"', "")))
    assert 'warm_up="--warm-up"' in (ROOT / "scripts" / "docker_entrypoint.sh").read_text()
    assert command("python3", warm_up=True)[2] == "--warm-up"
    options = ["--server.port", "8502", "--server.address", "127.0.0.1", "--server.headless", "true"]
    assert server_command(8502) == command(sys.executable, *options)
    assert "COPY app.py serve.py /app/" in (ROOT / "Dockerfile").read_text()


@pytest.mark.parametrize("below", ["positional_encoding", "positional_encoding/extra", "no_such_page/a/b"])
def test_index_htmls_own_files_asked_from_below_a_page_are_those_files(url, below):
    file = next(STATIC.glob("js/index.*.js"))  # what index.html loads first
    status, headers, body = get(f"{url}/{below}/static/{file.relative_to(STATIC)}")
    assert status == 200 and "javascript" in headers["content-type"] and body == file.read_bytes()


@pytest.mark.parametrize("below", ["positional_encoding", "positional_encoding/extra", "word_embeddings/a/b"])
def test_health_below_a_page_is_not_the_labs(url, below):
    """Streamlit's frontend takes the first of `<address>/_stcore/health` and the address one level up that answers
    200 for the lab's base path: serve.py answered it below a page, so /positional_encoding was taken for the base
    and every shared link opened the overview (issue 50)."""
    with pytest.raises(urllib.error.HTTPError) as answer:
        get(f"{url}/{below}/_stcore/health")
    assert answer.value.code == 404


@pytest.mark.parametrize(
    ("below", "page"),
    [
        ("positional_encoding/extra?pe_d_model=64", "/positional_encoding?pe_d_model=64"),
        ("positional_encoding/a/b/", "/positional_encoding"),
        ("no_such_page/x?lang=zh&a=1&a=2", "/no_such_page?lang=zh&a=1&a=2"),
        ("%E4%BD%8D%0D%0ASet-Cookie:%20x=1/y", "/%E4%BD%8D%0D%0ASet-Cookie%3A%20x%3D1"),  # quoted, one header
    ],
)
def test_an_address_below_a_page_is_sent_to_its_page_with_its_settings(url, below, page):
    request = urllib.request.Request(f"{url}/{below}", method="GET")
    opener = urllib.request.build_opener(NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as answer:
        opener.open(request, timeout=60)
    assert answer.value.code == 302 and answer.value.headers["Location"] == page
    assert "set-cookie" not in {k.lower() for k in answer.value.headers}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_a_reconnect_is_known_by_the_session_it_names():
    header = lambda value: {"headers": [(b"sec-websocket-protocol", value)]}  # noqa: E731
    assert resumes(header(b"streamlit, xsrf-token, 9d310985-99b8-4513-b781-6f0b7af31830"))
    assert not resumes(header(b"streamlit, xsrf-token"))
    assert not resumes(header(b"streamlit, , "))
    assert not resumes({"headers": []})


def test_the_class_poll_answers_a_version_and_no_secret_nor_answer(url, monkeypatch):
    """GET /_class/<code>/view (ui/live_class.js polls it): a class's view version and revealed count only, 404 for
    no such class, 503 while the store is down; never sent to a page by BelowAPage."""
    import json

    from starlette.requests import Request

    import serve
    from core.classroom import MemoryStore, StoreDown

    store = MemoryStore()
    monkeypatch.setattr("core.classroom.process_store", lambda: store)
    code, secret = store.start()
    store.join(code, "ann")
    store.answer(code, "ann", "q1", "the answer")
    store.publish(code, secret, "pe", "/positional_encoding?pe_d_model=64")
    store.reveal(code, secret, "q1")

    def ask(code):
        answer = serve.class_view(Request({"type": "http", "method": "GET", "path_params": {"code": code}}))
        return answer.status_code, json.loads(bytes(answer.body)), answer.headers["cache-control"]

    assert ask(code) == (200, {"version": 1, "revealed": 1, "joined": 1}, "no-store")
    assert ask("ZZZZZZ" if code != "ZZZZZZ" else "ZZZZZ2")[:2] == (404, {"gone": True})
    assert ask("../../etc")[:2] == (404, {"gone": True})

    def down():
        raise StoreDown()

    monkeypatch.setattr(store, "poll", lambda code: down())
    assert ask(code)[:2] == (503, {"down": True})
    with pytest.raises(urllib.error.HTTPError) as gone:  # the real server: routed to the poll, not to a page
        get(f"{url}/_class/ZZZZZ2/view")
    assert gone.value.code == 404 and json.loads(gone.value.read()) == {"gone": True}


def test_the_class_poll_is_served_below_the_base_path(tmp_path):
    """With server.baseUrlPath (`--server.baseUrlPath=lab`) Streamlit serves its routes below /lab and
    ui.live_class names the poll /lab/_class/<code>/view: serve.py answers it there, a class's version from the store
    every replica shares, and not at /_class/... nor below another path. One server, one Redis."""
    import json

    from core.classroom import RedisStore
    from labtools.redis_server import redis_server

    with redis_server(tmp_path) as redis, serving({"EMBLAB_CLASS_STORE": redis.url}, base="lab") as url:
        assert url.endswith("/lab")
        store = RedisStore(redis.url)
        code, secret = store.start()
        store.join(code, "ann")
        store.publish(code, secret, "pe", "/positional_encoding?pe_d_model=64")
        status, headers, body = get(f"{url}/_class/{code}/view")
        assert status == 200 and json.loads(body) == {"version": 1, "revealed": 0, "joined": 1}
        assert headers["cache-control"] == "no-store"
        root = url.removesuffix("/lab")
        for wrong in (f"{root}/_class/{code}/view", f"{root}/other/_class/{code}/view", f"{url}/x/_class/{code}/view"):
            with pytest.raises(urllib.error.HTTPError) as gone:
                get(wrong)
            assert gone.value.code == 404 and gone.value.read() != body
