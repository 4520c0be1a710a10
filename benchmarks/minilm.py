"""The "Inside a real Transformer" page's costs: MiniLM's forward pass, and the server CPU one move of its main
control takes.

1. In this process, one thread per torch op (OMP_NUM_THREADS=1, as scripts/run.sh and the image run the server), on
   cpu (and on cuda when there is one): core.minilm.forward on a 32-token sentence ([CLS], 30 pieces, [SEP]), the
   median of --repeats runs after a warm-up; the same in float64 (the page's equivariance check); chapter 2's work
   for it (probes.take_positions_away: four runs, two float64 runs); the 40 shipped sentences' head profile.
2. A real server (labtools.server.start_server, as deployed) and one learner speaking Streamlit's own protocol
   (loadtest.protocol.Session, no browser) on the page: each row's control is moved through its values once to warm
   the caches (as a class does: everyone moves the same few heads), then --moves times more. Printed: the server's
   CPU per move (/proc/<pid>/stat, user + system, over those moves) and the median rerun time as the learner sees it
   (BackMsg to script_finished). The head boxes sit in st.fragment sections, so a move reruns the section alone.

Run: flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/minilm.py [--repeats 20] [--moves 60]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one CPU thread per torch op, as the server runs

import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.attention import median_ms  # noqa: E402
from core import minilm, probes  # noqa: E402
from labtools.server import free_port, start_server  # noqa: E402
from loadtest.protocol import Session  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
GOAL_MS = 40.0  # server CPU per move of a page's main control, cached settings (the class goal of the other pages)
SENTENCE = "The quick brown fox jumps over the lazy dog while the children watch from the old wooden bridge near the river and their parents talk about the long cold winter"  # noqa: E501
# (page query, control, values a learner moves it through): the main control first
CONTROLS = [
    ("", "tf_head", [4, 9, 3, 10, 12, 1]),
    ("tf_chapter=positions", "tf_head", [4, 9, 3, 10, 12, 1]),
    ("tf_chapter=positions", "tf_seed", [1, 2, 3, 0]),
]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used, its threads included (benchmarks/capacity.py's, without Locust)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def forward_rows(model: minilm.MiniLM, repeats: int, device: torch.device) -> None:
    encoded = minilm.encode(model, SENTENCE)
    assert len(encoded) == 32, len(encoded)
    ids, types = encoded.ids.to(device), encoded.type_ids.to(device)
    sync = torch.cuda.synchronize if device.type == "cuda" else lambda: None

    def timed(fn):
        return median_ms(lambda: (fn(), sync()), repeats)

    def cpu_ms(fn):  # this process's CPU time per call: what the machine's other load does not inflate
        start = time.process_time()
        for _ in range(repeats):
            fn()
        return (time.process_time() - start) / repeats * 1000

    wall = timed(lambda: minilm.forward(model, ids, types))
    cpu = cpu_ms(lambda: minilm.forward(model, ids, types)) if device.type == "cpu" else float("nan")
    print(f"{device.type}: forward, 32 tokens, float32: {wall:.1f} ms (median wall), {cpu:.1f} ms CPU per call")
    double = timed(lambda: minilm.forward(model, ids, types, dtype=torch.float64))
    print(f"{device.type}: forward, 32 tokens, float64 (the equivariance check's): {double:.1f} ms")
    on_device = minilm.Encoded(encoded.tokens, ids, types, encoded.words, encoded.segments)
    taken = timed(lambda: probes.take_positions_away(model, on_device, 0))
    print(f"{device.type}: chapter 2 for it (4 runs + 2 in float64): {taken:.1f} ms")
    sentences = probes.read_sentences()
    profile = median_ms(lambda: probes.offset_profile(probes.run_sentences(model, sentences)), max(1, repeats // 10))
    print(f"{device.type}: the {len(sentences)} shipped sentences' head profile (once per server): {profile:.0f} ms")


def move_rows(moves: int) -> None:
    port = free_port()
    server = start_server(port)
    try:
        base = f"http://127.0.0.1:{port}"
        for query, control, values in CONTROLS:
            with Session.open(base, "real_transformer", query, timeout=120) as session:
                for value in values:  # warm: every value once
                    result = session.set(control, value)
                    assert result.ok, result.errors
                times, start = [], cpu_seconds(server.pid)
                for i in range(moves):
                    result = session.set(control, values[i % len(values)])
                    assert result.ok, result.errors
                    times.append(result.seconds)
                cpu = (cpu_seconds(server.pid) - start) / moves * 1000
            where = query or "tf_chapter=heads"
            print(
                f"server CPU per move, {control} ({where}): {cpu:.1f} ms;"
                f" rerun median {statistics.median(times) * 1000:.1f} ms ({moves} moves)"
            )
    finally:
        server.terminate()
        server.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--no-server", action="store_true", help="the forward pass's rows alone")
    args = parser.parse_args()
    start = time.perf_counter()
    model = minilm.load_minilm()
    print(
        f"load all-MiniLM-L6-v2 (safetensors): {time.perf_counter() - start:.1f} s, torch threads {torch.get_num_threads()}"
    )
    forward_rows(model, args.repeats, torch.device("cpu"))
    if torch.cuda.is_available():
        forward_rows(minilm.load_minilm(device=torch.device("cuda")), args.repeats, torch.device("cuda"))
    if not args.no_server:
        move_rows(args.moves)
        print(f"Goal: at most {GOAL_MS:.0f} ms of server CPU per move of the main control (the first row).")


if __name__ == "__main__":
    main()
