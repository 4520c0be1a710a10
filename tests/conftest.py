import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

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


# Hypothesis: CI runs a fixed set of examples (derandomized, no example database); `HYPOTHESIS_PROFILE=long` by
# hand runs twenty times as many, new ones each time, and keeps the failures it found in .hypothesis/ (not in git).
# A test whose examples are slow takes a share of max_examples (tests/app/test_link_fuzz.py).
settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, print_blob=True, max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
settings.register_profile("long", deadline=None, print_blob=True, max_examples=2000,
    suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
