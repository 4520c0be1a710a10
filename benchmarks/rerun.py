"""Rerun time after a slider move, in Chromium against the real server: the PE page vs a trivial page.

Each sample: from a page at rest, press an arrow key on a slider (found before the clock starts), wait until the
page shows the new result (the chart's data or the text changed) and the script run has finished. The trivial
page (one slider, one line of text, benchmarks/trivial_page.py) is the floor: the round trip through Streamlit
that no page can avoid. A page with one slider and the PE page's default heatmap alone
(benchmarks/heatmap_page.py) shows what one chart costs, drawn with st.plotly_chart and with ui.live_chart.

Every page is open in its own Chromium and the moves take turns, one per page, so that the floor and the pages are
measured under the same load: on a 2-core machine the speed drifts by a third from one minute to the next, and
measured one after the other the ratio went from 2.1x to 3.7x between two runs. Earlier versions also timed
moves back to back and looked the slider up inside the clock: Playwright's own ~10 ms on every page, which made
the PE page's ratio look smaller (a median of 3.1x where this script measures 3.1-3.4x).

What the time is made of (profiled in Chromium, software rendering on 2 cores): the browser's main thread is busy
for nearly all of it. Streamlit 1.67 gives a plotly chart an id hashed from its figure, so st.plotly_chart
remounts on every change of data and plotly draws the chart twice; ui.live_chart draws it once, in place (about
20 ms). After a fragment run React re-renders every element on the page, three times (the run's start, its
elements, its end), so the PE page shows one chapter at a time; its sliders sit in fragments, so only their
section reruns on the server. Each move also writes the settings into the URL, so that a link shows the view.
The servers run as deployed (harness.SERVER_ENV), with one CPU thread per torch op: with one per core, an
uncached move took 6-7% longer, as the window's sin and cos waited for a second thread that Chromium was using.
Run: .venv/bin/python benchmarks/rerun.py [--moves 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.browser.harness import free_port, launch_chromium, start_server, wait_until_idle  # noqa: E402

HEATMAP = "(() => { try { const d = document.querySelector('.js-plotly-plot').data[0]; return d.y0 + '|' + d.z.shape; } catch (e) { return 'redrawing'; } })()"
TEXT = "document.querySelector('[data-testid=\"stMarkdown\"]').innerText"
RUNNING = "document.querySelector('[data-testid=\"stApp\"]').dataset.testScriptState === 'running'"


SETTLE_MS = 150  # before each move: the last move's trailing work (paint, GC) is not counted in the next


@dataclass
class Subject:
    """A slider on a page, the page text that shows a move took effect, and the times measured."""

    name: str
    page: Page
    slider: str
    keys: list[str]
    marker: str
    times: list[float] = field(default_factory=list)

    def move(self, i: int) -> None:
        self.times.append(timed_move(self.page, self.slider, self.keys[i % len(self.keys)], self.marker))


def timed_move(page: Page, slider: str, key: str, marker: str) -> float:
    """Seconds from a key press on `slider`, on a page at rest, until `marker` changed and the run finished."""
    page.wait_for_timeout(SETTLE_MS)
    handle = page.get_by_role("slider", name=slider).element_handle()
    before = page.evaluate(marker)
    start = time.perf_counter()
    handle.press(key)
    page.wait_for_function(f"({marker}) !== {before!r} && !({RUNNING})", polling=5)
    return time.perf_counter() - start


def open_window(playwright, profiles: Path, url: str, marker: str) -> Page:
    """The page at `url` in a Chromium of its own, once it shows `marker`: a page in a background tab gets fewer
    frames, and one brought to the front repaints in full."""
    page = launch_chromium(playwright, tempfile.mkdtemp(dir=profiles)).pages[0]
    page.set_default_timeout(60_000)
    page.goto(url)
    page.wait_for_function(
        f"(() => {{ try {{ return ({marker}) !== 'redrawing'; }} catch (e) {{ return false; }} }})()"
    )
    wait_until_idle(page)
    return page


def set_number(page, label: str, value: int) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    wait_until_idle(page)


def report(name: str, times: list[float], floor: float | None = None) -> None:
    med = statistics.median(times)
    ratio = f", {med / floor:.1f}x the floor" if floor else ""
    print(f"{name:<64} median {med * 1000:6.0f} ms  p90 {sorted(times)[int(0.9 * len(times))] * 1000:6.0f} ms{ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30, help="per row, at most 50 (the uncached row's window)")
    args = parser.parse_args()
    moves = min(args.moves, 50)
    port_trivial, port_heatmap, port_app = free_port(), free_port(), free_port()
    servers = [
        start_server(port_trivial, script="benchmarks/trivial_page.py"),
        start_server(port_heatmap, script="benchmarks/heatmap_page.py"),
        start_server(port_app),
    ]
    heatmap, app = f"http://127.0.0.1:{port_heatmap}", f"http://127.0.0.1:{port_app}/positional_encoding"
    rows = [  # name, URL, slider, keys, what shows the move
        ("trivial page (floor)", f"http://127.0.0.1:{port_trivial}", "value", ["ArrowRight"], TEXT),
        (
            "one-heatmap page (the PE page's heatmap alone), st.plotly_chart",
            f"{heatmap}/?chart=plotly_chart",
            "First position",
            ["ArrowRight"],
            HEATMAP,
        ),
        (
            "one-heatmap page (the PE page's heatmap alone), ui.live_chart",
            heatmap,
            "First position",
            ["ArrowRight"],
            HEATMAP,
        ),
        # 100 <-> 50 positions: the data cache is warm after two moves
        (
            "PE page, defaults, 'Positions shown' 100 <-> 50",
            app,
            "Positions shown",
            ["ArrowLeft", "ArrowRight"],
            HEATMAP,
        ),
        # +1 each move, 50 positions shown of 100: a window not yet cached
        (
            "PE page, defaults, 'First position' +1 (nothing cached)",
            f"{app}?pos_span=50",
            "First position",
            ["ArrowRight"],
            HEATMAP,
        ),
    ]
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as profiles:
            subjects = [
                Subject(name, open_window(p, Path(profiles), url, marker), slider, keys, marker)
                for name, url, slider, keys, marker in rows
            ]
            for i in range(moves):
                for subject in subjects:
                    subject.move(i)
            floor = statistics.median(subjects[0].times)
            for subject in subjects:
                report(subject.name, subject.times, None if subject is subjects[0] else floor)

            page = subjects[-1].page
            set_number(page, "max_len (positions)", 100_000)
            set_number(page, "d_model", 4096)
            for name, widest in (("", False), (", widest windows", True)):
                if widest:
                    for slider in ("Positions shown", "Dimensions shown"):
                        page.get_by_role("slider", name=slider).press("End")
                        wait_until_idle(page)
                largest = Subject(
                    f"PE page, 100,000 x 4,096{name}, 'First position' +1",
                    page,
                    "First position",
                    ["ArrowRight"],
                    HEATMAP,
                )
                for i in range(moves):
                    largest.move(i)
                report(largest.name, largest.times)
    finally:
        for server in servers:
            server.terminate()
    print(
        f"The first {len(rows)} rows' moves took turns, each page in its own Chromium, {SETTLE_MS} ms at rest "
        "before each move."
    )
    print("Goals: defaults at most 3x the floor; the largest settings at most 1 s.")


if __name__ == "__main__":
    main()
