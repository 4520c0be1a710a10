"""A stand-in for one of the lab's replicas, as HAProxy sees one: what tests/deploy/test_capacity.py puts behind
deploy/haproxy.cfg to count learners without starting Streamlit.

It answers what the proxy routes: `/_stcore/health` ("ok", the proxy's check), `/_stcore/stream` (a websocket
that echoes every message, prefixed with the replica's name: a learner's session), `/static/...` (a script), and
any other path (the page). Every answer names the replica in the `X-Fake-Replica` header. A page asked with
`?hold=1` is answered only once `/release` has been asked (a page still being served, for as long as a test wants).

    .venv/bin/python -m tests.deploy.fake_replica --port 8601 --name app1
"""

from __future__ import annotations

import argparse
import asyncio

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect


def make_app(name: str) -> Starlette:
    """The replica's routes; `name` goes into every answer."""
    headers = {"X-Fake-Replica": name}
    released = asyncio.Event()

    async def health(request: Request) -> Response:
        return PlainTextResponse("ok", headers=headers)

    async def static(request: Request) -> Response:
        return Response("console.log('a script');", media_type="text/javascript", headers=headers)

    async def release(request: Request) -> Response:
        released.set()
        return PlainTextResponse("released", headers=headers)

    async def page(request: Request) -> Response:
        if request.query_params.get("hold"):
            await released.wait()
        return HTMLResponse(f"<!doctype html><title>Lab</title><p>{name}</p>", headers=headers)

    async def stream(socket: WebSocket) -> None:
        await socket.accept(subprotocol="streamlit" if "streamlit" in socket.scope.get("subprotocols", []) else None)
        try:
            while True:
                text = await socket.receive_text()
                await socket.send_text(f"{name}:{text}")
        except WebSocketDisconnect:
            pass

    return Starlette(
        routes=[
            Route("/_stcore/health", health),
            WebSocketRoute("/_stcore/stream", stream),
            Route("/static/{path:path}", static),
            Route("/release", release),
            Route("/{path:path}", page),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--name", required=True)
    args = parser.parse_args()
    # websockets: what Streamlit itself requires
    uvicorn.run(make_app(args.name), host="127.0.0.1", port=args.port, log_level="warning", ws="websockets")


if __name__ == "__main__":
    main()
