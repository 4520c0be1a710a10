"""Screenshots of every page and chapter at its defaults, in English and 中文, for the README: docs/img/.

    .venv/bin/python scripts/screenshots.py            # every page, both languages, into docs/img/
    .venv/bin/python scripts/screenshots.py --pages pe at --langs zh
    .venv/bin/python scripts/screenshots.py --phone --pages pe --langs en   # docs/img/pe-en-phone.webp

It starts the real server and Debian's Chromium as the browser tests do (labtools/browser.py), opens each page
(and each chapter, ?<key>_chapter=<chapter>) in a 1280 px wide window, waits until the page has run and its charts
are drawn, and keeps the main column from the title (a chapter: from the chapter control) down, at most --height
px (from the section of its first chart, when the title is too far above it), as WebP (one tenth of a PNG's size: the README's pictures stay under 3 MB together). Names are stable:
<page key>[-<chapter>]-<lang>.webp, e.g. pe-similarity-zh.webp. --phone takes them on a phone instead (390 px wide,
touch, Chromium's device emulation: labtools/browser.py's SCREENS), named <...>-<lang>-phone.webp; --present each
page at its defaults in presenter mode on a projector's 1024 px (docs/workshop.md), named <page key>-<lang>-present.webp. A layout problem that labtools/layout.js finds
on the way is printed, and the run ends with status 1.

Needs: Chromium at /usr/bin/chromium (Debian's `chromium`), Pillow (Streamlit's own), and a CJK font, without which
Chromium draws 中文 as boxes: `apt-get install fonts-noto-cjk` (or the smaller fonts-wqy-microhei). CI does not
run it.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

import lessons  # noqa: E402
from labtools.browser import (  # noqa: E402
    SCREENS,
    assert_layout,
    launch_browser,
    launch_chromium,
    new_context,
    wait_until_idle,
)
from labtools.server import free_port, start_server  # noqa: E402
from ui.pages import OVERVIEW, PATH  # noqa: E402

LANGS = ("en", "zh")
WIDTH = 1280
CJK_FONT = "apt-get install fonts-noto-cjk (or fonts-wqy-microhei)"


def chapters(script: str) -> tuple[str, ...]:
    """A lesson's chapters, read from its declaration without running the page (its first one is its default)."""
    return lessons.chapters(Path(script).parent.name)


def views(keys: list[str] | None) -> list[tuple[str, str, str]]:
    """(file stem, address, what to crop from) for each page at its defaults and each chapter other than its first."""
    found = []
    for lesson in (OVERVIEW, *PATH):
        if keys and lesson.key not in keys:
            continue
        path = "" if lesson is OVERVIEW else lesson.folder
        found.append((lesson.key, f"/{path}?", "h1"))
        for chapter in chapters(lesson.script)[1:]:
            found.append((f"{lesson.key}-{chapter}", f"/{path}?{lesson.key}_chapter={chapter}&", "chapters"))
    return found


def has_cjk_font() -> bool:
    try:
        out = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False).stdout
    except FileNotFoundError:  # no fontconfig: Chromium could not find one either
        return False
    return bool(out.strip())


# The top of the crop: the title, or a chapter's control (so a chapter's picture shows which chapter it is).
TOP = {
    "h1": '[data-testid="stMain"] h1',
    "chapters": '[data-testid="stMain"] [class*="st-key-"][class*="_chapter"]',
}


