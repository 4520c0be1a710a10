#!/usr/bin/env python3
"""The image's HEALTHCHECK: GET /_stcore/health on the port the server was started with.

Docker runs the check as a process of its own, which sees neither the server's arguments nor what the entry
point exported. So it reads them from the `streamlit run` process in /proc: its last `--server.port` (an
argument after the image name overrides the entry point's), else its STREAMLIT_SERVER_PORT, else 8501; the
same for `--server.baseUrlPath`.

Exit status 0 when the server answers 200 (it serves), 1 otherwise: "healthy" means a learner sent there is
served. While the process warms up (scripts/warm_up.py keeps its marker file until the port opens) the check fails
saying "starting" and the step it is on; the start period (START_PERIOD_S, the same in the Dockerfile, compose, the
swarm stack and Kubernetes' startup probe) covers the longest warm-up measured under load with a margin, so a
replica is never marked unhealthy, and so never killed, for warming up.
"""

from __future__ import annotations

import os
import sys
import time
import urllib.request
from pathlib import Path

DEFAULT_PORT = 8501
# The warm-up's worst case measured (docs/deploy.md, "Starting"): 525 s from `docker run` to serving on a 2-core
# host at load 17-37 (issue 50). The image's and the orchestrators' start periods are START_PERIOD_S
# (tests/deploy/test_docker.py checks each).
WARM_UP_WORST_S = 525
START_PERIOD_S = 900


def warm_up_marker(pid: int, environ: dict[str, str]) -> Path:
    """The file scripts/warm_up.py keeps while process `pid` warms up (in its TMPDIR), holding the step it is on."""
    return Path(environ.get("TMPDIR") or "/tmp") / f"emblab-warm-up.{pid}"


def warming_up(pid: int, environ: dict[str, str], now: float | None = None) -> str | None:
    """What the check says while process `pid` warms up ("starting: ..."), None when it is not warming up.

    The marker holds the time the warm-up started, then the step it is on (scripts/warm_up.py writes it).
    """
    try:
        started, _, step = warm_up_marker(pid, environ).read_text().partition("\n")
        age = (time.time() if now is None else now) - float(started)
    except (OSError, ValueError):
        return None
    step = step.strip()
    return f"starting: warming up for {age:.0f} s{', ' + step if step else ''}"


def server_option(argv: list[str], environ: dict[str, str], name: str, default: str) -> str:
    """The value Streamlit takes for `--server.<name>`: the last one on the command line, else its
    STREAMLIT_SERVER_<NAME> variable, else the default."""
    flag = f"--server.{name}"
    value = None
    for i, arg in enumerate(argv):
        if arg.startswith(flag + "="):
            value = arg.split("=", 1)[1]
        elif arg == flag and i + 1 < len(argv):
            value = argv[i + 1]
    if value is not None:
        return value
    # baseUrlPath -> STREAMLIT_SERVER_BASE_URL_PATH, port -> STREAMLIT_SERVER_PORT
    snake = "".join("_" + c if c.isupper() else c.upper() for c in name)
    return environ.get(f"STREAMLIT_SERVER_{snake}", default)


def streamlit_process(proc: Path = Path("/proc")) -> tuple[int, list[str], dict[str, str]] | None:
    """The pid, arguments and environment of the first process this user can read that serves the lab:
    `python serve.py ...` (serve.command), or `streamlit run ...`."""
    for pid in sorted((p for p in proc.iterdir() if p.name.isdigit()), key=lambda p: int(p.name)):
        try:
            argv = [a.decode() for a in (pid / "cmdline").read_bytes().split(b"\0") if a]
            serves = any(Path(a).name == "serve.py" for a in argv[1:2])
            if not serves and (not any(Path(a).name == "streamlit" for a in argv) or "run" not in argv):
                continue
            pairs = (e.decode().split("=", 1) for e in (pid / "environ").read_bytes().split(b"\0") if b"=" in e)
            return int(pid.name), argv, dict(pairs)
        except OSError:  # gone, or another user's
            continue
    return None


def health_url(argv: list[str], environ: dict[str, str]) -> str:
    port = server_option(argv, environ, "port", str(DEFAULT_PORT))
    base = server_option(argv, environ, "baseUrlPath", "").strip("/")
    return f"http://127.0.0.1:{port}/{base + '/' if base else ''}_stcore/health"


def check(pid: int, argv: list[str], environ: dict[str, str]) -> tuple[int, str]:
    """The exit status and what to say for the server process `pid` started with `argv` and `environ`."""
    try:
        with urllib.request.urlopen(health_url(argv, environ), timeout=4) as answer:
            if answer.status == 200:
                return 0, "healthy"
            problem = f"HTTP {answer.status}"
    except OSError as err:
        problem = str(err)
    starting = warming_up(pid, environ) if pid else None
    return 1, starting or problem  # its port opens once the warm-up is done: not serving yet


def main() -> int:
    pid, argv, environ = streamlit_process() or (0, [], dict(os.environ))
    status, said = check(pid, argv, environ)
    print(f"emblab-health: {said}", file=sys.stderr if status else sys.stdout)
    return status


if __name__ == "__main__":
    sys.exit(main())
