"""The lab as it is served, everywhere: app.py, with Streamlit's static files gzipped and any address below a page
sent to its page.

    python serve.py [--warm-up] [Streamlit's options]   # `streamlit run serve.py [options]`, warmed up first

scripts/run.sh, the image's entry point and every server the tests and benchmarks start (labtools.server) run
`command(...)`, so that what is tested is what is served (tests/deploy/test_serve.py checks the scripts say so).

Streamlit sends its static files (its JavaScript: the chart chunk alone is 4.7 MB) uncompressed on purpose and
has no option to compress them (streamlit/web/server/starlette/starlette_gzip_middleware.py: "Production usually
sits behind a reverse proxy / CDN that compresses"). One container has no proxy, so this adds Streamlit's own
hook for it, st.App's `middleware=`: each file under /static/ is gzipped once per process at level 9 and kept
(they are named by their content's hash and never change), then sent to every browser that accepts gzip. A proxy
in front (deploy/haproxy.cfg) leaves a response that is compressed already as it is. docs/deploy.md, "Bytes a
learner pays"; tests/deploy/test_serve.py checks it.

An address below a page (/positional_encoding/extra, a link cut or pasted wrong) drew a blank page: Streamlit's
index.html names its files relatively (./static/...), which such an address resolves below the page, and Streamlit's
frontend finds the app's base path by asking `<address>/_stcore/health` and then the address one level up, neither
of which is the lab's base there. `BelowAPage` answers such an address with a redirect to its page, its settings
kept (/positional_encoding?pe_d_model=64); an unknown page then opens the overview with a notice
(ui.pages.asked_path). It sends index.html's own files asked from below a page (/positional_encoding/static/..., as
/positional_encoding/ resolves them) to the files themselves, but never `_stcore/`: answering
/positional_encoding/_stcore/health made the frontend take /positional_encoding for the base path, so that every
shared link opened the overview (issue 50; tests/deploy/test_serve.py). `FirstInPage` installs ui/history.js in every
page before Streamlit's own script, so that Back keeps a page's settings from the learner's first click.

A live class's pages ask `/_class/<code>/view` (below server.baseUrlPath, if set) every two seconds whether the leader's view changed (`class_view`,
ui/live_class.js): a small JSON answered beside Streamlit, so that a learner's page reruns only when it did.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import sys
from pathlib import Path
from urllib.parse import quote

import anyio
import streamlit as st
from google.protobuf.message import DecodeError  # type: ignore[import-untyped]
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from streamlit.proto.BackMsg_pb2 import BackMsg

from ui.address import history_script

HERE = Path(__file__).resolve().parent
WARM_UP = "--warm-up"

COMPRESSIBLE = (b"text/", b"application/javascript", b"application/json", b"image/svg+xml")
# What index.html asks for relatively (its static files and icons), asked from below a page:
# /<page>[/<more>]/static/js/x.js -> /static/js/x.js (after server.baseUrlPath, if set). Never _stcore/: the frontend
# takes the first address whose _stcore/health answers for the base path.
BELOW_A_PAGE = re.compile(r"^/[^/]+(?:/[^/]+)*?(?P<own>/static/.*|/favicon\.png|/manifest\.json)$")
# Streamlit's own routes (streamlit/web/server/starlette: _RESERVED_ROUTE_PREFIXES, the app's static files, the
# login routes): an address with one of these among its parts is never a page's (/<page>/_stcore/health is the
# frontend asking whether /<page> is the base path: Streamlit answers 404, as it should).
STREAMLITS = frozenset({"_stcore", "media", "component", "static", "app", "auth", "oauth2callback", "_class"})


def below_base(path: str) -> str | None:
    """`path` after server.baseUrlPath ("/positional_encoding"; "/" for the base itself), None for a path outside it."""
    base = base_path()
    if path == base:
        return "/"
    return path[len(base) :] if path.startswith(base + "/") else None


def base_path() -> str:
    """server.baseUrlPath as a path prefix: "" or "/lab"."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}" if base else ""


