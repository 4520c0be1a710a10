"""Chart titles that follow their chart's width: a window narrowed after the charts were drawn (a laptop's window
dragged narrower, a tablet turned, a phone) and widened again. ui/live_chart.js fits a live chart's title to the
chart's width whenever that width changes (a ResizeObserver per chart); a figure st.plotly_chart draws has its title
broken in Python to fit a phone (figures.titles). After each resize every chart's title and subplot titles lie inside
the chart's box, and back at the first width each title has as many lines as it had at first. A chart taken away
stops watching; a chart back from full screen is drawn at its column's width again.

Issue 41's report: the attention page's four-terms chart and the MiniLM page's head chart, drawn at a laptop's width,
kept their one-line titles on a phone, cut off at the right edge."""

import contextlib
import json

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from labtools.browser import assert_layout, new_context, wait_until_idle
from labtools.moves import pick

TERMS = ["at_terms_chart"]
WIDE = {"width": 1280, "height": 800}
SIZES = [{"width": 390, "height": 844}, {"width": 768, "height": 1024}, WIDE]  # a phone, a tablet, back
# a view, and the keys of the charts it shows (st.plotly_chart's element appears once its code has loaded: a check
# that found the page's charts drawn before it would pass without it)
VIEWS = {
    "the attention page's four terms": ("attention?at_chapter=terms", TERMS),
    "the attention page's schemes": ("attention", ["at_logits_chart", "at_weights_chart"]),
    "the MiniLM page's heads": ("real_transformer", ["tf_grid", "tf_head_chart"]),
}

# Per chart shown in the main column (a live chart or st.plotly_chart's), what keeps its titles from being read
# whole: not drawn yet, drawn at another width than its box's (plotly follows the window after a moment), its title
# not fitted to the box's width yet (ui/live_chart.js: gd.fittedWidth, set once a refit is drawn), or the title or a
# subplot title (an annotation) reaching out of the box at either side. And each chart's title's number of lines.
TITLES = """(keys) => {
  const SLACK = 2;
  const problems = [], lines = {};
  for (const key of keys)
    if (!document.querySelector(`.st-key-${key} .js-plotly-plot .main-svg`)) problems.push(`${key} is not drawn`);
  const charts = [...document.querySelectorAll('[data-testid="stMain"] :is(.live-chart, [data-testid="stPlotlyChart"])')]
    .filter((e) => e.checkVisibility());
  if (!charts.length) problems.push("no chart shown");
  charts.forEach((e, i) => {
    const holder = e.closest('[data-testid="stElementContainer"]') || e;
    const name = `${[...holder.classList].find((c) => c.startsWith("st-key-")) || "chart"} #${i}`;
    const gd = e.classList.contains("live-chart") ? e : e.querySelector(".js-plotly-plot");
    if (!gd || !gd._fullLayout || !gd.querySelector(".main-svg")) return problems.push(`${name} is not drawn`);
    const box = gd.getBoundingClientRect();
    if (Math.abs(gd._fullLayout.width - box.width) > 1)
      problems.push(`${name} is drawn ${gd._fullLayout.width} px wide in a box ${Math.round(box.width)} px wide`);
    if (gd.classList.contains("live-chart") && gd.fittedWidth !== gd.clientWidth)
      problems.push(`${name}'s title is fitted to ${gd.fittedWidth} px, its box is ${gd.clientWidth} px wide`);
    const title = gd.querySelector(".gtitle");
    lines[name] = title && title.textContent.trim() ? Math.max(1, title.querySelectorAll("tspan.line").length) : 0;
    for (const text of [title, ...gd.querySelectorAll(".annotation-text")]) {
      if (!text || !text.textContent.trim()) continue;
      // across the lines, their middle (the line box's leading may stand out above the first line, as layout.js lets)
      const r = text.getBoundingClientRect();
      const middle = (r.top + r.bottom) / 2;
      if (r.left < box.left - SLACK || r.right > box.right + SLACK || middle < box.top || middle > box.bottom)
        problems.push(`${name}: "${text.textContent.slice(0, 40)}" spans x ${Math.round(r.left)}-${Math.round(r.right)}, ` +
          `y ${Math.round(r.top)}-${Math.round(r.bottom)}, outside its box x ${Math.round(box.left)}-${Math.round(box.right)}, ` +
          `y ${Math.round(box.top)}-${Math.round(box.bottom)}`);
    }
  });
  return { problems, lines };
}"""


def titles_fit(page, keys: list[str], lines: dict[str, int] | None = None, timeout: float = 30_000) -> dict[str, int]:
    """Wait until the charts `keys` are drawn and every chart's titles lie inside its box (and, given `lines`, each
    title has that many lines); return each title's number of lines. Fails with what was wrong at the last poll."""
    want = json.dumps(lines)
    held = f"(s => !s.problems.length && ({want} === null || JSON.stringify(s.lines) === JSON.stringify({want})))"
    try:
        page.wait_for_function(f"{held}(({TITLES})({json.dumps(keys)}))", timeout=timeout, polling=100)
    except PlaywrightTimeoutError:
        state = page.evaluate(TITLES, keys)
        size = page.viewport_size
        raise AssertionError(
            f"at {size['width']} x {size['height']}, {page.url}:\n  "
            + "\n  ".join(state["problems"] or [f"title lines {state['lines']}, at first {lines}"])
        ) from None
    return page.evaluate(TITLES, keys)["lines"]


