"""Text sizes in presenter mode at 1024 x 768: the body text beside the smallest chart text, hover label and table
cell of every page and chapter, in px as drawn (CSS px times the zoom).

    .venv/bin/python benchmarks/presenter_text.py [--pages tt sv] [--screen presenter-1024]

Each view is opened at its defaults with ?present=true (the views scripts/screenshots.py takes; --screen: another of
labtools.browser.SCREENS, a laptop or a phone, for comparison), its run and charts
awaited (labtools.browser.assert_layout, whose failure is printed beside the view), the column settled (scripts/screenshots.py's settle), then measured in the page. A
table drawn on a canvas (st.dataframe) is printed as "canvas": its cells keep Streamlit's size whatever the zoom.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from labtools.browser import SCREENS, assert_layout, launch_browser, new_context, screen_link, wait_until_idle  # noqa: E402
from labtools.server import free_port, start_server, stop  # noqa: E402
from scripts.screenshots import settle, views  # noqa: E402

MEASURE = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const drawn = (e) => parseFloat(getComputedStyle(e).fontSize) * (e.currentCSSZoom || 1);
  const body = main.querySelector('[data-testid="stMarkdownContainer"] p');
  const least = (sizes) => (sizes.length ? Math.min(...sizes) : null);
  const charts = [...main.querySelectorAll('.js-plotly-plot')].filter((gd) => gd.checkVisibility() && gd._fullLayout);
  const texts = charts.flatMap((gd) => [...gd.querySelectorAll('.main-svg text')]
    .filter((t) => t.textContent.trim() && !(/^[2-9]$/.test(t.textContent.trim()) && t.closest('g.xtick, g.ytick')))
    .map((t) => drawn(t)));
  const hovers = charts.flatMap((gd) => [gd._fullLayout.hoverlabel.font.size,
    ...gd._fullData.map((tr) => tr.hoverlabel && tr.hoverlabel.font && tr.hoverlabel.font.size)]
    .flat().filter((s) => typeof s === 'number').map((s) => s * (gd.currentCSSZoom || 1)));
  const cells = [...main.querySelectorAll('[data-testid="stTable"] :is(td, th)')].filter((c) => c.checkVisibility()).map(drawn);
  const canvas = [...main.querySelectorAll('[data-testid="stDataFrame"]')].filter((e) => e.checkVisibility()).length;
  return { body: body ? drawn(body) : null, chart: least(texts), hover: least(hovers), cell: least(cells), canvas, charts: charts.length };
}"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", help="page keys; all by default")
    parser.add_argument("--screen", default="presenter-1024", choices=list(SCREENS))
    args = parser.parse_args()
    port = free_port()
    server = start_server(port)
    fmt = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
    try:
        with sync_playwright() as p:
            browser = launch_browser(p)
            page = new_context(browser, **SCREENS[args.screen]["context"]).new_page()
            page.set_default_timeout(180_000)
            print(f"{'view':<16} {'body':>5} {'chart':>6} {'hover':>6} {'cells':>6}  charts  layout")
            for stem, address, _ in views(args.pages):
                page.goto(screen_link(f"http://127.0.0.1:{port}{address}".rstrip("?&"), args.screen))
                wait_until_idle(page)
                page.wait_for_timeout(1500)  # the live charts' component mounted, plotly.js loaded
                settle(page)
                try:
                    assert_layout(page, timeout=60_000)
                    layout = "ok"
                except AssertionError as problem:
                    layout = str(problem).split("\n", 2)[1].strip()[:200]
                m = page.evaluate(MEASURE)
                cells = "canvas" if m["canvas"] and m["cell"] is None else fmt(m["cell"])
                cells += "+canvas" if m["canvas"] and m["cell"] is not None else ""
                print(f"{stem:<16} {fmt(m['body']):>5} {fmt(m['chart']):>6} {fmt(m['hover']):>6} {cells:>6}  "
                      f"{m['charts']:>6}  {layout}", flush=True)  # fmt: skip
            browser.close()
    finally:
        stop(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
