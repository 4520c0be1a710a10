import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def server_url():
    """A real `streamlit run` server, started as the README starts it, shared by the browser and load tests."""
    from tests.browser.harness import free_port, start_server

    port = free_port()
    proc = start_server(port)
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=20)


# Hypothesis: CI runs a fixed, derandomized set of examples without an example database; by hand,
# HYPOTHESIS_PROFILE=long searches much longer (and keeps what fails in .hypothesis/, which git ignores).
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("long", max_examples=2000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
