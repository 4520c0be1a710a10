"""Debian's Chromium driven by Playwright, on a laptop's window or another screen; waiting for the lab's runs; the
layout check. The tests, the benchmarks and scripts/screenshots.py open pages through it.

    context = launch_chromium(playwright, profile_dir)   # a laptop's window, 1400 x 1000
    page = context.new_page()
    page.goto(url)
    wait_until_idle(page)                                # the page's first run has ended
    with rerun(page):                                    # a move of one's own: waits for the run it asks for
        page.get_by_text("cosine", exact=True).click()
    assert_layout(page)                                  # every chart drawn, whole, covering nothing

Every page opened from launch_chromium's context, or from new_context's or screen_page's, counts its runs
(labtools/runs.js): wait_until_idle waits on those counts, never on a fixed time.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

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
RUNS = (Path(__file__).with_name("runs.js")).read_text()
LAYOUT = (Path(__file__).with_name("layout.js")).read_text()


def _chromium() -> str:
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium (the README's test command does).")
    return CHROMIUM


def launch_chromium(playwright, profile_dir: str, **kwargs):
    """A persistent Chromium context on a fresh profile, with the flags this machine needs; its pages count their
    runs (wait_until_idle)."""
    context = playwright.chromium.launch_persistent_context(
        profile_dir,
        executable_path=_chromium(),
        args=CHROMIUM_ARGS,
        headless=True,
        viewport={"width": 1400, "height": 1000},
        **kwargs,
    )
    context.add_init_script(RUNS)
    return context


def launch_browser(playwright):
    """Debian's Chromium without a persistent profile, for contexts of their own (new_context, screen_page)."""
    return playwright.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, headless=True)


def new_context(browser, **kwargs):
    """browser.new_context(**kwargs) whose pages count their runs (wait_until_idle)."""
    context = browser.new_context(**kwargs)
    context.add_init_script(RUNS)
    return context


# --- Screens ----------------------------------------------------------------------------------------------------
# Where the lab is opened: a laptop's window (launch_chromium's); a projector in presenter mode (?present=true), at
# the two sizes projectors take; a phone and a tablet, emulated as Chromium's device mode does (a touch screen, a
# mobile viewport, its pixel density). tests/browser/test_screens.py and the pages' walks (tests/browser/__init__.py:
# walks) use them.
SCREENS: dict[str, dict[str, dict[str, Any]]] = {
    "laptop": dict(context=dict(viewport={"width": 1400, "height": 1000}), link={}),
    "presenter-1024": dict(context=dict(viewport={"width": 1024, "height": 768}), link={"present": "true"}),
    "presenter-1920": dict(context=dict(viewport={"width": 1920, "height": 1080}), link={"present": "true"}),
    "phone": dict(
        context=dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=3),
        link={},
    ),
    "tablet": dict(
        context=dict(viewport={"width": 768, "height": 1024}, is_mobile=True, has_touch=True, device_scale_factor=2),
        link={},
    ),
}
# Screens one page can be checked on in turn by resizing its window: the same link (presenter mode or not), the same
# kind of device (a mouse, or touch). The first screen of each, the narrower, is the one a mode's walk moves on and
# checks after every move; the walk opens its page on the second, and checks each chapter there and narrowed to the
# first (check_views_wide).
MODES: dict[str, list[str]] = {
    "laptop": ["laptop"],
    "presenter": ["presenter-1024", "presenter-1920"],
    "touch": ["phone", "tablet"],
}


@contextlib.contextmanager
def screen_page(browser, screen: str):
    """A page on the screen `screen` (a key of SCREENS, or of MODES: its first screen) in a context of its own, closed
    afterwards; browser: launch_browser's. Open a link with screen_link, which adds the screen's settings (presenter
    mode)."""
    context = new_context(browser, **SCREENS[MODES.get(screen, [screen])[0]]["context"])
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        yield page
    finally:
        context.close()


def screen_link(url: str, screen: str, params: dict | None = None) -> str:
    """`url` with `params` and the screen's own settings (presenter mode) in its query; screen: a key of SCREENS or
    of MODES."""
    query = {**(params or {}), **SCREENS[MODES.get(screen, [screen])[0]]["link"]}
    return f"{url}{'&' if '?' in url else '?'}{urlencode(query)}" if query else url


EXCEPTION = '[data-testid="stException"]'  # a traceback drawn on the page


# --- Waiting for runs ---------------------------------------------------------------------------------------------
# runs.js's counts: the last run asked for has started, the last one started has ended, and the page shows no run.
IDLE = """(r => !r || r.error || (r.started > r.requested && r.finished > r.started
    && !document.querySelector('[data-testid="stApp"][data-test-script-state="running"]')))(window.__emblabRuns)"""


