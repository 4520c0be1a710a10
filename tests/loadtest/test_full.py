"""A simulated learner told that the lab is full (deploy/503.http through the real HAProxy) knows it: LabFull, the
answer benchmarks/capacity.py counts apart from errors, never a generic failure."""

import pytest

from loadtest.protocol import LabFull, ProtocolError, Session
from tests.browser.harness import free_port
from tests.browser.replicas import start_proxy


def test_a_learner_told_the_lab_is_full_raises_lab_full():
    proxy, url = start_proxy([f"127.0.0.1:{free_port()}"])  # no replica up: the proxy's "full" page
    try:
        with pytest.raises(LabFull):
            Session.open(url, "positional_encoding")
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)
    assert issubclass(LabFull, ProtocolError)  # a caller that knows only ProtocolError still stops
