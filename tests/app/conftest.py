from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def open_page():
    """open_page("lessons/x.py") -> an AppTest that has run the app and switched to that page."""

    def _open(page: str) -> AppTest:
        app = AppTest.from_file(APP, default_timeout=60)
        app.run()
        app.switch_page(page).run()
        assert not app.exception, app.exception
        return app

    return _open
