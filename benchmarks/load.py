"""Many learners at once: N browser sessions move sliders on the PE and word pages of one server for T seconds.

Learners arrive one second apart; the measured period starts once every page has loaded. Half the sessions press arrow keys on the PE page's "Positions shown" slider, half on the word page's "k"
slider (nearest neighbours); each press waits until the page shows the new result and the run finished.
Prints errors (exceptions on a page, timeouts), p50 / p95 rerun latency, the server's memory (RSS) with
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
from pathlib import Path

from playwright.async_api import async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.browser.harness import SERVER_ENV, free_port, launch_chromium, start_server  # noqa: E402

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


async def learner(context, url: str, which: str, start: float, clock: Clock, times: list, errors: list) -> None:
    path, slider, marker = PAGES[which]
    await asyncio.sleep(start)  # learners arrive one after another, not in the same millisecond
    page = await context.new_page()
    page.set_default_timeout(120_000)
    # Charts are built and sent by the server as usual, but not drawn: twenty software-rendered plotly pages
    # would measure this 2-core machine's Chromium, not the server.
    await page.route("**/PlotlyChart.*.js", lambda route: route.abort())
    stage = "loading the page"
    try:
        await page.goto(url + path)
        await page.wait_for_function(
            f"(() => {{ try {{ return ({marker}) !== undefined; }} catch (e) {{ return false; }} }})()"
        )
        until = await clock.loaded()
        keys = ["ArrowLeft", "ArrowRight"]
        i = 0
        while time.monotonic() < until:
            stage = f"press {i + 1}"
            before = await page.evaluate(marker)
            start = time.perf_counter()
            await page.get_by_role("slider", name=slider).press(keys[i % 2])
            await page.wait_for_function(f"({marker}) !== {before!r} && !({RUNNING})", polling=20)
            times.append(time.perf_counter() - start)
            i += 1
            if await page.locator('[data-testid="stException"]').count():
                errors.append(f"{which}: exception on the page")
    except Exception as err:  # a timeout or a crash counts as an error, the others go on
        errors.append(f"{which}, {stage}: {type(err).__name__}: {str(err).splitlines()[0][:120]}")
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


async def run(url: str, sessions: int, seconds: float, pid: int) -> tuple[list, list, float, float]:
    times: list[float] = []
    errors: list[str] = []
    peak = 0.0
    async with async_playwright() as p:
        with tempfile.TemporaryDirectory() as profile:
            context = await launch_chromium(p, profile)
            clock = Clock(sessions, seconds)
            tasks = [
                asyncio.create_task(learner(context, url, "pe" if i % 2 == 0 else "we", i, clock, times, errors))
                for i in range(sessions)
            ]
            await clock.all_loaded.wait()
            cpu = cpu_seconds(pid)
            while not all(task.done() for task in tasks):
                peak = max(peak, rss_mib(pid))
                await asyncio.sleep(0.5)
            cpu = cpu_seconds(pid) - cpu
            await context.close()
    return times, errors, peak, cpu


def report(name: str, times: list[float], errors: list[str], peak: float, cpu: float, seconds: float) -> None:
    q = statistics.quantiles(times, n=20) if len(times) > 1 else [float("nan")] * 19
    print(
        f"{name}: {len(times)} reruns, {len(errors)} errors, p50 {statistics.median(times) * 1000:.0f} ms, "
        f"p95 {q[18] * 1000:.0f} ms, server peak RSS {peak:.0f} MiB, server CPU {cpu:.1f} s "
        f"({cpu / seconds:.0%} of one core; {cpu / max(len(times), 1) * 1000:.0f} ms a rerun)"
    )
    for err in errors[:5]:
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
        times, errors, one, cpu = asyncio.run(run(url, 1, 20, server.pid))
        report("1 session, 20 s", times, errors, one, cpu, 20)
        times, errors, many, cpu = asyncio.run(run(url, args.sessions, args.seconds, server.pid))
        report(f"{args.sessions} sessions, {args.seconds:.0f} s", times, errors, many, cpu, args.seconds)
        print(f"Server memory: {many - one:+.0f} MiB with {args.sessions} sessions against 1 (goal: at most +100 MiB)")
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    main()
