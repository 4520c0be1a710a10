"""Many learners at once: N browser sessions move sliders on the PE and word pages of one server for T seconds.

Learners arrive one second apart; the measured period starts once every page has loaded. Half the sessions press arrow keys on the PE page's "Positions shown" slider, half on the word page's "k"
slider (nearest neighbours); each press waits until the page shows the new result and the run finished.
Prints errors (exceptions on a page, timeouts: 120 s for a press, 300 s for a page load), p50 / p95 rerun
latency, how long the pages took to load, the server's memory (RSS) with
one session and at the peak with N sessions, and the CPU time the server spent. On a 2-core machine the N
Chromium pages share the cores with the server, so the latencies are an upper bound; the server's CPU
share says how much of it is the server. One Chromium, one context per session (async Playwright); the plotly bundle is not loaded, so the browser
measures the server's reruns and the messages they send, not its own chart drawing.
Run: .venv/bin/python benchmarks/load.py [--sessions 20] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.browser.harness import SERVER_ENV, free_port, launch_chromium, start_server  # noqa: E402

# Twenty pages loading at once in one 2-core machine's Chromium take minutes of its CPU (each renderer parses
# Streamlit's scripts); the server meanwhile idles (about 13% of a core). A load is an error only past this.
LOAD_TIMEOUT_MS = 300_000
RUNNING = "document.querySelector('[data-testid=\"stApp\"]').dataset.testScriptState === 'running'"
CAPTIONS = "[...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')].map(e => e.innerText)"
PAGES = {
    "pe": ("/positional_encoding", "Positions shown", f"{CAPTIONS}.find(c => c.startsWith('Positions '))"),
    "we": (
        "/word_embeddings",
        "k",
        "document.querySelectorAll('[data-testid=\"stTable\"]')[1].querySelectorAll('tbody tr').length",
    ),
}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@dataclass
class Results:
    times: list[float] = field(default_factory=list)  # seconds from a key press to the page showing its result
    loads: list[float] = field(default_factory=list)  # seconds from opening the page to its first result
    errors: list[str] = field(default_factory=list)


async def learner(context, url: str, which: str, start: float, clock: Clock, out: Results) -> None:
    path, slider, marker = PAGES[which]
    await asyncio.sleep(start)  # learners arrive one after another, not in the same millisecond
    page = await context.new_page()
    page.set_default_timeout(120_000)  # for a press; a page load may take LOAD_TIMEOUT_MS
    # Charts are built and sent by the server as usual, but not drawn: twenty software-rendered plotly pages
    # would measure this 2-core machine's Chromium, not the server.
    await page.route("**/PlotlyChart.*.js", lambda route: route.abort())
    stage = "loading the page"
    try:
        opened = time.perf_counter()
        await page.goto(url + path, timeout=LOAD_TIMEOUT_MS)
        await page.wait_for_function(
            f"(() => {{ try {{ return ({marker}) !== undefined; }} catch (e) {{ return false; }} }})()",
            timeout=LOAD_TIMEOUT_MS,
        )
        out.loads.append(time.perf_counter() - opened)
        until = await clock.loaded()
        keys = ["ArrowLeft", "ArrowRight"]
        i = 0
        while time.monotonic() < until:
            stage = f"press {i + 1}"
            before = await page.evaluate(marker)
            start = time.perf_counter()
            await page.get_by_role("slider", name=slider).press(keys[i % 2])
            await page.wait_for_function(f"({marker}) !== {before!r} && !({RUNNING})", polling=20)
            out.times.append(time.perf_counter() - start)
            i += 1
            if await page.locator('[data-testid="stException"]').count():
                out.errors.append(f"{which}: exception on the page")
    except Exception as err:  # a timeout or a crash counts as an error, the others go on
        out.errors.append(f"{which}, {stage}: {type(err).__name__}: {str(err).splitlines()[0][:120]}")
        clock.gone()
    finally:
        await page.close()


class Clock:
    """The measured period starts when every learner's page has loaded and lasts `seconds`."""

    def __init__(self, sessions: int, seconds: float) -> None:
        self.waiting, self.seconds = sessions, seconds
        self.all_loaded = asyncio.Event()
        self.until = 0.0

    def gone(self) -> None:
        self.waiting -= 1
        if self.waiting <= 0 and not self.all_loaded.is_set():
            self.until = time.monotonic() + self.seconds
            self.all_loaded.set()

    async def loaded(self) -> float:
        self.gone()
        await self.all_loaded.wait()
        return self.until


async def run(url: str, sessions: int, seconds: float, pid: int) -> tuple[Results, float, float]:
    out = Results()
    peak = 0.0
    async with async_playwright() as p:
        with tempfile.TemporaryDirectory() as profile:
            context = await launch_chromium(p, profile)
            clock = Clock(sessions, seconds)
            tasks = [
                asyncio.create_task(learner(context, url, "pe" if i % 2 == 0 else "we", i, clock, out))
                for i in range(sessions)
            ]
            await clock.all_loaded.wait()
            cpu = cpu_seconds(pid)
            while not all(task.done() for task in tasks):
                peak = max(peak, rss_mib(pid))
                await asyncio.sleep(0.5)
            cpu = cpu_seconds(pid) - cpu
            await context.close()
    return out, peak, cpu


def report(name: str, out: Results, peak: float, cpu: float, seconds: float) -> None:
    q = statistics.quantiles(out.times, n=20) if len(out.times) > 1 else [float("nan")] * 19
    print(
        f"{name}: {len(out.times)} reruns, {len(out.errors)} errors, p50 {statistics.median(out.times) * 1000:.0f} ms, "
        f"p95 {q[18] * 1000:.0f} ms, server peak RSS {peak:.0f} MiB, server CPU {cpu:.1f} s "
        f"({cpu / seconds:.0%} of one core; {cpu / max(len(out.times), 1) * 1000:.0f} ms a rerun)"
    )
    if out.loads:
        print(f"    page loads: median {statistics.median(out.loads):.1f} s, slowest {max(out.loads):.1f} s")
    for err in out.errors[:5]:
        print("   ", err)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    port = free_port()
    server = start_server(port)
    print(f"server started as deployed (scripts/run.sh, Dockerfile): {SERVER_ENV}")
    url = f"http://127.0.0.1:{port}"
    try:
        asyncio.run(run(url, 2, 10, server.pid))  # warm-up: GloVe loaded, caches filled, as by a first visitor
        out, one, cpu = asyncio.run(run(url, 1, 20, server.pid))
        report("1 session, 20 s", out, one, cpu, 20)
        out, many, cpu = asyncio.run(run(url, args.sessions, args.seconds, server.pid))
        report(f"{args.sessions} sessions, {args.seconds:.0f} s", out, many, cpu, args.seconds)
        print(f"Server memory: {many - one:+.0f} MiB with {args.sessions} sessions against 1 (goal: at most +100 MiB)")
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    main()
