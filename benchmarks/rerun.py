"""Rerun time after a slider move, in Chromium against the real server: the PE page vs a trivial page.

Each sample: from a page at rest, press an arrow key on a slider (found before the clock starts), and time two
things. "shown": until the page shows the move (the chart's data or the text changed). "run done": until the
script run after the move has finished, and for the PE table until it has written the caption that names the
window, and for the PE curves and similarity until the link is written. For a page that must rerun to show a
move, the two are one time. The PE page's windows (table, curves, similarity) move in the browser
(lessons.positional_encoding.tables.place, drawn by ui.live_chart.draw): the chart is redrawn from the block of the
table the browser holds, and the move is sent once it is drawn; the rerun that follows updates the caption, the
download, the link, and the similarity's offset chart.

The trivial page (one slider, one line of text, benchmarks/trivial_page.py) is the floor: the round trip through
Streamlit that no page can avoid. A page with one slider and the PE page's default heatmap alone
(benchmarks/heatmap_page.py) shows what one chart costs: sent by the server on each move of a Streamlit slider and
drawn by st.plotly_chart, or moved in the browser by ui.live_chart.draw (a table of 500 positions).

Every page is open in its own Chromium and the moves take turns, one per page, so that the floor and the pages are
measured under the same load: on a 2-core machine the speed drifts from one minute to the next, and measured one
after the other the ratio changed widely between two runs. Earlier versions also timed moves back to back and
looked the slider up inside the clock: Playwright's own time on every page, which made the PE page's ratio look
smaller.

What the time is made of (profiled in Chromium, software rendering on 2 cores): the browser's main thread is busy
for nearly all of it. Streamlit 1.67 gives a plotly chart an id hashed from its figure, so st.plotly_chart
remounts on every change of data and plotly draws the chart twice; ui.live_chart draws it once, in place
(Plotly.react). After a fragment run React re-renders every element on the page, three times (the run's start, its
elements, its end), so the PE page shows one chapter at a time; its sliders sit in fragments, so only their
section reruns on the server. Each move also writes the settings into the URL, so that a link shows the view.
The servers run as deployed (labtools.server.SERVER_ENV, serving.env), with one CPU thread per torch op: with one per core, a move took
longer, as the window's sin and cos waited for a second thread that Chromium was using.
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
from labtools.browser import launch_chromium, rerun, wait_until_idle  # noqa: E402
from labtools.server import free_port, start_server  # noqa: E402

# The heatmap's first row and column and its shape: z is plotly's base64 form when the server sent the cells, rows
# of a Float32Array when the browser cut the window from its block (ui.live_chart.draw)
HEATMAP = (
    "(() => { try { const d = document.querySelector('.js-plotly-plot').data[0];"
    " return [d.y0, d.x0, d.z.shape || d.z.length + ', ' + d.z[0].length].join('|'); }"
    " catch (e) { return 'redrawing'; } })()"
)
# The first line's first position and its length (of its base64 text), for the curves' chart
CURVES = (
    "(() => { try { const d = document.querySelector('.js-plotly-plot').data[0];"
    " return d.x0 + '|' + (d.y.bdata || d.y).length; } catch (e) { return 'redrawing'; } })()"
)
TEXT = "document.querySelector('[data-testid=\"stMarkdown\"]').innerText"
# The PE table's caption, which the rerun after a move writes: it names the window shown
CAPTION = (
    "[...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')].map(e => e.innerText)"
    ".find(c => c.startsWith('Positions '))"
)
RUNNING = "document.querySelector('[data-testid=\"stApp\"]').dataset.testScriptState === 'running'"


SETTLE_MS = 150  # before each move: the last move's trailing work (paint, GC) is not counted in the next


@dataclass
class Subject:
    """A slider on a page, what shows that a move took effect, and the times measured.

    marker: a JavaScript expression whose value changes when the page shows the move (the chart or the text).
    written: for a page whose chart moves in the browser before the rerun, one that changes when the rerun
        after the move has written the page (the caption); without it, the marker's change is the rerun's.
    """

    name: str
    page: Page
    slider: str
    keys: list[str]
    marker: str
    written: str | None = None
    shown: list[float] = field(default_factory=list)
    done: list[float] = field(default_factory=list)

    def move(self, i: int) -> None:
        shown, done = timed_move(self.page, self.slider, self.keys[i % len(self.keys)], self.marker, self.written)
        self.shown.append(shown)
        self.done.append(done)


def timed_move(page: Page, slider: str, key: str, marker: str, written: str | None) -> tuple[float, float]:
    """Seconds from a key press on `slider`, on a page at rest, until `marker` changed, and until the run after
    the move finished (with `written` changed, if given)."""
    page.wait_for_timeout(SETTLE_MS)
    handle = page.get_by_role("slider", name=slider).element_handle()
    before, before_written = page.evaluate(marker), written and page.evaluate(written)
    start = time.perf_counter()
    handle.press(key)
    if written is None:
        page.wait_for_function(f"({marker}) !== {before!r} && !({RUNNING})", polling=5)
        done = time.perf_counter() - start
        return done, done
    page.wait_for_function(f"({marker}) !== {before!r}", polling=5)
    shown = time.perf_counter() - start
    page.wait_for_function(f"({written}) !== {before_written!r} && !({RUNNING})", polling=5)
    return shown, time.perf_counter() - start


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


def report(subject: Subject, floor: float | None = None) -> None:
    """One line per row: the median and 90th percentile until the page showed the move and until the rerun
    after it finished, and each median's ratio to the floor's."""

    def column(times: list[float]) -> str:
        med, p90 = statistics.median(times), sorted(times)[int(0.9 * len(times))]
        ratio = f" {med / floor:4.1f}x" if floor else "      "
        return f"{med * 1000:5.0f} ms{ratio}  p90 {p90 * 1000:5.0f} ms"

    print(f"{subject.name:<60} shown {column(subject.shown)} | run done {column(subject.done)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30, help="per row, at most 50 (the 'First position' row's window)")
    args = parser.parse_args()
    moves = min(args.moves, 50)
    port_trivial, port_heatmap, port_app = free_port(), free_port(), free_port()
    servers = [
        start_server(port_trivial, script="benchmarks/trivial_page.py"),
        start_server(port_heatmap, script="benchmarks/heatmap_page.py"),
        start_server(port_app),
    ]
    heatmap, app = f"http://127.0.0.1:{port_heatmap}", f"http://127.0.0.1:{port_app}/positional_encoding"
    back_and_forth, right = ["ArrowLeft", "ArrowRight"], ["ArrowRight"]
    rows = [  # name, URL, slider, keys, what shows the move, what the rerun after it writes (if not the same)
        ("trivial page (floor)", f"http://127.0.0.1:{port_trivial}", "value", right, TEXT, None),
        ("one-heatmap page, st.plotly_chart", heatmap, "First position", right, HEATMAP, None),
        (
            "one-heatmap page, window_chart",
            f"{heatmap}/?chart=window",
            "First position",
            right,
            HEATMAP,
            "location.search",
        ),
        # the table's window: at the defaults the browser holds the whole table and cuts the window from it
        ("PE table, 'Positions shown' 100 <-> 50", app, "Positions shown", back_and_forth, HEATMAP, CAPTION),
        ("PE table, 'First position' +1", f"{app}?pe_pos_span=50", "First position", right, HEATMAP, CAPTION),
        # the curves' window moves in the browser too; the rerun after a move writes the link
        (
            "PE curves, 'Positions plotted' 100 <-> 50",
            f"{app}?pe_chapter=wavelengths",
            "Positions plotted",
            back_and_forth,
            CURVES,
            "location.search",
        ),
        # and the similarity's: the rerun after a move writes the link and redraws the offset chart
        (
            "PE similarity, 'Positions compared' 100 <-> 50",
            f"{app}?pe_chapter=similarity",
            "Positions compared",
            back_and_forth,
            HEATMAP,
            "location.search",
        ),
    ]
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as profiles:
            subjects = [
                Subject(name, open_window(p, Path(profiles), url, marker), slider, keys, marker, written)
                for name, url, slider, keys, marker, written in rows
            ]
            for i in range(moves):
                for subject in subjects:
                    subject.move(i)
            floor = statistics.median(subjects[0].done)
            for subject in subjects:
                report(subject, None if subject is subjects[0] else floor)

            page = next(s.page for s in subjects if s.name == "PE table, 'First position' +1")
            set_number(page, "max_len (positions)", 100_000)
            set_number(page, "d_model", 4096)
            for name, widest in (("", False), (", widest windows", True)):
                if widest:
                    for slider in ("Positions shown", "Dimensions shown"):
                        with rerun(page):  # ui/live_chart.js asks for the run once it has drawn the move
                            page.get_by_role("slider", name=slider).press("End")
                largest = Subject(
                    f"PE table, 100,000 x 4,096{name}, 'First position' +1",
                    page,
                    "First position",
                    ["ArrowRight"],
                    HEATMAP,
                    CAPTION,
                )
                for i in range(moves):
                    largest.move(i)
                report(largest)
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
