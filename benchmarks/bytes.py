"""Bytes on the wire a learner pays per page, through the class setup's proxy (deploy/haproxy.cfg).

    flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/bytes.py [--pages positional_encoding,rotary]

Starts replicas (`streamlit run serve.py`, as the Docker image serves; --script app.py for Streamlit alone) and
HAProxy as labtools/replicas.py does (--haproxy-cfg: another commit's copy), then in Debian's Chromium, for
each page:
- first visit: a fresh profile (empty cache) opens the page;
- after another page: the same browser, its cache warm from the overview, opens the page (a new document: what a
  reload or a shared link costs; a click in the sidebar costs the websocket's share alone).
Each counts every HTTP response's bytes as received (Chrome's `encodedDataLength`: compressed bytes and headers)
and the websocket's frames from the server (their payload, as the browser hands them to the page; a figure's
share is most of them). A page counts as open once its script run is over and no request is pending.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from labtools.browser import launch_chromium, wait_until_idle  # noqa: E402
from labtools.replicas import HAPROXY_CFG, start_replicas  # noqa: E402
from ui.pages import OVERVIEW, PATH  # noqa: E402

PAGES = [lesson.script.removeprefix("lessons/").removesuffix(".py") for lesson in (OVERVIEW, *PATH)]
FIRST_VISIT_GOAL = 2_500_000
FURTHER_PAGE_GOAL = 300_000
QUIET = 3.0


@dataclass
class Wire:
    """What one page visit received: HTTP bytes (as on the wire) and websocket payload bytes."""

    http: int = 0
    websocket: int = 0
    requests: int = 0
    largest: list[tuple[int, str]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.http + self.websocket


class Recorder:
    """Chrome's network events on one page (DevTools protocol), summed into a Wire per visit."""

    def __init__(self, page) -> None:
        self.page = page
        self.urls: dict[str, str] = {}
        self.wire = Wire()
        self.last_event = time.monotonic()
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.requestWillBeSent", self._sent)
        cdp.on("Network.loadingFinished", self._finished)
        cdp.on("Network.webSocketFrameReceived", self._frame)
        self.cdp = cdp

    def _sent(self, event: dict) -> None:
        self.urls[event["requestId"]] = event["request"]["url"]
        self.last_event = time.monotonic()

    def _finished(self, event: dict) -> None:
        self.last_event = time.monotonic()
        size = int(event["encodedDataLength"])
        self.wire.http += size
        self.wire.requests += 1
        self.wire.largest.append((size, self.urls.get(event["requestId"], "?").rsplit("/", 1)[-1][:40]))

    def _frame(self, event: dict) -> None:
        self.last_event = time.monotonic()
        response = event["response"]
        data = response["payloadData"]
        # opcode 2: binary (Streamlit's protobuf messages), which the protocol hands over in base64
        self.wire.websocket += len(data) * 3 // 4 if response["opcode"] == 2 else len(data.encode())

    def visit(self, url: str) -> Wire:
        self.wire = Wire()
        self.page.goto(url)
        wait_until_idle(self.page)
        self.page.wait_for_load_state("networkidle")
        wait_until_idle(self.page)
        # Charts load their code (plotly's chunk) when they are first drawn, after the run: the visit is over
        # once nothing has come or gone on the network for QUIET seconds.
        deadline = time.monotonic() + 120
        while time.monotonic() - self.last_event < QUIET and time.monotonic() < deadline:
            self.page.wait_for_timeout(250)
        return self.wire


def page_url(base: str, name: str) -> str:
    return base + ("/" if name == "overview" else f"/{name}")


def measure(base: str, pages: list[str]) -> dict[str, tuple[Wire, Wire]]:
    results = {}
    with sync_playwright() as p:
        for name in pages:
            with tempfile.TemporaryDirectory() as profile:
                context = launch_chromium(p, profile)
                page = context.pages[0] if context.pages else context.new_page()
                page.set_default_timeout(180_000)
                recorder = Recorder(page)
                first = recorder.visit(page_url(base, name))
                recorder.visit(page_url(base, "overview" if name != "overview" else "rotary"))
                after = recorder.visit(page_url(base, name))
                context.close()
            results[name] = (first, after)
            print(
                f"{name}: first visit {first.total / 1e6:.2f} MB (HTTP {first.http / 1e6:.2f}, websocket "
                f"{first.websocket / 1e6:.2f}); after another page {after.total / 1e6:.2f} MB (HTTP "
                f"{after.http / 1e6:.2f}, websocket {after.websocket / 1e6:.2f}); largest: "
                + ", ".join(f"{n} {s / 1e3:.0f} kB" for s, n in sorted(first.largest, reverse=True)[:3]),
                flush=True,
            )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--haproxy-cfg", type=Path, default=HAPROXY_CFG, help="another proxy configuration (before)")
    parser.add_argument("--script", default="serve.py", help="what the replicas run: serve.py as the image does")
    args = parser.parse_args()
    with start_replicas(args.replicas, cfg=args.haproxy_cfg, script=args.script) as lab:
        results = measure(lab.url, args.pages.split(","))
    print("\n| Page | first visit (MB) | websocket on open (MB) | after another page (MB) |")
    print("|---|---|---|---|")
    for name, (first, after) in results.items():
        print(f"| {name} | {first.total / 1e6:.2f} | {first.websocket / 1e6:.2f} | {after.total / 1e6:.2f} |")
    worst_first = max(first.total for first, _ in results.values())
    worst_after = max(after.total for _, after in results.values())
    print(
        f"largest first visit {worst_first / 1e6:.2f} MB (goal {FIRST_VISIT_GOAL / 1e6} MB), largest further page "
        f"{worst_after / 1e6:.2f} MB (goal {FURTHER_PAGE_GOAL / 1e6} MB)"
    )


if __name__ == "__main__":
    main()
