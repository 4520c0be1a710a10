"""The browser tests. What they share with the benchmarks and scripts (a server, Chromium, a learner's moves, the
layout check) is labtools; what only the browser tests share is here."""

import pytest

from labtools.browser import MODES


def walks(mode: str):
    """A page's walk, on a laptop's window and in one more mode of labtools.browser.MODES: "presenter" (presenter
    mode, the layout checked after every move at 1024 x 768 and 1920 x 1080) or "touch" (a touch screen, checked after
    every move on a phone, 390 x 844, and a tablet, 768 x 1024). The `page` fixture (tests/conftest.py) opens the page
    in the mode and checks after each move. Each page's walk takes one of the two, half the pages each (CI's time:
    a walk in a mode costs about twice a laptop's, two sizes checked after each move); tests/browser/test_screens.py
    opens every page and chapter on all four screens."""
    assert mode in MODES and mode != "laptop", mode
    return pytest.mark.parametrize("page", ["laptop", mode], indirect=True)


# the PE table's window: the first chart's z as plotly decoded it (the figure carries it in base64)
HEATMAP_SHAPE = "(z => z.length + ', ' + z[0].length)(document.querySelector('.js-plotly-plot')._fullData[0].z)"
HEATMAP_Y0 = "document.querySelector('.js-plotly-plot').data[0].y0"