class BelowAPage:
    """ASGI middleware: an address below a page is sent to its page, and a request for one of index.html's own
    files from below a page goes to that file."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            base = base_path()
            path: str = scope.get("path", "")
            rest = below_base(path)
            if rest and not rest.startswith(("/static/", "/_stcore/")) and (m := BELOW_A_PAGE.match(rest)):
                scope = {**scope, "path": base + m["own"], "raw_path": (base + m["own"]).encode()}
            elif rest and scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
                parts = [part for part in rest.split("/") if part]
                if len(parts) > 1 and not STREAMLITS.intersection(parts):
                    query = scope.get("query_string", b"").decode("latin-1")
                    await redirect(send, f"{base}/{quote(parts[0], safe='')}" + (f"?{query}" if query else ""))
                    return
        await self.app(scope, receive, send)


async def redirect(send: Send, location: str) -> None:
    """A 302 to `location` (a path on this server), with no body."""
    headers = [(b"location", location.encode("latin-1")), (b"content-length", b"0"), (b"cache-control", b"no-store")]
    await send({"type": "http.response.start", "status": 302, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


class WholeRunAfterReconnect:
    """ASGI middleware: on a websocket that resumes a session (a reconnect), the first rerun the browser asks for is
    the whole page's, not one fragment's.

    A learner whose replica died reconnects to another, which starts a new session for them: it has none of the old
    session's fragments, so the browser's next move inside a fragment (a chapter's number box) asked it to rerun a
    fragment it did not have, and it ran nothing ("The fragment with id ... does not exist anymore" in its log): the
    move never redrew, with no error on the page (issue 50; tests/browser/test_failover.py). The whole run draws the
    page from the widget states the browser sends with it, and registers the fragments for the next moves. A
    reconnect to the same replica (a network blip) pays one whole run for its next move.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket" or not scope.get("path", "").endswith("/_stcore/stream") or not resumes(scope):
            await self.app(scope, receive, send)
            return
        pending = True  # the first rerun is still to come

        async def whole_first_rerun() -> Message:
            nonlocal pending
            message = await receive()
            if pending and message["type"] == "websocket.receive" and message.get("bytes"):
                back = BackMsg()
                try:
                    back.ParseFromString(message["bytes"])
                except DecodeError:
                    return message  # Streamlit refuses it itself
                if back.WhichOneof("type") == "rerun_script":
                    pending = False
                    if back.rerun_script.fragment_id:
                        back.rerun_script.fragment_id = ""
                        message = {**message, "bytes": back.SerializeToString()}
            return message

        await self.app(scope, whole_first_rerun, send)


def resumes(scope: Scope) -> bool:
    """Whether a websocket's handshake names a session to resume: Streamlit's browser side sends
    `Sec-WebSocket-Protocol: streamlit, <xsrf token>, <last session id>` (streamlit/web/server/starlette/
    starlette_websocket.py: _parse_subprotocols)."""
    protocols = dict(scope.get("headers") or []).get(b"sec-websocket-protocol", b"").decode("latin-1")
    entries = [entry.strip() for entry in protocols.split(",")]
    return len(entries) >= 3 and bool(entries[2])


class FirstInPage:
    """ASGI middleware: index.html with ui/history.js installed before Streamlit's own script
    (`ui.address.history_script`). Installed by its component alone it came after the first run had drawn, and a
    learner who left a page before then lost its settings from Back: Streamlit's page switch first writes the old
    page's address without its query as a new entry (tests/browser/test_deep_links.py failed 1 in 10 in CI).
    Streamlit's own gzip comes inside this, so a page's request reaches it without Accept-Encoding and the page is
    gzipped here (once: it is the same page each time). Its ETag gains a suffix: it is not Streamlit's page (which
    Streamlit sends whole each time, with no 304)."""

    SCRIPT = history_script().encode()
    SUFFIX = b"-h" + hashlib.sha256(SCRIPT).hexdigest()[:12].encode()

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.packed: tuple[bytes, bytes] = (b"", b"")  # the last page and its gzip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        rest = below_base(scope.get("path", ""))
        first = rest.strip("/").split("/")[0] if rest is not None else ""
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD") or first in STREAMLITS:
            await self.app(scope, receive, send)
            return
        gzips = b"gzip" in dict(scope["headers"]).get(b"accept-encoding", b"")
        scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k != b"accept-encoding"]}
        start: Message = {}
        body: list[bytes] = []

        async def inject(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                if not self.is_page(start):
                    await send(start)
                return
            if not self.is_page(start):
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            page = b"".join(body).replace(b'<script type="module"', self.SCRIPT + b'<script type="module"', 1)
            kept = [(k, v) for k, v in self.tagged(start["headers"]) if k not in (b"content-length", b"vary")]
            kept.append((b"vary", b"Accept-Encoding"))
            if gzips:
                if self.packed[0] != page:
                    self.packed = (page, gzip.compress(page, 9, mtime=0))
                page = self.packed[1]
                kept.append((b"content-encoding", b"gzip"))
            await send({**start, "headers": [*kept, (b"content-length", str(len(page)).encode())]})
            await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else page})

        await self.app(scope, receive, inject)

    @staticmethod
    def is_page(start: Message) -> bool:
        type_ = dict(start.get("headers") or []).get(b"content-type", b"")
        return start.get("status") == 200 and type_.startswith(b"text/html")

    def tagged(self, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        return [(k, v[:-1] + self.SUFFIX + b'"' if k == b"etag" and v.endswith(b'"') else v) for k, v in headers]


class GzipStatic:
    """ASGI middleware: GET /static/... answered with the file gzipped (computed once, kept) when the browser
    accepts gzip; anything else (another path, a range, a 304, an image or font) passes through as it is."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.kept: dict[str, tuple[list[tuple[bytes, bytes]], bytes] | None] = {}  # path: (headers, body) | None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or []) if scope["type"] == "http" else {}
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or not scope["path"].startswith("/static/")
            or b"gzip" not in headers.get(b"accept-encoding", b"")
            or b"range" in headers
            or self.kept.get(scope["path"], ()) is None  # known not to compress
        ):
            await self.app(scope, receive, send)
            return
        kept = self.kept.get(scope["path"])
        if kept is None:
            start: Message = {}
            body: list[bytes] = []

            async def collect(message: Message) -> None:
                nonlocal start
                if message["type"] == "http.response.start":
                    start = message
                elif message["type"] == "http.response.body":
                    body.append(message.get("body", b""))

            await self.app(scope, receive, collect)
            response = dict(start.get("headers") or [])
            plain = b"".join(body)
            if start.get("status") != 200 or b"content-encoding" in response:
                await send(start)  # a 304, a 404, ...: as it came
                await send({"type": "http.response.body", "body": plain})
                return
            if not response.get(b"content-type", b"").startswith(COMPRESSIBLE):
                self.kept[scope["path"]] = None
                await send(start)
                await send({"type": "http.response.body", "body": plain})
                return
            packed = await anyio.to_thread.run_sync(lambda: gzip.compress(plain, 9, mtime=0))
            names = {b"content-length", b"etag", b"vary", b"accept-ranges"}
            kept = (
                [(k, v) for k, v in start["headers"] if k.lower() not in names]
                + [
                    (b"content-encoding", b"gzip"),
                    (b"content-length", str(len(packed)).encode()),
                    (b"vary", b"Accept-Encoding"),
                ]
                + [(b"etag", response[b"etag"][:-1] + b'-gzip"') for _ in [0] if b"etag" in response],
                packed,
            )
            self.kept[scope["path"]] = kept
        await send({"type": "http.response.start", "status": 200, "headers": kept[0]})
        await send({"type": "http.response.body", "body": kept[1]})


def class_view(request: Request) -> JSONResponse:
    """GET /_class/<code>/view: the class's view version, how many answers are revealed and how many learners
    joined, {"version": n, "revealed": n, "joined": n}, which ui/live_class.js polls so that a page reruns only when
    what it shows changed (a learner's: the view or a reveal; the leader's: also who joined); 404 for no such class,
    503 while the store is down. Never the leader's secret, the link, or any answer. Starlette runs a plain function
    in its thread pool: a Redis call does not hold the server's loop."""
    from core.classroom import ClassGone, StoreDown, process_store

    no_store = {"cache-control": "no-store"}
    code = request.path_params["code"]
    if "/" + request.path_params.get("base", "") != (base_path() or "/"):  # only below the base, as Streamlit's own
        return JSONResponse({"gone": True}, status_code=404, headers=no_store)
    try:
        store = process_store()
        version, revealed, joined = store.poll(code)  # one call (one Lua script on Redis), not three
    except ClassGone:
        return JSONResponse({"gone": True}, status_code=404, headers=no_store)
    except StoreDown:
        return JSONResponse({"down": True}, status_code=503, headers=no_store)
    return JSONResponse({"version": version, "revealed": revealed, "joined": joined}, headers=no_store)


# Streamlit serves its own routes under server.baseUrlPath but an app's routes as they are named, so the poll is
# named both with no base and below one (`class_view` answers only the one that is this server's base path).
ROUTES = [
    Route("/_class/{code}/view", class_view, methods=["GET"]),
    Route("/{base:path}/_class/{code}/view", class_view, methods=["GET"]),
]
app = st.App(
    "app.py",
    routes=ROUTES,
    middleware=[
        Middleware(BelowAPage),
        Middleware(WholeRunAfterReconnect),
        Middleware(FirstInPage),
        Middleware(GzipStatic),
    ],
)


def command(python: str, *options: str, warm_up: bool = False) -> list[str]:
    """The command line that serves the lab with Streamlit's `options`: `python serve.py [--warm-up] [options]`.

    Args:
        python: the interpreter (the venv's, the image's or the tests' own).
        options: Streamlit's options (`--server.port=8501`, ...).
        warm_up: load the tables and compile UMAP in the serving process before its port opens (scripts/warm_up.py).
    """
    return [python, "serve.py", *([WARM_UP] if warm_up else []), *options]


def main(argv: list[str]) -> int:
    """`python serve.py [--warm-up] [options]`: `streamlit run serve.py [options]`, after the warm-up if asked."""
    os.chdir(HERE)
    warm_up = argv[:1] == [WARM_UP]
    run = ["streamlit", "run", "serve.py", *argv[warm_up:]]
    if warm_up:
        sys.path.insert(0, str(HERE))
        from scripts.warm_up import main as warm_up_then

        return warm_up_then(run)
    from streamlit.web import cli

    return cli.main(run[1:], prog_name="streamlit")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
