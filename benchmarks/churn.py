"""A day-long class: learners come and go, and the server's memory must level off.

N simulated learners at a time (loadtest/protocol.py: Streamlit's own websocket protocol, no browser), each
opening one page, making a few reruns and leaving, until SESSIONS sessions have been made across every page
(overview, positional_encoding, word_embeddings, embedding_space, learned_vs_sinusoidal, input_layer, rotary,
in turn). A rerun moves the page's main control to one of a few values (so its cached results fill up and stop
growing, as in a class), or reruns the page as it is where a page has none. One server, started as the README
starts it (labtools/server.py: start_server), or --url/--pid for one already running.

It samples the server's RSS every second and prints it every --every sessions, then after the server has
dropped the disconnected sessions (Streamlit keeps one for server.disconnectedSessionTTL, 120 s), and says
whether RSS plateaus: the growth over the second half of the sessions, per session, against the first half's.

Run (under the machine's benchmark lock):
    flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/churn.py [--sessions 2000] [--concurrent 20]
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from labtools.server import free_port, start_server  # noqa: E402
from loadtest.protocol import Element, Session  # noqa: E402

TTL_S = 120  # Streamlit's server.disconnectedSessionTTL: how long a closed tab's session is kept
WORDS = "the cat sat on a mat while king and queen walked to paris".split()


def _one_of(values: list[Any]) -> Callable[[Element, random.Random], Any]:
    return lambda widget, rng: rng.choice(values)


# page (URL path) -> (the control's key, its next value); None: rerun the page as it is. A few values each, so
# the pages' caches of results (bounded by max_entries) fill during the first sessions, as in a class.
CONTROLS: dict[str, tuple[str, Callable[[Element, random.Random], Any]] | None] = {
    "": None,  # the overview has no control
    "positional_encoding": ("pe_d_model", _one_of([32, 64, 128, 256])),
    "word_embeddings": ("we_nn_k", _one_of([5, 10, 15, 20])),
    "embedding_space": ("es_k", _one_of([5, 10, 15])),
    "learned_vs_sinusoidal": ("lv_test_len", _one_of([32, 48, 64])),
    "input_layer": ("il_sentence", lambda widget, rng: " ".join(rng.sample(WORDS, 4))),
    "rotary": ("rp_base", _one_of(["10000", "500000", "1000000"])),
}


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


class Sampler(threading.Thread):
    """The server's RSS (kB) every `interval` seconds, with the sessions finished by then."""

    def __init__(self, pid: int, interval: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.samples: list[tuple[float, int, int]] = []  # (seconds since start, sessions done, rss kB)
        self.done = 0
        self.started = time.monotonic()
        self._stop = threading.Event()

    def run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def sample(self) -> int:
        rss = rss_kb(self.pid)
        self.samples.append((time.monotonic() - self.started, self.done, rss))
        return rss

    def stop(self) -> None:
        self._stop.set()


def learner(
    base: str,
    pages: Any,
    reruns: int,
    rng: random.Random,
    sampler: Sampler,
    lock: threading.Lock,
    errors: list[str],
    budget: Callable[[], bool],
) -> None:
    """Sessions one after another while the budget allows: open a page, rerun it `reruns` times, leave."""
    while budget():
        with lock:
            page = next(pages)
        try:
            with Session.open(base, page) as session:
                found = list(session.last_open.errors if session.last_open else [])
                control = CONTROLS[page]
                for _ in range(reruns):
                    if control is None:
                        result = session.rerun()
                    else:
                        widget = session.widget(control[0])
                        result = session.set(widget, control[1](widget, rng))
                    found += result.errors
        except Exception as err:  # a failed session is counted and reported, and the churn goes on
            found = [f"{type(err).__name__}: {err}"]
        with lock:
            errors += [f"{page or 'overview'}: {e}" for e in found]
            sampler.done += 1


def slope(samples: list[tuple[float, int, int]], first: int, last: int) -> float:
    """RSS growth per session (kB), the least-squares slope of RSS against sessions done over [first, last]."""
    points = [(done, rss) for _, done, rss in samples if first <= done <= last]
    if len(points) < 2:
        return 0.0
    mx = sum(d for d, _ in points) / len(points)
    my = sum(r for _, r in points) / len(points)
    var = sum((d - mx) ** 2 for d, _ in points)
    return sum((d - mx) * (r - my) for d, r in points) / var if var else 0.0


def mean_rss(samples: list[tuple[float, int, int]], first: int, last: int) -> float:
    """The mean of the RSS samples (MiB) taken while sessions first..last were being made."""
    values = [rss for _, done, rss in samples if first <= done <= last]
    return sum(values) / len(values) / 1024 if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--concurrent", type=int, default=20, help="learners at a time")
    parser.add_argument("--reruns", type=int, default=3, help="reruns per session after opening the page")
    parser.add_argument("--every", type=int, default=200, help="print RSS every this many sessions")
    parser.add_argument("--ttl", type=int, default=TTL_S, help="the server's disconnectedSessionTTL (s)")
    parser.add_argument("--url", help="a server already running (then --pid too); default: start one")
    parser.add_argument("--pid", type=int, help="that server's process id, for its RSS")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    server = None
    if args.url:
        base, pid = args.url, args.pid
    else:
        port = free_port()
        server = start_server(port)
        base, pid = f"http://127.0.0.1:{port}", server.pid
    try:
        sampler = Sampler(pid)
        print(f"server pid {pid}: RSS {sampler.sample() / 1024:.0f} MiB at start")
        sampler.start()
        pages = itertools.cycle(CONTROLS)
        lock = threading.Lock()
        errors: list[str] = []
        begun = itertools.count()
        budget = lambda: next(begun) < args.sessions  # noqa: E731  (itertools.count is thread-safe under the GIL)
        threads = [
            threading.Thread(
                target=learner,
                args=(base, pages, args.reruns, random.Random(args.seed + i), sampler, lock, errors, budget),
                daemon=True,
            )
            for i in range(args.concurrent)
        ]
        for thread in threads:
            thread.start()
        printed = 0
        print(f"{'sessions':>8} {'seconds':>8} {'RSS MiB':>8} {'mean':>8} {'errors':>7}   (mean: over the block)")
        while any(t.is_alive() for t in threads):
            time.sleep(0.5)
            while sampler.done >= printed + args.every:
                printed += args.every
                now, block = sampler.sample(), mean_rss(sampler.samples, printed - args.every, printed)
                print(
                    f"{printed:>8} {time.monotonic() - sampler.started:>8.0f} {now / 1024:>8.0f} {block:>8.0f} "
                    f"{len(errors):>7}",
                    flush=True,
                )
        end_rss = sampler.sample()
        print(
            f"{sampler.done:>8} {time.monotonic() - sampler.started:>8.0f} {end_rss / 1024:>8.0f} {'':>8} "
            f"{len(errors):>7}  (all sessions closed)"
        )
        wait = args.ttl + 15
        print(f"waiting {wait} s for the server to drop the disconnected sessions ...", flush=True)
        time.sleep(wait)
        after = sampler.sample()
        sampler.stop()
        n = sampler.done
        first, second = slope(sampler.samples, n // 10, n // 2), slope(sampler.samples, n // 2, n)
        print(f"after the TTL: RSS {after / 1024:.0f} MiB ({(after - end_rss) / 1024:+.0f} MiB)")
        print(
            f"RSS growth per session (least-squares slope): {first:.1f} kB over sessions {n // 10}-{n // 2}, "
            f"{second:.1f} kB over {n // 2}-{n}; mean RSS {mean_rss(sampler.samples, n // 4, n // 2):.0f} MiB "
            f"over sessions {n // 4}-{n // 2}, {mean_rss(sampler.samples, 3 * n // 4, n):.0f} MiB over {3 * n // 4}-{n}"
        )
        # Plateaus: the second half's trend adds at most 2 kB a session (4 MiB over 2,000), or a quarter of the first's.
        flat = second <= 2.0 or second <= first / 4
        print(f"plateaus: {'yes' if flat else 'no'}; {len(errors)} errors in {n} sessions")
        for error in errors[:10]:
            print("  ", error[:300])
    finally:
        if server is not None:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