def _check_runs(page) -> None:
    state = page.evaluate("window.__emblabRuns || null")
    if state is None:
        raise RuntimeError(
            f"{page.url} does not count its runs: open it from labtools.browser's contexts "
            "(launch_chromium, new_context, screen_page), which add labtools/runs.js"
        )
    if state["error"]:
        raise RuntimeError(f"{page.url}: {state['error']}")


def wait_until_idle(page, timeout: float | None = None) -> None:
    """Wait until every run the page has asked for has started and ended (and the page's first run, after a goto).

    A run asked for later is not waited for: after a move of one's own, use `rerun(page)`, which waits for the
    move's request first. timeout: ms (the page's default if None)."""
    page.wait_for_function(IDLE, timeout=timeout)
    _check_runs(page)


def requests(page) -> int:
    """How many runs the page has asked its server for since it was opened (runs.js)."""
    _check_runs(page)
    return page.evaluate("window.__emblabRuns.requests")


@contextlib.contextmanager
def rerun(page, timeout: float | None = None):
    """Around a move that makes the page ask for a run: after the block, wait for that request, then for the run
    to end, then check the layout if check_after_moves asked for it. Fails (a Playwright timeout) if the move asked
    for none. timeout: ms for each wait."""
    before = requests(page)
    yield
    page.wait_for_function(f"window.__emblabRuns.requests > {before}", timeout=timeout)
    wait_until_idle(page, timeout)
    after_move(page)


# The screens each page's moves are checked on (check_after_moves): the page's walk sets them.
_CHECKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def check_after_moves(page, screens: list[str]) -> None:
    """From now on, after every move on `page` (rerun, and labtools.moves' moves), check the layout on each of
    `screens` (keys of SCREENS, which share the page's link and kind of device: MODES; assert_layout_on), the window
    resized to each in turn and back. [] stops the checks."""
    _CHECKED[page] = list(screens)


def after_move(page) -> None:
    """The layout check check_after_moves asked for on `page`, if any (assert_layout_on); then, for a page that
    check_views_wide named, the view on the wider screen if it is a new one (a chapter not shown there yet)."""
    if screens := _CHECKED.get(page):
        assert_layout_on(page, screens)
    if (views := _WIDE.get(page)) and views.home is not None:
        view = views.view(page.url)
        if view[0] == views.home and view not in views.seen:
            check_wider_screen(page)


# --- A walk's wider screen ----------------------------------------------------------------------------------------
# A mode of two screens (MODES) is walked at its first, the narrower, and each new view of the walk's page (the page
# opened, each chapter the first time it shows) is checked on the wider one too and again once narrowed back: charts
# drawn wide must fit narrowed, as a tablet turned or a window dragged narrower. The page is loaded once per mode.
class _Views:
    def __init__(self, narrow: str, wide: str, first_chapter: Callable[[str], str | None]) -> None:
        self.narrow, self.wide, self.first_chapter = narrow, wide, first_chapter
        self.home: str | None = None  # the path of the walk's page: the first one opened
        self.seen: set[tuple[str, str | None]] = set()  # (path, chapter) checked on the wider screen

    def view(self, url: str) -> tuple[str, str | None]:
        """view_of(url), the page's first chapter named as None, as a link without a chapter opens it."""
        path, chapter = view_of(url)
        return path, None if chapter == self.first_chapter(path) else chapter


_WIDE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def view_of(url: str) -> tuple[str, str | None]:
    """A view's path and its chapter (a `<prefix>_chapter` setting of its link; None: the page's first or none)."""
    parts = urlsplit(url)
    chapter = next((v[0] for k, v in parse_qs(parts.query).items() if k.endswith("_chapter")), None)
    return parts.path.rstrip("/") or "/", chapter


def check_views_wide(
    page, narrow: str, wide: str, first_chapter: Callable[[str], str | None] = lambda path: None
) -> None:
    """From now on, open `page`'s links on the screen `wide` and check each new view of the first page opened there
    and once narrowed to `narrow` (keys of SCREENS of one mode: MODES), where the page stays: `opened` around a goto,
    after_move after a move, check_wider_screen for a view of one's own. first_chapter: a path's first chapter (the
    view its link without a chapter opens), None for a page without chapters."""
    _WIDE[page] = _Views(narrow, wide, first_chapter)


def views_checked_wide(page) -> tuple[str | None, set[tuple[str, str | None]]] | None:
    """The path of the walk's page (None before a page is opened), and the views (path, chapter; None: its first)
    checked on the wider screen so far; None for a page check_views_wide did not name."""
    views = _WIDE.get(page)
    return (views.home, set(views.seen)) if views else None


def _wide_then_narrow(page, views: _Views, opened: bool) -> None:
    wide = SCREENS[views.wide]["context"]["viewport"]
    narrow = SCREENS[views.narrow]["context"]["viewport"]
    for screen, size, steady in ((views.wide, wide, not opened), (views.narrow, narrow, True)):
        if page.viewport_size != size:
            page.set_viewport_size(size)
        try:
            assert_layout(page, steady=steady)
        except AssertionError as problem:
            raise AssertionError(f"on the {screen} screen: {problem}") from None
    views.seen.add(views.view(page.url))