# Every element's box in the main column: the page has settled when two looks half a second apart agree (a chart
# Streamlit draws again once it has measured its column, a late font, move what comes below them).
BOXES = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stElementContainer"]')]
    .map(e => { const r = e.getBoundingClientRect(); return [r.top, r.height, r.width].map(Math.round).join(); }).join()"""


def settle(page, most: int = 20) -> None:
    """Wait until the main column stops moving (at most `most` looks)."""
    last = None
    for _ in range(most):
        boxes = page.evaluate(BOXES)
        if boxes == last:
            return
        last = boxes
        page.wait_for_timeout(500)


def shoot(page, url: str, top: str, height: int) -> bytes:
    """The main column at `url`, from `top` down at most `height` px, as PNG bytes.

    The window is tall enough to hold the crop once its top is scrolled to the window's: Streamlit scrolls its main
    column inside the window, so a "full page" screenshot would hold the window's height alone.
    """
    page.goto(url)
    page.wait_for_selector(TOP[top])
    wait_until_idle(page)
    page.wait_for_timeout(1000)  # the elements of the run drawn, the charts started
    page.evaluate("document.fonts.ready")
    assert_layout(page, timeout=30_000)  # the charts drawn and laid out
    settle(page)
    start = page.evaluate(START, [TOP[top], height]) - MARGIN
    left, right, bottom = page.evaluate(CROP, [start, start + height])
    clip = {"x": left - MARGIN, "y": start, "width": right - left + 2 * MARGIN, "height": bottom + MARGIN - start}
    return page.screenshot(clip=clip, animations="disabled")


MARGIN = 16  # px of the page's background kept around the crop
# Where the crop begins: at `top` (the title, the chapter control), unless the page's first chart would then be
# left out, its top more than half the crop's height below: then at the last heading above that chart, so that
# every picture shows a figure (the embedding space's cloud is below its settings).
# That element is scrolled to the window's top: Streamlit scrolls the main column inside the window, and a
# screenshot holds what the window shows.
START = """([top, height]) => {
    const first = document.querySelector(top);
    const y = first.getBoundingClientRect().top;
    const chart = [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')].find(e => e.checkVisibility());
    const headings = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stHeading"]')]
        .filter(e => chart && e.getBoundingClientRect().top > y && e.getBoundingClientRect().top < chart.getBoundingClientRect().top);
    const start = !chart || chart.getBoundingClientRect().top < y + height / 2 || !headings.length ? first : headings.at(-1);
    start.style.scrollMarginTop = "4rem";  // below Streamlit's header (its sidebar arrow), not under it
    start.scrollIntoView({ block: "start" });
    return start.getBoundingClientRect().top;
}"""
# The main column's content, less its padding, down to the bottom of the elements that begin above `limit`, so that
# a chart is not cut through; at `limit` itself when one of them reaches far below it (half as far again).
CROP = """([start, limit]) => {
    const column = document.querySelector('[data-testid="stMainBlockContainer"]');
    const box = column.getBoundingClientRect();
    const style = getComputedStyle(column);
    const bottoms = [...column.querySelectorAll('[data-testid="stElementContainer"]')]
        .map(e => e.getBoundingClientRect()).filter(r => r.height > 0 && r.top < limit).map(r => r.bottom);
    const lowest = Math.max(start, ...bottoms);
    const end = lowest <= start + 1.5 * (limit - start) ? lowest : limit;
    return [box.left + parseFloat(style.paddingLeft), box.right - parseFloat(style.paddingRight), end];
}"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("--pages", nargs="*", help="page keys (ov, il, we, es, pe, rp, at, lv); all by default")
    parser.add_argument("--langs", nargs="*", default=list(LANGS), choices=LANGS)
    parser.add_argument("--height", type=int, default=900, help="the most CSS px kept below the crop's top")
    parser.add_argument("--quality", type=int, default=72, help="WebP quality, 0 to 100")
    parser.add_argument("--phone", action="store_true", help="on a phone (390 px, touch): <...>-<lang>-phone.webp")
    parser.add_argument(
        "--present",
        action="store_true",
        help="in presenter mode at 1024 x 768, each page at its defaults: <page key>-<lang>-present.webp",
    )
    args = parser.parse_args()
    if "zh" in args.langs and not has_cjk_font():
        print(f"No CJK font: Chromium would draw 中文 as boxes. Install one: {CJK_FONT}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = start_server(port)
    failed = []
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
            # the window as tall as twice the crop: the crop's top is scrolled to the window's top
            if args.present:  # a projector's 1024 px, the window as tall as the crop needs
                context = new_context(launch_browser(p), viewport={"width": 1024, "height": 2 * args.height + 600})
            elif args.phone:
                phone = SCREENS["phone"]["context"]
                context = new_context(
                    launch_browser(p), **{**phone, "viewport": {"width": 390, "height": 2 * args.height + 600}}
                )
            else:
                context = launch_chromium(p, profile)
            browser = context.browser or context
            page = context.new_page()
            if not args.phone and not args.present:
                page.set_viewport_size({"width": WIDTH, "height": 2 * args.height + 600})
            page.set_default_timeout(120_000)
            suffix = "-present" if args.present else "-phone" if args.phone else ""
            for stem, address, top in views(args.pages):
                if args.present and top != "h1":  # a page at its defaults, not each chapter
                    continue
                for lang in args.langs:
                    url = f"http://127.0.0.1:{port}{address}" + ("lang=zh&" if lang == "zh" else "")
                    url += "present=true" if args.present else ""
                    name = f"{stem}-{lang}{suffix}.webp"
                    try:
                        png = shoot(page, url.rstrip("?&"), top, args.height)
                    except AssertionError as problem:  # the layout check's message
                        failed.append(name)
                        print(f"{name}: {problem}", file=sys.stderr)
                        png = page.screenshot(full_page=True)
                    image = Image.open(io.BytesIO(png)).convert("RGB")
                    image.save(args.out / name, "WEBP", quality=args.quality, method=6)
                    print(f"{name}: {image.width}×{image.height}, {(args.out / name).stat().st_size / 1024:.0f} kB")
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    total = sum(f.stat().st_size for f in args.out.glob("*.webp"))
    print(f"{args.out}: {total / 1e6:.2f} MB in all" + (f"; layout problems on {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
