"""The lab as it is served (scripts/run.sh, the Docker image): app.py, with Streamlit's static files gzipped and
any address below a page answered.

    streamlit run serve.py        # what `streamlit run app.py` serves, its JavaScript compressed

Streamlit sends its static files (its JavaScript: the chart chunk alone is 4.7 MB) uncompressed on purpose and
has no option to compress them (streamlit/web/server/starlette/starlette_gzip_middleware.py: "Production usually
sits behind a reverse proxy / CDN that compresses"). One container has no proxy, so this adds Streamlit's own
hook for it, st.App's `middleware=`: each file under /static/ is gzipped once per process at level 9 and kept
(they are named by their content's hash and never change), then sent to every browser that accepts gzip. A proxy
in front (deploy/haproxy.cfg) leaves a response that is compressed already as it is. docs/deploy.md, "Bytes a
learner pays"; tests/deploy/test_serve.py checks it.

An address below a page (/positional_encoding/extra, a link cut or pasted wrong) drew a blank page: Streamlit's
index.html names its files relatively (./static/...), which such an address resolves below the page
(/positional_encoding/static/...), and the server answers those with index.html, not the file, so the browser
refuses them as scripts and app.py never runs. `BelowAPage` sends those requests to the file itself, so the lab
opens and says the page asked for does not exist (ui.pages.asked_path).
"""

from __future__ import annotations

import gzip
import re

import anyio
import streamlit as st
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COMPRESSIBLE = (b"text/", b"application/javascript", b"application/json", b"image/svg+xml")
# What index.html asks for relatively (its static files, the websocket and health under _stcore/, its icons),
# asked from below a page: /<page>[/<more>]/static/js/x.js -> /static/js/x.js (after server.baseUrlPath, if set)
BELOW_A_PAGE = re.compile(r"^/[^/]+(?:/[^/]+)*?(?P<own>/(?:static|_stcore)/.*|/favicon\.png|/manifest\.json)$")


class BelowAPage:
    """ASGI middleware: a request for one of index.html's own files from below a page goes to that file."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            base = "/" + (st.get_option("server.baseUrlPath") or "").strip("/")
            base = "" if base == "/" else base
            path: str = scope.get("path", "")
            rest = path[len(base) :] if path.startswith(base + "/") else None
            if rest and not rest.startswith(("/static/", "/_stcore/")) and (m := BELOW_A_PAGE.match(rest)):
                scope = {**scope, "path": base + m["own"], "raw_path": (base + m["own"]).encode()}
        await self.app(scope, receive, send)


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


app = st.App("app.py", middleware=[Middleware(BelowAPage), Middleware(GzipStatic)])
