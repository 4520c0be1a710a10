"""Server CPU per page open: what a learner's first view of each page costs, every value already cached.

    flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/page_open.py [--opens 10] [--profile DIR]

A page open is a full run of app.py and the page for a new session (its widgets, every figure sent whole), the
cost a class pays when 100 learners open their pages within seconds (benchmarks/capacity.py --open-within).
For each page: one open to fill the caches, then `--opens` new sessions opened one after another (each closed
before the next), the server process's CPU (user + system, every thread, /proc/<pid>/stat) read around them,
the idle rate subtracted. Servers start as labtools.server.start_server starts them (the environment of
scripts/run.sh). `--profile DIR` also records the opens with py-spy (`--gil`), one file per page.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.cpu_per_move import cpu_seconds, summarise  # noqa: E402
from labtools.server import free_port, start_server  # noqa: E402
from loadtest.protocol import Session  # noqa: E402

PAGES = ("positional_encoding", "word_embeddings", "rotary", "input_layer", "attention", "embedding_space",
         "real_transformer")  # fmt: skip


def opens(url: str, page: str, n: int) -> float:
    """Wall seconds of `n` opens of `page`, one after another."""
    start = time.perf_counter()
    for _ in range(n):
        with Session.open(url, page) as session:
            result = session.last_open
            assert result is not None and result.ok, (page, result)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opens", type=int, default=10, help="measured opens per page")
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--profile", type=Path, help="also profile each page's opens with py-spy here")
    args = parser.parse_args()
    port = free_port()
    server = start_server(port)
    url = f"http://127.0.0.1:{port}"
    try:
        time.sleep(3)
        idle_start = cpu_seconds(server.pid)
        time.sleep(3)
        idle_rate = (cpu_seconds(server.pid) - idle_start) / 3
        print(f"Server CPU per page open, {args.opens} opens per page, caches warm (idle {1000 * idle_rate:.1f} ms/s):")
        for page in args.pages.split(","):
            opens(url, page, 1)  # the caches filled, the page's modules imported
            before = cpu_seconds(server.pid)
            wall = opens(url, page, args.opens)
            time.sleep(0.5)
            cpu = cpu_seconds(server.pid) - before - idle_rate * (wall + 0.5)
            print(
                f"{page:>20}  {1000 * cpu / args.opens:7.1f} ms CPU/open  wall {1000 * wall / args.opens:6.0f} ms/open"
            )
            if args.profile:
                args.profile.mkdir(parents=True, exist_ok=True)
                out = args.profile / f"{page}.txt"
                spy = subprocess.Popen(
                    [str(Path(sys.executable).with_name("py-spy")), "record", "--gil", "--format", "raw", "--output",
                     str(out), "--pid", str(server.pid), "--rate", "200"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                )  # fmt: skip
                time.sleep(1.5)  # py-spy attaches
                opens(url, page, args.opens)
                spy.send_signal(2)  # SIGINT: py-spy writes what it sampled
                spy.wait(timeout=60)
                print(summarise(out.read_text(), args.opens, 200, top=12))
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    main()
