"""The browser tests. What they share with the benchmarks and scripts (a server, Chromium, a learner's moves, the
layout check) is labtools; what only the browser tests share is here."""

import pytest

from labtools.browser import MODES


def walks(test):
    """A page's walk, once in each mode of labtools.browser.MODES: on a laptop's window; in presenter mode at
    1024 x 768; on a touch screen, a phone of 390 x 844. The `page` fixture (tests/conftest.py) opens the page in the
    mode and checks the layout after every move at the mode's first screen (labtools.browser.check_after_moves).
    The mode's second screen (1920 x 1080, a tablet) is tests/browser/test_screens.py's: every page and chapter,
    opened there and then narrowed to the first."""
    return pytest.mark.parametrize("page", list(MODES), indirect=True)(test)


# the PE table's window: the first chart's z as plotly decoded it (the figure carries it in base64)
HEATMAP_SHAPE = "(z => z.length + ', ' + z[0].length)(document.querySelector('.js-plotly-plot')._fullData[0].z)"
HEATMAP_Y0 = "document.querySelector('.js-plotly-plot').data[0].y0"
