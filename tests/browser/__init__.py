"""The browser tests. What they share with the benchmarks and scripts (a server, Chromium, a learner's moves, the
layout check) is labtools; what only the browser tests share is here."""

import functools

import pytest

import lessons
from labtools.browser import MODES, views_checked_wide
from ui.pages import LESSONS, OVERVIEW


def walks(test):
    """A page's walk, once in each mode of labtools.browser.MODES: on a laptop's window; in presenter mode at
    1024 x 768; on a touch screen, a phone of 390 x 844. The `page` fixture (tests/conftest.py) opens the page in the
    mode and checks the layout after every move at the mode's first screen (labtools.browser.check_after_moves).
    On the mode's second screen (1920 x 1080, a tablet) the page is opened and each new view checked, then narrowed
    to the first (labtools.browser.check_views_wide); once the walk has ended, every chapter of the page must have
    been checked there."""

    @functools.wraps(test)
    def walk(**fixtures):
        test(**fixtures)
        checked = views_checked_wide(fixtures["page"])
        if checked is not None:  # None: a laptop's window, one screen
            home, seen = checked
            assert home is not None, "the walk opened no page on the wider screen"
            wanted = {(home, None), *((home, chapter) for chapter in chapters_at(home)[1:])}
            assert wanted <= seen, f"not checked on the wider screen: {sorted(wanted - seen, key=str)}"

    return pytest.mark.parametrize("page", list(MODES), indirect=True)(walk)


def chapters_at(path: str) -> tuple[str, ...]:
    """The chapters of the page at the address path `path` ("/" the overview), read from its declaration; () for a
    page without chapters, or an address that is no page's."""
    folder = path.strip("/") or OVERVIEW.folder
    pages = {OVERVIEW.folder, *(lesson.folder for lesson in LESSONS.values())}
    return lessons.chapters(folder) if folder in pages else ()


# the PE table's window: the first chart's z as plotly decoded it (the figure carries it in base64)
HEATMAP_SHAPE = "(z => z.length + ', ' + z[0].length)(document.querySelector('.js-plotly-plot')._fullData[0].z)"
HEATMAP_Y0 = "document.querySelector('.js-plotly-plot').data[0].y0"
