"""Memory of two replicas on one machine: what a second server process adds next to the first.

Starts one server as the README starts it (tests/browser/harness.py: start_server), opens every page once
(loadtest/protocol.py, no browser), then a second server and the same; then prints each process's RSS and PSS
(/proc/<pid>/smaps_rollup: PSS counts a page shared by two processes half in each) and the memory they hold
in private (what no other process maps). Read-only memory maps (the bundled GloVe matrix, its unit rows, the MiniLM tables) are shared
between the two, so the second replica's PSS is far below its RSS.

Run (under the machine's benchmark lock):
    flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/replica_memory.py
To measure another checkout (an older commit), copy this file into its benchmarks/ and run it from there with
this venv's python: the servers run that checkout's code.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from loadtest.protocol import Session  # noqa: E402
from tests.browser.harness import free_port, start_server  # noqa: E402

PAGES = [
    "",
    "positional_encoding",
    "word_embeddings",
    "embedding_space",
    "learned_vs_sinusoidal",
    "input_layer",
    "rotary",
]
FIELDS = ("Rss", "Pss", "Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty")


def memory(pid: int) -> dict[str, float]:
    """smaps_rollup's fields, in MiB."""
    out = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        if name in FIELDS:
            out[name] = int(value.split()[0]) / 1024
    return out


def visit_every_page(base: str) -> None:
    for page in PAGES:
        with Session.open(base, page, timeout=300) as session:
            errors = session.last_open.errors if session.last_open else []
            if errors:
                raise RuntimeError(f"{page or 'overview'}: {errors}")


def row(name: str, m: dict[str, float]) -> str:
    shared, private = m["Shared_Clean"] + m["Shared_Dirty"], m["Private_Clean"] + m["Private_Dirty"]
    return f"{name:<22} {m['Rss']:>8.0f} {m['Pss']:>8.0f} {shared:>8.0f} {private:>8.0f}"


def main() -> None:
    servers = []
    try:
        print(f"checkout: {ROOT}")
        header = f"{'':<22} {'RSS':>8} {'PSS':>8} {'shared':>8} {'private':>8}   (MiB)"
        for n in (1, 2):
            port = free_port()
            servers.append(start_server(port))
            started = time.monotonic()
            visit_every_page(f"http://127.0.0.1:{port}")
            print(f"replica {n}: every page opened in {time.monotonic() - started:.0f} s")
            time.sleep(2)
            if n == 1:
                print(header)
                print(row("replica 1 alone", memory(servers[0].pid)))
        first, second = memory(servers[0].pid), memory(servers[1].pid)
        print(header)
        print(row("replica 1", first))
        print(row("replica 2", second))
        private = second["Private_Clean"] + second["Private_Dirty"]
        print(
            f"the second replica: RSS {second['Rss']:.0f} MiB, PSS {second['Pss']:.0f} MiB "
            f"({second['Pss'] / second['Rss']:.0%} of its RSS), {private:.0f} MiB private (held by it alone: "
            "what it adds to the machine, besides the shared libraries' pages)"
        )
        print(
            "(PSS divides a shared page among every process that maps it, other servers from this venv included: "
            "compare the private column when other servers run)"
        )
    finally:
        for server in servers:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