@contextlib.contextmanager
def opened(page):
    """Around a goto on a page check_views_wide named: the link opened on the wider screen, its layout checked there
    once its run has ended, then the window narrowed and checked again. Elsewhere, the goto alone."""
    views = _WIDE.get(page)
    if views is None:
        yield
        return
    page.set_viewport_size(SCREENS[views.wide]["context"]["viewport"])
    yield
    page.wait_for_selector('[data-testid="stMain"] h1')  # the page's title: its run has begun to draw
    wait_until_idle(page)
    if views.home is None:
        views.home = view_of(page.url)[0]
    _wide_then_narrow(page, views, opened=True)


def check_wider_screen(page) -> None:
    """The view as it stands checked on the wider screen of a page check_views_wide named, then narrowed back and
    checked again (a view a walk reaches by its moves: a trained model, a sweep's small multiples). Elsewhere,
    nothing (a laptop's window has no other screen)."""
    if views := _WIDE.get(page):
        _wide_then_narrow(page, views, opened=False)


def _on_plots(predicate: str) -> str:
    """A JavaScript predicate on the page's plots that counts a throw as false: a rerun can replace a plot's element,
    and plotly attaches `data` after the element exists, so in between the predicate may throw."""
    return f"(() => {{ try {{ return Boolean({predicate}); }} catch (e) {{ return false; }} }})()"


def wait_for_plot(page, predicate: str, **kwargs) -> None:
    """Wait until a JavaScript predicate on the page's plots holds (one that throws has not yet)."""
    page.wait_for_function(_on_plots(predicate), **kwargs)


def plot_holds(page, predicate: str) -> bool:
    """Whether a JavaScript predicate on the page's plots holds now (one that throws does not)."""
    return page.evaluate(_on_plots(predicate))


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


# --- The layout check ---------------------------------------------------------------------------------------------
def layout_problems(page) -> list[str]:
    """What is wrong with the main column's layout now (labtools/layout.js): [] when nothing is."""
    return page.evaluate(LAYOUT)


def assert_layout(page, timeout: float = 20_000, steady: bool = False) -> None:
    """Fail unless, once the run has finished and the charts are drawn, the main column's layout holds: no sideways
    scroll; every chart drawn, at least 150 px tall, within the screen, everything it draws inside its box; every
    control within the screen; no element drawn over another; every chart's axes labelled, no two tick labels of an
    axis overlapping (labtools/layout.js).

    A chart is drawn after the run that sent it: the check is repeated until it holds or `timeout` (ms) passes,
    and the problems seen last are the failure's message. steady: the check must hold on three polls in a row
    (half a second), not once: a page just opened may hold while a chart it will draw is not in it yet.
    """
    from playwright.sync_api import (
        TimeoutError as PlaywrightTimeoutError,  # imported here: labtools serves scripts that need no Playwright too
    )

    wait_until_idle(page)
    try:
        held = f"({LAYOUT})().length === 0"
        if steady:  # a count of the polls in a row on which the check held, kept on the page
            page.evaluate("window.__layoutHeld = 0")
            held = f"(window.__layoutHeld = {held} ? (window.__layoutHeld || 0) + 1 : 0) >= 3"
        page.wait_for_function(held, timeout=timeout, polling=250)
    except PlaywrightTimeoutError:
        problems = layout_problems(page)
        if problems:
            raise AssertionError(f"layout at {page.url}:\n  " + "\n  ".join(problems)) from None


def assert_layout_on(page, screens: list[str], timeout: float = 20_000) -> None:
    """assert_layout on each screen of `screens` (keys of SCREENS sharing the page's link and kind of device): the
    page's own size first, then the window resized to each other one in turn, and back to its own size at the end.
    Opened on a mode's wider screen and narrowed, charts drawn at the wider size must fit the narrower one
    (ui/live_chart.js fits a title anew when its chart's width changes; a phone turned from landscape to portrait
    once cut titles off, the report of issue 42's walk). After a resize the check must hold on three polls in a row
    (steady): the charts are drawn again at the new width."""
    own = page.viewport_size
    sizes = [(screen, SCREENS[screen]["context"]["viewport"]) for screen in screens]
    sizes.sort(key=lambda item: item[1] != own)  # the page's own size first
    for screen, size in sizes:
        resized = size != page.viewport_size
        if resized:
            page.set_viewport_size(size)
        try:
            assert_layout(page, timeout, steady=resized)
        except AssertionError as problem:
            raise AssertionError(f"on the {screen} screen: {problem}") from None
    if page.viewport_size != own:
        page.set_viewport_size(own)
