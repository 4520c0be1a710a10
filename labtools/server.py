"""Start the lab's server as it is deployed, on a free port, and wait until it answers.

port = free_port()
proc = start_server(port)          # `python serve.py` (as scripts/run.sh serves) with serving.env's environment
...
proc.terminate()
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVING_ENV = ROOT / "serving.env"


def read_env(path: Path = SERVING_ENV) -> dict[str, str]:
    """The NAME=value lines of an env file (comments and blank lines skipped), in order."""
    out = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        if not sep or not name.isidentifier():
            raise ValueError(f"{path}:{number}: not NAME=value: {line!r}")
        out[name] = value
    return out


# What scripts/run.sh and the Dockerfile set for the server (serving.env), so tests and benchmarks run what is
# deployed.
SERVER_ENV = read_env()


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (another process may still take it before a server binds it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_health(url: str, proc: subprocess.Popen | None = None, timeout: float = 60) -> None:
    """Return once `url`/_stcore/health answers 200; raise RuntimeError if `proc` exits first or `timeout` s pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode} before {url}/_stcore/health answered")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)  # polling: the port is not open yet, and a refused connection returns at once
    raise RuntimeError(f"{url}/_stcore/health did not answer within {timeout:.0f} s")


def server_command(port: int, script: str = "serve.py", base: str = "") -> list[str]:
    """The command line of a server on 127.0.0.1:port: the lab as scripts/run.sh and the image serve it
    (serve.command), or a benchmark's own page `script` by `streamlit run <script>`; below the path `base` ("lab":
    server.baseUrlPath) if one is given."""
    from serve import command

    options = ["--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true"]
    options += ["--server.baseUrlPath", base] if base else []
    if script == "serve.py":
        return command(sys.executable, *options)
    return [sys.executable, "-m", "streamlit", "run", script, *options]


def start_server(port: int, env: dict | None = None, script: str = "serve.py", base: str = "") -> subprocess.Popen:
    """Start server_command(port, script, base) with SERVER_ENV (and `env` over it); returns once
    [/base]/_stcore/health answers, or kills it and raises RuntimeError after 60 s."""
    cmd = server_command(port, script, base)
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env={**os.environ, **SERVER_ENV, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_health(f"http://127.0.0.1:{port}" + (f"/{base.strip('/')}" if base else ""), proc)
    except RuntimeError:
        proc.kill()
        raise
    return proc


@contextlib.contextmanager
def serving(env: dict | None = None, base: str = "") -> Iterator[str]:
    """The lab served on a free port for the block (start_server), its URL (with the path `base`, if given: the
    server's baseUrlPath); stopped after it, killed if a job's worker thread keeps it from ending within 60 s."""
    port = free_port()
    proc = start_server(port, env, base=base)
    try:
        yield f"http://127.0.0.1:{port}" + (f"/{base.strip('/')}" if base else "")
    finally:
        stop(proc, timeout=60)


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    """End a server (or the proxy): SIGTERM, then SIGKILL if it has not ended within `timeout` seconds (a job's
    worker thread can hold it)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
