import shutil
import sys
from pathlib import Path

import pytest
from streamlit import cache_resource
from streamlit.testing.v1 import AppTest

from tests.app import APP
from tests.fixtures import FIXTURES


@pytest.fixture
def open_page():
    """open_page("lessons/x.py") -> an AppTest that has run the app on that page."""

    def _open(page: str) -> AppTest:
        app = AppTest.from_file(APP, default_timeout=60)
        app.switch_page(page).run()  # the page's own first run, as a link to it opens it (not the overview's first)
        assert not app.exception, app.exception
        return app

    return _open


@pytest.fixture
def vectors_folder(tmp_path, monkeypatch) -> Path:
    """The configured vectors folder, holding the tiny GloVe fixture as tiny.txt (15 words x 4 dimensions)."""
    shutil.copy(FIXTURES / "tiny_glove.4d.txt", tmp_path / "tiny.txt")
    monkeypatch.setenv("EMBLAB_VECTORS_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def uninstall(monkeypatch):
    """uninstall("module"): from here on its import fails as if it were not installed, and nothing cached by an
    earlier run (the bundled vectors, a model's tables) hides that."""

    def _uninstall(module: str) -> None:
        monkeypatch.setitem(sys.modules, module, None)
        cache_resource.clear()

    return _uninstall