@pytest.mark.parametrize("view", list(VIEWS))
def test_titles_fit_their_chart_as_the_window_narrows_and_widens(screens, server_url, view):
    context = new_context(screens, viewport=WIDE)
    try:
        page = context.new_page()
        page.set_default_timeout(90_000)
        path, keys = VIEWS[view]
        page.goto(f"{server_url}/{path}")
        page.wait_for_selector('[data-testid="stMain"] h1')
        wait_until_idle(page)
        first = titles_fit(page, keys)
        assert all(first.values()), first  # every chart has a title to fit
        for size in SIZES:
            page.set_viewport_size(size)
            titles_fit(page, keys, first if size == WIDE else None)
    finally:
        context.close()


@contextlib.contextmanager
def terms_chapter(screens, server_url):
    """A page of its own at the laptop's width, on the attention page's four-terms chapter, its titles fitted; yields
    (the page, each title's lines)."""
    context = new_context(screens, viewport=WIDE)
    try:
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(f"{server_url}/attention?at_chapter=terms")
        wait_until_idle(page)
        yield page, titles_fit(page, TERMS)
    finally:
        context.close()


def test_a_chart_taken_away_stops_watching_its_width(screens, server_url):
    """The four-terms chart watches its width while it is shown; once another chapter takes it away, its observer
    is disconnected (ui/live_chart.js: unwatch), and a resize after that draws nothing into it."""
    with terms_chapter(screens, server_url) as (page, _):
        chart = page.locator(".st-key-at_terms_chart .live-chart").element_handle()
        assert chart.evaluate("gd => Boolean(gd.widthWatch)")
        fitted = chart.evaluate("gd => gd.fittedWidth")
        pick(page, "1. Every scheme")
        page.wait_for_function("gd => !gd.isConnected && !gd.widthWatch", arg=chart)
        page.set_viewport_size(SIZES[0])
        # the new chapter's charts are refitted to the phone, after the same wait as any refit
        titles_fit(page, VIEWS["the attention page's schemes"][1])
        assert chart.evaluate("gd => gd.fittedWidth") == fitted  # the chart taken away was not


def test_a_chart_left_full_screen_is_drawn_at_its_box_width_again(screens, server_url):
    """Full screen (the live chart's modebar button) draws the chart at the screen's size; back in its column, it is
    drawn at the column's width again, its title as at first. The button's relayout of the height once fixed the
    width at the screen's, and the chart stayed 1280 px wide in an 820 px box, cut off at the right."""
    with terms_chapter(screens, server_url) as (page, first):
        chart = page.locator(".st-key-at_terms_chart .live-chart")
        chart.hover()  # plotly shows its modebar on hover
        chart.locator(".modebar-btn[data-title='Full screen']").click()
        page.wait_for_function(
            "gd => document.fullscreenElement === gd && gd._fullLayout.width === innerWidth", arg=chart.element_handle()
        )
        page.evaluate("document.exitFullscreen()")
        page.wait_for_function("document.fullscreenElement === null")
        titles_fit(page, TERMS, first)


# each panel title of a chart (an annotation): its text, its lines and its font size in px
PANELS = """gd => [...gd.querySelectorAll('.annotation-text')].map((t) =>
  [t.textContent, t.querySelectorAll('tspan.line').length || 1, parseFloat(t.style.fontSize)])"""


def test_panel_titles_side_by_side_fit_their_panels_on_a_phone_and_are_as_sent_when_wide_again(screens, server_url):
    """The four-terms chart's five panel titles (16 px, one line each at a laptop's width) ran into one another on a
    phone (issue 41's review). There each takes at most two lines, broken after its hyphen, all in one smaller size,
    no two titles overlapping (labtools/layout.js); widened again, they are as the figure sent them."""
    with terms_chapter(screens, server_url) as (page, _):
        chart = page.locator(".st-key-at_terms_chart .live-chart").element_handle()
        sent = chart.evaluate(PANELS)
        assert len(sent) == 5 and {(lines, size) for _, lines, size in sent} == {(1, 16)}, sent
        page.set_viewport_size(SIZES[0])
        page.wait_for_function("gd => gd.fittedWidth === gd.clientWidth && gd.panelsFitted", arg=chart)
        assert_layout(page, steady=True)
        fitted = chart.evaluate(PANELS)
        assert [text.replace(" ", "") for text, *_ in fitted] == [text.replace(" ", "") for text, *_ in sent]
        assert {lines for _, lines, _ in fitted} <= {1, 2} and 2 in {lines for _, lines, _ in fitted}, fitted
        assert len({size for *_, size in fitted}) == 1 and fitted[0][2] < 16, fitted
        page.set_viewport_size(WIDE)
        page.wait_for_function("gd => gd.fittedWidth === gd.clientWidth && !gd.panelsFitted", arg=chart)
        assert chart.evaluate(PANELS) == sent
