"""Rerun time after a slider move, in Chromium against the real server: the PE page vs a trivial page.

Each sample: press an arrow key on a slider, wait until the page shows the new result (the chart's data
or the text changed) and the script run has finished. The trivial page (one slider, one line of text,
benchmarks/trivial_page.py) is the floor: the round trip through Streamlit that no page can avoid. A page with
one slider and the PE page's default heatmap alone (benchmarks/heatmap_page.py) shows what one chart costs,
drawn with st.plotly_chart and with ui.live_chart.

What the time is made of (profiled in Chromium, software rendering on 2 cores): Streamlit 1.67 gives a plotly
chart an id hashed from its figure, so st.plotly_chart remounts on every change of data and plotly draws the
chart twice (about 55 ms, then about 35 ms once the column's width is known); ui.live_chart draws it once, in
place. After a fragment run React re-renders every element on the page, so the PE page shows one chapter at a
time; its sliders sit in fragments, so only their section reruns on the server. Each move also writes the
settings into the URL, so that a link shows the view: Streamlit redraws the page once more for that, 10-30 ms
(interleaved A/B runs of the page with and without it).
Run: .venv/bin/python benchmarks/rerun.py [--moves 20]
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
from tests.browser.harness import free_port, launch_chromium, start_server, wait_until_idle  # noqa: E402

HEATMAP = "(() => { try { const d = document.querySelector('.js-plotly-plot').data[0]; return d.y0 + '|' + d.z.shape; } catch (e) { return 'redrawing'; } })()"
TEXT = "document.querySelector('[data-testid=\"stMarkdown\"]').innerText"
RUNNING = "document.querySelector('[data-testid=\"stApp\"]').dataset.testScriptState === 'running'"


def timed_moves(page, slider: str, keys: list[str], marker: str, moves: int) -> list[float]:
    """Seconds from each key press on `slider` until `marker` changed and the run finished."""
    times = []
    for i in range(moves):
        before = page.evaluate(marker)
        start = time.perf_counter()
        page.get_by_role("slider", name=slider).press(keys[i % len(keys)])
        page.wait_for_function(f"({marker}) !== {before!r} && !({RUNNING})", polling=5)
        times.append(time.perf_counter() - start)
    return times


def set_number(page, label: str, value: int) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    wait_until_idle(page)


def report(name: str, times: list[float], floor: float | None = None) -> float:
    med = statistics.median(times)
    ratio = f", {med / floor:.1f}x the floor" if floor else ""
    print(f"{name:<64} median {med * 1000:6.0f} ms  p90 {sorted(times)[int(0.9 * len(times))] * 1000:6.0f} ms{ratio}")
    return med


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20)
    args = parser.parse_args()
    port_trivial, port_heatmap, port_app = free_port(), free_port(), free_port()
    servers = [
        start_server(port_trivial, script="benchmarks/trivial_page.py"),
        start_server(port_heatmap, script="benchmarks/heatmap_page.py"),
        start_server(port_app),
    ]
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
            browser = launch_chromium(p, profile)
            page = browser.new_page()
            page.set_default_timeout(60_000)

            page.goto(f"http://127.0.0.1:{port_trivial}")
            page.wait_for_selector('[data-testid="stMarkdownContainer"]')
            floor = report("trivial page (floor)", timed_moves(page, "value", ["ArrowRight"], TEXT, args.moves))

            for query, name in (("?chart=plotly_chart", "st.plotly_chart"), ("", "ui.live_chart")):
                page.goto(f"http://127.0.0.1:{port_heatmap}/{query}")
                page.wait_for_selector(".js-plotly-plot")
                wait_until_idle(page)
                heatmap = timed_moves(page, "First position", ["ArrowRight"], HEATMAP, args.moves)
                report(f"one-heatmap page (the PE page's heatmap alone), {name}", heatmap, floor)

            page.goto(f"http://127.0.0.1:{port_app}/positional_encoding")
            page.wait_for_selector(".js-plotly-plot")
            wait_until_idle(page)
            span = ["ArrowLeft", "ArrowRight"]  # 100 <-> 50 positions: the data cache is warm after two moves
            defaults = timed_moves(page, "Positions shown", span, HEATMAP, args.moves)
            report("PE page, defaults, 'Positions shown' 100 <-> 50", defaults, floor)
            page.get_by_role("slider", name="Positions shown").press("ArrowLeft")
            wait_until_idle(page)
            fresh = timed_moves(page, "First position", ["ArrowRight"], HEATMAP, args.moves)
            report("PE page, defaults, 'First position' +1 (nothing cached)", fresh, floor)

            set_number(page, "max_len (positions)", 100_000)
            set_number(page, "d_model", 4096)
            largest = timed_moves(page, "First position", ["ArrowRight"], HEATMAP, args.moves)
            report("PE page, 100,000 x 4,096, 'First position' +1", largest)
            for slider in ("Positions shown", "Dimensions shown"):
                page.get_by_role("slider", name=slider).press("End")
                wait_until_idle(page)
            widest = timed_moves(page, "First position", ["ArrowRight"], HEATMAP, args.moves)
            report("PE page, 100,000 x 4,096, widest windows, 'First position' +1", widest)
            browser.close()
    finally:
        for server in servers:
            server.terminate()
    print("Goals: defaults at most 3x the floor; the largest settings at most 1 s.")


if __name__ == "__main__":
    main()
