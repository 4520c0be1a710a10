#!/usr/bin/env python3
"""The image's HEALTHCHECK: GET /_stcore/health on the port the server was started with.

Docker runs the check as a process of its own, which sees neither the server's arguments nor what the entry
point exported. So it reads them from the `streamlit run` process in /proc: its last `--server.port` (an
argument after the image name overrides the entry point's), else its STREAMLIT_SERVER_PORT, else 8501; the
same for `--server.baseUrlPath`. Exit status 0 when the server answers 200, 1 otherwise.
"""

from __future__ import annotations

import os
import sys
import urllib.request
from pathlib import Path

DEFAULT_PORT = 8501


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


def streamlit_process(proc: Path = Path("/proc")) -> tuple[list[str], dict[str, str]] | None:
    """The arguments and environment of the first `streamlit run` process this user can read."""
    for pid in sorted((p for p in proc.iterdir() if p.name.isdigit()), key=lambda p: int(p.name)):
        try:
            argv = [a.decode() for a in (pid / "cmdline").read_bytes().split(b"\0") if a]
            if not any(Path(a).name == "streamlit" or a == "streamlit" for a in argv) or "run" not in argv:
                continue
            pairs = (e.decode().split("=", 1) for e in (pid / "environ").read_bytes().split(b"\0") if b"=" in e)
            return argv, dict(pairs)
        except OSError:  # gone, or another user's
            continue
    return None


def health_url(argv: list[str], environ: dict[str, str]) -> str:
    port = server_option(argv, environ, "port", str(DEFAULT_PORT))
    base = server_option(argv, environ, "baseUrlPath", "").strip("/")
    return f"http://127.0.0.1:{port}/{base + '/' if base else ''}_stcore/health"


def main() -> int:
    argv, environ = streamlit_process() or ([], dict(os.environ))
    try:
        with urllib.request.urlopen(health_url(argv, environ), timeout=4) as answer:
            return 0 if answer.status == 200 else 1
    except OSError as err:
        print(f"emblab-health: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
