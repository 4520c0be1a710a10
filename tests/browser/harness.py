"""Start the real server and Debian's Chromium: shared by the browser tests and the benchmarks; and a learner's
moves with the layout check each page's browser test runs after every one.

A page's walk (tests/browser/test_positional_encoding.py has one per chapter)::

    page.goto(f"{server_url}/my_lesson")
    page.wait_for_selector(".js-plotly-plot")
    assert_layout(page)                       # every chart drawn, tall, covering nothing, its axes labelled
    type_into(page, "d_model", 64)            # a number or text box: typed, then Enter
    assert_layout(page)
    drag_slider(page, "Positions shown", 0.2) # with the mouse, to 20% of its track
    press_slider(page, "First position", "End")
    pick(page, "2. Wavelengths")              # a chapter, pills, a radio's option
    choose(page, "Preset", "The paper: d_model 512, base 10000")
    toggle(page, "Causal mask")
    click_button(page, "Pin these settings as A")
    assert_layout(page)

Each move waits for the run it starts; assert_layout waits for the charts that run draws.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

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


# --- Screens ----------------------------------------------------------------------------------------------------
# Where the lab is opened besides a laptop's window (launch_chromium's 1400 x 1000): a projector in presenter mode
# (?present=true), at the two sizes projectors take; a phone and a tablet, emulated as Chromium's device mode does
# (a touch screen, a mobile viewport, its pixel density): tests/browser/test_screens.py.
SCREENS = {
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


def launch_browser(playwright):
    """Debian's Chromium without a persistent profile, for screen_page's contexts (a phone's is its own context)."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium (the README's test command does).")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


@contextlib.contextmanager
def screen_page(browser, screen: str):
    """A page on the screen `screen` (a key of SCREENS) in a context of its own, closed afterwards; browser:
    launch_browser's. Open a link with screen_link, which adds the screen's settings (presenter mode)."""
    context = browser.new_context(**SCREENS[screen]["context"])
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        yield page
    finally:
        context.close()


def screen_link(url: str, screen: str, params: dict | None = None) -> str:
    """`url` with `params` and the screen's own settings (presenter mode) in its query."""
    query = {**(params or {}), **SCREENS[screen]["link"]}
    return f"{url}?{urlencode(query)}" if query else url


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


# --- A learner's moves, and the layout after each -------------------------------------------------------------
# Each move waits for the run it starts to finish; then assert_layout(page) checks what the learner sees.
LAYOUT = (Path(__file__).with_name("layout.js")).read_text()


def layout_problems(page) -> list[str]:
    """What is wrong with the main column's layout now (tests/browser/layout.js): [] when nothing is."""
    return page.evaluate(LAYOUT)


def assert_layout(page, timeout: float = 20_000, steady: bool = False) -> None:
    """Fail unless, once the run has finished and the charts are drawn, the main column's layout holds: no sideways
    scroll; every chart drawn, at least 150 px tall, within the screen, everything it draws inside its box; every
    control within the screen; no element drawn over another; every chart's axes labelled, no two tick labels of an
    axis overlapping (tests/browser/layout.js).

    A chart is drawn after the run that sent it: the check is repeated until it holds or `timeout` (ms) passes,
    and the problems seen last are the failure's message. steady: the check must hold on three polls in a row
    (half a second), not once: a page just opened may hold while a chart it will draw is not in it yet.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError  # the harness serves benchmarks too

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


def type_into(page, target, value) -> None:
    """Type `value` into a number or text box and press Enter, as a learner does.

    target: the box's label (exact), or a Playwright locator.
    """
    box = page.get_by_label(target, exact=True).first if isinstance(target, str) else target
    box.fill(str(value))
    box.press("Enter")
    wait_until_idle(page)


# Where a slider's thumb is and where its track begins and ends: Streamlit's slider hides its input inside the
# thumb it draws; ui.live_chart's sliders are the inputs themselves (a 16 px thumb).
SLIDER_GEOMETRY = """input => {
    const native = !input.closest('[data-testid="stSlider"]');
    const thumb = native ? null : input.parentElement.parentElement;
    const track = (native ? input : thumb.parentElement).getBoundingClientRect();
    const inset = native ? 8 : 0;
    const at = (Number(input.value) - Number(input.min)) / ((Number(input.max) - Number(input.min)) || 1);
    const t = thumb ? thumb.getBoundingClientRect() : null;
    return {
        x: t ? t.left + t.width / 2 : track.left + inset + at * (track.width - 2 * inset),
        y: track.top + track.height / 2,
        left: track.left + inset,
        right: track.right - inset,
    };
}"""


def slider_named(page, name: str):
    """The slider labelled `name`: Streamlit's (whose input is named by its label twice over: itself and its group)
    or a plain range input (ui.live_chart's)."""
    return page.get_by_role("slider", name=re.compile(rf"^{re.escape(name)}( {re.escape(name)})?$")).first


def drag_slider(page, name: str, to: float) -> None:
    """Drag a slider's thumb with the mouse, as a learner does, to `to` along its track (0: its left end, 1: its
    right end), and let go. name: the slider's label."""
    slider = slider_named(page, name)
    slider.scroll_into_view_if_needed()
    where = slider.evaluate(SLIDER_GEOMETRY)
    page.mouse.move(where["x"], where["y"])
    page.mouse.down()
    page.mouse.move(where["left"] + to * (where["right"] - where["left"]), where["y"], steps=8)
    page.mouse.up()
    wait_until_idle(page)


def press_slider(page, name: str, key: str = "ArrowRight", times: int = 1) -> None:
    """Move a slider with the keyboard: `key` (ArrowLeft, ArrowRight, Home, End, ...) pressed `times` times."""
    slider = slider_named(page, name)
    for _ in range(times):
        slider.press(key)
    wait_until_idle(page)


def _click_control(control) -> None:
    """Click a control as a learner does: Streamlit's radios and toggles hide their <input> inside a <label>,
    which is what takes the click."""
    if control.evaluate("e => e.tagName") == "INPUT":
        control = control.locator("xpath=ancestor::label[1]")
    control.click()


def pick(page, option: str) -> None:
    """Pick an option of a segmented control, pills or radio by its text (exact): a chapter, a preset base."""
    _click_control(page.get_by_role("radio", name=option, exact=True).first)
    wait_until_idle(page)


def toggle(page, label: str) -> None:
    """Flip a toggle (or a checkbox) by its label (exact)."""
    switch = page.get_by_role("switch", name=label, exact=True)
    _click_control((switch if switch.count() else page.get_by_role("checkbox", name=label, exact=True)).first)
    wait_until_idle(page)


def choose(page, label: str, option: str) -> None:
    """Choose `option` in the select box labelled `label`."""
    page.get_by_role("combobox", name=label, exact=True).click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_until_idle(page)


def click_button(page, name: str) -> None:
    """Press a button by its text (exact), e.g. "Pin these settings as A"."""
    page.get_by_role("button", name=name, exact=True).first.click()
    wait_until_idle(page)


def download(page, key: str) -> tuple[str, Path]:
    """Press the download button whose key is `key` (ui.tables.downloads: csv_<name>, npy_<name>) and return the
    file's suggested name and where it was saved. Streamlit marks a keyed element's container `st-key-<key>`, so the
    button is named, not found by its place among the page's "Download (CSV)" buttons, which a rerun may change."""
    with page.expect_download() as file:
        page.locator(f".st-key-{key} button").click()
    return file.value.suggested_filename, file.value.path()
