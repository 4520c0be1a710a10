"""Rerun time after a control moves on the attention page at its defaults, against the trivial page, in Chromium.

benchmarks/rerun.py's method and helpers: each page in its own Chromium against its own server (as deployed), the
moves taking turns, one per page, so that the floor and the page are measured under the same load; a control is
found before the clock starts; each time runs from the key press (or click) on a page at rest until the page shows
the move and its script run has finished.

Rows:
- the trivial page (one slider, one line of text; benchmarks/trivial_page.py): the floor;
- the attention page's chapter 5, its "Query position m" slider +1 / -1: the score-against-distance section, a
  fragment, reruns alone and sends one line chart;
- the attention page's chapter 1 (the page's default), its seed box +1 / -1 (the step buttons): every scheme's result
  is computed again and the page sends the chapter's two figures (logits and softmax, six panels each).
The page draws its figures with ui.live_chart.chart (one plotly <div> kept across reruns, Plotly.react), not
st.plotly_chart, which remounts its element for every new figure.
Run: flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/attention_rerun.py [--moves 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.rerun import RUNNING, SETTLE_MS, TEXT, Subject, open_window, report  # noqa: E402
from labtools.server import free_port, start_server  # noqa: E402

# The distance plot's title names the query position; the first heatmap's first panel's values change with the seed
DISTANCE = (
    "(() => { try { return document.querySelector('.js-plotly-plot').layout.title.text; }"
    " catch (e) { return 'redrawing'; } })()"
)
LOGITS = (
    "(() => { try { const z = document.querySelectorAll('.js-plotly-plot')[0].data[0].z;"
    " return JSON.stringify(z.bdata || z).slice(0, 120); } catch (e) { return 'redrawing'; } })()"
)


class StepSubject(Subject):
    """A number box moved by its + and - buttons (a number box has no slider role)."""

    def move(self, i: int) -> None:
        page = self.page
        page.wait_for_timeout(SETTLE_MS)
        box = page.get_by_label(self.slider, exact=True).locator("xpath=ancestor::div[@data-testid='stNumberInput']")
        button = box.get_by_test_id("stNumberInputStepUp" if i % 2 == 0 else "stNumberInputStepDown").element_handle()
        before = page.evaluate(self.marker)
        start = time.perf_counter()
        button.click()
        page.wait_for_function(f"({self.marker}) !== {before!r} && !({RUNNING})", polling=5)
        done = time.perf_counter() - start
        self.shown.append(done)
        self.done.append(done)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30)
    args = parser.parse_args()
    port_trivial, port_app = free_port(), free_port()
    servers = [start_server(port_trivial, script="benchmarks/trivial_page.py"), start_server(port_app)]
    trivial, app = f"http://127.0.0.1:{port_trivial}", f"http://127.0.0.1:{port_app}/attention"
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as profiles:
            where = Path(profiles)
            subjects = [
                Subject("trivial page (floor)", open_window(p, where, trivial, TEXT), "value", ["ArrowRight"], TEXT),
                Subject(
                    "attention, 'Query position m' 8 <-> 9 (fragment)",
                    open_window(p, where, f"{app}?at_chapter=distance", DISTANCE),
                    "Query position m",
                    ["ArrowRight", "ArrowLeft"],
                    DISTANCE,
                ),
                StepSubject(
                    "attention, seed 0 <-> 1 (every figure)", open_window(p, where, app, LOGITS), "Seed", [], LOGITS
                ),
            ]
            for i in range(args.moves):
                for subject in subjects:
                    subject.move(i)
            floor = statistics.median(subjects[0].done)
            for subject in subjects:
                report(subject, None if subject is subjects[0] else floor)
    finally:
        for server in servers:
            server.terminate()
    print(
        f"{args.moves} moves per row, taking turns, each page in its own Chromium, {SETTLE_MS} ms at rest before each."
    )
    print("Goal (issue 29): the attention page's rerun after a control moves, at its defaults, at most 3x the floor.")


if __name__ == "__main__":
    main()
