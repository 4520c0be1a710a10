"""Debian's redis-server on a free 127.0.0.1 port, for the class store (core.classroom.RedisStore): what the class
tests and benchmarks start instead of a Redis service.

    with redis_server(tmp_path) as server:
        env = {"EMBLAB_CLASS_STORE": server.url}
        server.stop(); server.start()   # the store down, then back with what it held (append-only file)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from labtools.server import free_port, stop


def redis_binary() -> str:
    """Debian's redis-server (scripts/install_dev.sh installs it); EMBLAB_REDIS names another."""
    path = os.environ.get("EMBLAB_REDIS") or shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(path).exists():
        raise RuntimeError(f"{path} is missing: install Debian's redis-server (scripts/install_dev.sh does).")
    return path


@dataclass
class RedisServer:
    """A redis-server on `port`, its data in `folder` (append-only, so a stop and start keeps every class)."""

    folder: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20) -> None:
        """Start it (again, on the same port and files); returns once it answers PING."""
        self.proc = subprocess.Popen(
            [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder),
             "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)  # polling: the port is not open yet, and a refused connection returns at once
        self.stop()
        raise RuntimeError(f"redis-server did not answer PING within {timeout:.0f} s")

    def stop(self) -> None:
        """Stop it (SIGTERM: it writes what it holds and ends)."""
        if self.proc is not None:
            stop(self.proc)
            self.proc = None


@contextlib.contextmanager
def redis_server(folder: Path) -> Iterator[RedisServer]:
    """A RedisServer started for the block, stopped after it."""
    server = RedisServer(Path(folder))
    server.start()
    try:
        yield server
    finally:
        server.stop()
