import sys
from pathlib import Path

import pytest

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
