"""deploy/haproxy.cfg is valid for HAProxy (`haproxy -c`) in both its setups: servers found by Docker's DNS
(compose, swarm) and servers named by EMBLAB_SERVER_n (the host, labtools/replicas.py)."""

import os
import subprocess
import time

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


def test_the_proxy_says_each_event_once(tmp_path):
    """A replica down is said once (on stderr), not also on a log target (issue 50: the proxy container printed
    every line twice)."""
    from labtools.server import free_port

    out, err = tmp_path / "out", tmp_path / "err"
    env = {**os.environ, "EMBLAB_PROXY_BIND": f"127.0.0.1:{free_port()}", "EMBLAB_SERVER_1": f"127.0.0.1:{free_port()}"}
    with out.open("w") as o, err.open("w") as e:
        proxy = subprocess.Popen([haproxy_binary(), "-W", "-db", "-f", str(HAPROXY_CFG)], env=env, stdout=o, stderr=e)
    try:
        deadline = time.monotonic() + 60
        while err.read_text().count(" is DOWN") < 3 and time.monotonic() < deadline:  # its three backends
            time.sleep(0.1)  # polling a file another process writes
    finally:
        proxy.terminate()
        proxy.wait(timeout=20)
    said = out.read_text() + err.read_text()
    for backend in ("emblab", "emblab_pages", "emblab_files"):
        assert said.count(f"Server {backend}/app1 is DOWN") == 1, said
