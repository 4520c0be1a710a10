"""AppTests of the pages; APP is the app's entry point they all start from."""

import time
from pathlib import Path

from streamlit.testing.v1 import AppTest
from streamlit.util import calc_hash

APP = str(Path(__file__).resolve().parents[2] / "app.py")
_switch_page = AppTest.switch_page


def switch_page(self: AppTest, page_path: str) -> AppTest:
    """AppTest.switch_page, for a lesson folder's page.py too: st.Page serves it at the folder's name
    (ui.pages.Lesson.url_path), and before an AppTest's first run switch_page names a page by its file ("page"),
    so the run would show the overview. It is named as st.Page names it."""
    _switch_page(self, page_path)
    if Path(page_path).name == "page.py" and not self._registered_pages:
        self._page_hash = calc_hash(Path(page_path).parent.name)
    return self


AppTest.switch_page = switch_page  # type: ignore[method-assign]


def open_link(page: str, params: dict | None = None, /, **named) -> AppTest:
    """The page opened from a link with these query parameters (a dict, or named: `open_link(PAGE, rp_base="5")`)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(page)
    for name, value in {**(params or {}), **named}.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


def train_and_wait(at: AppTest, tries: int = 120) -> None:
    """Press Train on the learned-vs-sinusoidal page and rerun until its result or its error shows (it trains in
    the background): up to `tries` reruns, a quarter of a second apart."""
    at.button(key="lv_train").click().run()
    for _ in range(tries):
        if at.metric or at.error:
            return
        time.sleep(0.25)
        at.run()
    raise AssertionError(f"training did not finish in {tries} reruns")
