"""Start the real server and Debian's Chromium: shared by the browser tests and the benchmarks."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("EMBLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# What scripts/run.sh and the Dockerfile set for the server, so tests and benchmarks run what is deployed.
SERVER_ENV = {"MALLOC_ARENA_MAX": "2", "OMP_NUM_THREADS": "1"}


def start_server(port: int, env: dict | None = None, script: str = "app.py") -> subprocess.Popen:
    """`streamlit run <script>` on 127.0.0.1:port with SERVER_ENV; returns once /_stcore/health answers."""
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env={**os.environ, **SERVER_ENV, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("the streamlit server did not answer /_stcore/health within 60 s")


def launch_chromium(playwright, profile_dir: str, **kwargs):
    """A persistent Chromium context on a fresh profile, with the flags this machine needs."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium (the README's test command does).")
    return playwright.chromium.launch_persistent_context(
        profile_dir,
        executable_path=CHROMIUM,
        args=CHROMIUM_ARGS,
        headless=True,
        viewport={"width": 1400, "height": 1000},
        **kwargs,
    )


EXCEPTION = '[data-testid="stException"]'  # a traceback drawn on the page
# the PE table's window: the first chart's z as plotly decoded it (the figure carries it in base64)
HEATMAP_SHAPE = "(z => z.length + ', ' + z[0].length)(document.querySelector('.js-plotly-plot')._fullData[0].z)"
HEATMAP_Y0 = "document.querySelector('.js-plotly-plot').data[0].y0"


def wait_until_idle(page) -> None:
    """Wait for the script run to finish."""
    page.wait_for_timeout(200)
    page.wait_for_function('!document.querySelector(\'[data-testid="stApp"][data-test-script-state="running"]\')')


def wait_for_plot(page, predicate: str, **kwargs) -> None:
    """Wait until a JavaScript predicate on the page's plots holds.

    A rerun can replace a plot's element, and plotly attaches `data` after the element exists:
    in between the predicate may throw, which counts as "not yet" rather than failing the wait.
    """
    page.wait_for_function(f"(() => {{ try {{ return {predicate}; }} catch (e) {{ return false; }} }})()", **kwargs)


@contextlib.contextmanager
def shared_link(browser, url: str):
    """A page of its own opened at `url`, as a learner opens a link another one shared; closed afterwards."""
    other = browser.new_page()
    other.set_default_timeout(60_000)
    try:
        other.goto(url)
        yield other
    finally:
        other.close()
