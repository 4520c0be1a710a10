"""Page loads under a burst of background work (issue 55, item 7): 15 sessions start work of their own, 8 of them a
BPE training (Text to tokens, the shared "tokens" queue) and 7 a map (the embedding space's t-SNE or UMAP, each its
own seed, the shared "projections" queue, which refuses presses past its bound as in class), while 20 learners open
another page, one every 2 s.

Each learner is loadtest.protocol's Session (Streamlit's own websocket protocol, no browser): the page's HTML
(GET) and then its first run (the websocket, to script_finished). Printed: the HTML's and the whole load's p50, p95
and slowest, loads with no answer within 30 s, and the machine's load average (the machine is shared: other work
slows the server too). The goal: a load's p95 <= 2 s.

    .venv/bin/python benchmarks/burst.py [--trainers 8] [--maps 7] [--learners 20] [--page input_layer]
                                         [--root ../main]     (serve another checkout's lab: a "before" figure)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labtools import server as lab_server  # noqa: E402
from labtools.server import free_port, start_server  # noqa: E402
from loadtest.protocol import Session  # noqa: E402


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trainers", type=int, default=8)
    parser.add_argument("--maps", type=int, default=7, help="sessions pressing Run on a t-SNE or UMAP map")
    parser.add_argument("--map-size", type=int, default=5_000, help="the maps' words (the embedding space offers it)")
    parser.add_argument("--root", type=Path, help="the checkout to serve (default: this one)")
    parser.add_argument("--learners", type=int, default=20)
    parser.add_argument("--page", default="input_layer")
    parser.add_argument("--words", type=int, default=50_000, help="each training's words (Text to tokens offers it)")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between two learners' arrivals")
    args = parser.parse_args()
    if args.root:
        lab_server.ROOT = args.root.resolve()
    port = free_port()
    server = start_server(port)
    base = f"http://127.0.0.1:{port}"
    try:
        Session.open(base, args.page).close()  # the page's imports and caches: a warm server, as in class
        Session.open(base, "text_to_tokens", "tt_words=1000&tt_merges=10").close()
        Session.open(base, "embedding_space").close()
        html, loads, failed = [], [], []
        trainers = []

        def train(i: int) -> None:
            try:  # each one a training of its own: --words words, 4,100 + i merges (the issue's)
                Session.open(base, "text_to_tokens", f"tt_words={args.words}&tt_merges={4_100 + i}").close()
            except Exception as err:  # noqa: BLE001 - counted, the burst goes on
                failed.append(f"trainer {i}: {err}")

        def draw_map(i: int) -> None:
            method = ("t-SNE", "UMAP")[i % 2]
            try:  # each one a map of its own: its seed; the session leaves once Run is pressed, as a learner may
                query = f"es_size={args.map_size}&es_method={method}&es_seed={i}"
                with Session.open(base, "embedding_space", query) as session:
                    session.set("es_run", True)
            except Exception as err:  # noqa: BLE001
                failed.append(f"map {i}: {err}")

        def learn(i: int) -> None:
            start = time.perf_counter()
            try:
                answer = requests.get(f"{base}/{args.page}", timeout=30)
                html.append(time.perf_counter() - start)
                answer.raise_for_status()
                Session.open(base, args.page).close()
                loads.append(time.perf_counter() - start)
            except Exception as err:  # noqa: BLE001
                failed.append(f"learner {i}: {err}")

        for i in range(args.trainers):
            trainers.append(threading.Thread(target=train, args=(i,)))
            trainers[-1].start()
        for i in range(args.maps):
            trainers.append(threading.Thread(target=draw_map, args=(i,)))
            trainers[-1].start()
        learners = []
        for i in range(args.learners):
            learners.append(threading.Thread(target=learn, args=(i,)))
            learners[-1].start()
            time.sleep(args.every)
        for thread in learners + trainers:
            thread.join()
        load1 = os.getloadavg()[0]
        print(f"{args.trainers} trainers, {args.maps} maps, {args.learners} learners opening {args.page}, "
              f"load average {load1:.1f}, serving {lab_server.ROOT}")  # fmt: skip
        for name, values in (("HTML", html), ("load (HTML + first run)", loads)):
            if values:
                print(f"  {name:24} p50 {statistics.median(values):6.2f} s  p95 {p95(values):6.2f} s  "
                      f"slowest {max(values):6.2f} s  ({len(values)})")  # fmt: skip
        print(f"  no answer / errors: {len(failed)}" + "".join(f"\n    {f}" for f in failed[:10]))
    finally:
        server.kill()


if __name__ == "__main__":
    main()
