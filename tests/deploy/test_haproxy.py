"""deploy/haproxy.cfg is valid for HAProxy (`haproxy -c`) in both its setups: servers found by Docker's DNS
(compose, swarm) and servers named by EMBLAB_SERVER_n (the host, labtools/replicas.py)."""

import os
import subprocess

import pytest

from labtools.replicas import HAPROXY_CFG, haproxy_binary
from labtools.server import ROOT


def check(env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("EMBLAB_")}
    return subprocess.run(
        [haproxy_binary(), "-c", "-f", str(HAPROXY_CFG)], env={**clean, **env}, capture_output=True, text=True
    )


@pytest.mark.parametrize(
    "env",
    [{}, {"EMBLAB_SERVER_1": "127.0.0.1:8601", "EMBLAB_SERVER_2": "127.0.0.1:8602"}],
    ids=["dns", "host"],
)
def test_haproxy_accepts_the_configuration(env):
    result = check(env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Configuration file is valid" in result.stdout + result.stderr


def test_haproxy_refuses_a_broken_copy(tmp_path):
    broken = tmp_path / "haproxy.cfg"
    broken.write_text(HAPROXY_CFG.read_text().replace("balance leastconn", "balance sideways"))
    (tmp_path / "503.http").write_bytes((ROOT / "deploy" / "503.http").read_bytes())
    result = subprocess.run([haproxy_binary(), "-c", "-f", str(broken)], capture_output=True, text=True)
    assert result.returncode != 0


def test_the_503_page_is_a_whole_http_response():
    page = (ROOT / "deploy" / "503.http").read_bytes()
    assert page.startswith(b"HTTP/1.0 503 ") and b"\n\n<!doctype html>" in page.replace(b"\r\n", b"\n")
    assert (
        b"The lab is full" in page and "实验室已满".encode() in page and len(page) < 16_384
    )  # HAProxy's buffer holds it whole
