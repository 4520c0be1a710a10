"""A learner's moves on a page, each waiting for the run it asks for (labtools.browser.rerun), never for a fixed time.

A page's walk (tests/browser/test_positional_encoding.py has one per chapter)::

    page.goto(f"{server_url}/my_lesson")
    wait_until_idle(page)
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

After each move, the layout is checked on the screens labtools.browser.check_after_moves names for the page (a
page's walk names its mode's: tests/browser/__init__.py, WALKS), and a chapter shown for the first time on the
mode's wider screen too where labtools.browser.check_views_wide asked for it.

Each move expects the page to ask for a run and fails (a Playwright timeout) if it asks for none: a move that
changes nothing (the value a box holds already, a slider at its end) passes `runs=False`, and then waits only for
the runs already asked for.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from labtools.browser import after_move, rerun, wait_until_idle


@contextlib.contextmanager
def _move(page, runs: bool):
    if runs:
        with rerun(page):
            yield
    else:
        yield
        wait_until_idle(page)
        after_move(page)


def type_into(page, target, value, runs: bool = True) -> None:
    """Type `value` into a number or text box and press Enter, as a learner does.

    target: the box's label (exact), or a Playwright locator.
    """
    box = page.get_by_label(target, exact=True).first if isinstance(target, str) else target
    with _move(page, runs):
        box.fill(str(value))
        box.press("Enter")


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


def drag_slider(page, name: str, to: float, runs: bool = True) -> None:
    """Drag a slider's thumb with the mouse, as a learner does, to `to` along its track (0: its left end, 1: its
    right end), and let go. name: the slider's label."""
    slider = slider_named(page, name)
    slider.scroll_into_view_if_needed()
    where = slider.evaluate(SLIDER_GEOMETRY)
    with _move(page, runs):
        page.mouse.move(where["x"], where["y"])
        page.mouse.down()
        page.mouse.move(where["left"] + to * (where["right"] - where["left"]), where["y"], steps=8)
        page.mouse.up()


def press_slider(page, name: str, key: str = "ArrowRight", times: int = 1, runs: bool = True) -> None:
    """Move a slider with the keyboard: `key` (ArrowLeft, ArrowRight, Home, End, ...) pressed `times` times."""
    slider = slider_named(page, name)
    with _move(page, runs):
        for _ in range(times):
            slider.press(key)


def press(control) -> None:
    """Press a control as a learner does: a tap on a touch screen (a click there only focuses Streamlit's select
    box, which opens on a tap), else a click. The control is scrolled to the middle of the window first, by the
    page itself: under presenter mode's CSS zoom, Playwright's own scrolling leaves a control above the window, and
    its click lands elsewhere (tests/browser/test_positional_encoding.py's walk, a chapter's pill)."""
    control.evaluate("e => e.scrollIntoView({block: 'center', inline: 'nearest'})")
    if control.page.evaluate("matchMedia('(pointer: coarse)').matches"):
        control.tap()
    else:
        control.click()


def _click_control(control) -> None:
    """Press a control as a learner does: Streamlit's radios and toggles hide their <input> inside a <label>,
    which is what takes the press."""
    if control.evaluate("e => e.tagName") == "INPUT":
        control = control.locator("xpath=ancestor::label[1]")
    press(control)


def pick(page, option: str, runs: bool = True) -> None:
    """Pick an option of a segmented control, pills or radio by its text (exact): a chapter, a preset base."""
    with _move(page, runs):
        _click_control(page.get_by_role("radio", name=option, exact=True).first)


def toggle(page, label: str, runs: bool = True) -> None:
    """Flip a toggle (or a checkbox) by its label (exact)."""
    switch = page.get_by_role("switch", name=label, exact=True)
    with _move(page, runs):
        _click_control((switch if switch.count() else page.get_by_role("checkbox", name=label, exact=True)).first)


def choose(page, label: str, option: str, runs: bool = True) -> None:
    """Choose `option` in the select box labelled `label`: its text typed into the box, which keeps the options
    that match (the list shows only as many options as fit its height: in presenter mode, a long one's last ones
    are not in the page until it scrolls), then pressed."""
    box = page.get_by_role("combobox", name=label, exact=True)
    press(box)
    box.fill(option)
    with _move(page, runs):
        press(page.get_by_role("option", name=option, exact=True))


def click_button(page, name: str, runs: bool = True) -> None:
    """Press a button by its text (exact), e.g. "Pin these settings as A"."""
    with _move(page, runs):
        press(page.get_by_role("button", name=name, exact=True).first)


def download(page, key: str) -> tuple[str, Path]:
    """Press the download button whose key is `key` (ui.tables.downloads: csv_<name>, npy_<name>) and return the
    file's suggested name and where it was saved. Streamlit marks a keyed element's container `st-key-<key>`, so the
    button is named, not found by its place among the page's "Download (CSV)" buttons, which a rerun may change."""
    with page.expect_download() as file:
        page.locator(f".st-key-{key} button").click()
    return file.value.suggested_filename, file.value.path()
