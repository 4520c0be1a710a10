"""A fresh process against a warm one: the first UMAP, t-SNE, Train and Evaluate, and the server's time to ready.

Part 1, core calls in fresh Python processes, made as the pages make them: UMAP and t-SNE of the 5,000 most
frequent GloVe words with the embedding-space page's defaults (cloud.project), Train's three models with the
learned-vs-sinusoidal page's defaults (training.train), Evaluate of data/analogies_small.txt at 30,000 words
(evaluate.evaluate_analogies). Each is timed twice in one process: its first call, then again (warm).
  before  UMAP as it was before the warm-up work (pynndescent's neighbours), numba's cache empty (UMAP only)
  cold    numba's cache empty and no warm-up: `streamlit run` on a machine that never ran UMAP
  warmed  numba's cache filled, then scripts/warm_up.py's warm_up: what the image's entry point does before it serves
Part 2, the real server, driven with loadtest.protocol (Streamlit's websocket protocol): seconds from the start to
the first /_stcore/health answer, the RSS then, and the first visit to each page that loads a table, then again:
  python serve.py                                numba's cache empty (as scripts/run.sh on a new machine)
  python serve.py --warm-up                      numba's cache filled (as in the image)
Goal (issue 27): every first call within 2x of the warm one. Run it alone on the machine:
  flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/cold_start.py
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from labtools.server import SERVER_ENV, free_port  # noqa: E402

SIZE = 5000  # the embedding-space page's default cloud
PAGES = (("word_embeddings", ""), ("input_layer", "mode=minilm"), ("learned_vs_sinusoidal", ""))


def child(mode: str) -> dict[str, list[float]]:
    """In this fresh process: each computation twice, first call and warm; seconds."""
    import numpy as np

    from core import cloud, evaluate, training
    from core.glove import load_glove
    from scripts.warm_up import warm_up

    if mode == "warmed":
        warm_up()
    wv = load_glove()
    x = wv.vectors[:SIZE].numpy()

    def old_umap(seed: int) -> np.ndarray:  # cloud._umap before exact neighbours: pynndescent's search
        import umap

        cfg = cloud.CloudConfig("UMAP", seed=seed)
        args = dict(n_neighbors=cfg.n_neighbors, min_dist=cfg.min_dist, n_epochs=cloud.umap_epochs(SIZE))
        return umap.UMAP(random_state=seed, n_jobs=1, **args).fit_transform(np.asarray(x, np.float64))

    questions = evaluate.read_questions((ROOT / "data" / "analogies_small.txt").read_text())
    calls: dict[str, Callable[[int], object]] = {
        "UMAP": lambda seed: cloud.project(x, cloud.CloudConfig("UMAP", seed=seed))
    }
    if mode == "before":
        calls = {"UMAP": old_umap}
    else:
        calls["t-SNE"] = lambda seed: cloud.project(x, cloud.CloudConfig("t-SNE", seed=seed))
        calls["Train"] = lambda seed: [
            training.train(training.TrainConfig(position=p, seed=seed)) for p in training.POSITIONS
        ]
        calls["Evaluate"] = lambda seed: evaluate.evaluate_analogies(
            wv, questions, restrict=30_000, case_insensitive=True
        )
    out: dict[str, list[float]] = {}
    for name, call in calls.items():
        out[name] = []
        for seed in (0, 1):  # another seed the second time: nothing cached but the compiled code
            start = time.perf_counter()
            call(seed)
            out[name].append(time.perf_counter() - start)
    return out


def run_child(mode: str, cache: Path) -> dict[str, list[float]]:
    env = {**os.environ, **SERVER_ENV, "NUMBA_CACHE_DIR": str(cache)}
    cmd = [sys.executable, __file__, "--child", mode]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def serve(label: str, cmd: list[str], cache: Path) -> None:
    from loadtest.protocol import Session

    port = free_port()
    cmd += ["--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true"]
    env = {**os.environ, **SERVER_ENV, "NUMBA_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.perf_counter() - start > 900:
                    raise RuntimeError(f"{label}: no health answer") from None
                time.sleep(0.2)
        ready = time.perf_counter() - start
        print(f"\n{label}: healthy after {ready:.1f} s, RSS then {rss_mib(proc.pid):.0f} MiB")
        for page, query in PAGES:
            times = []
            for _ in range(2):
                t0 = time.perf_counter()
                with Session.open(url, page, query) as s:
                    assert not s.exceptions(), s.exceptions()
                times.append(time.perf_counter() - t0)
            print(f"  open {page}{'?' + query if query else ''}: first {times[0]:.2f} s, again {times[1]:.2f} s")
        print(f"  RSS after the visits: {rss_mib(proc.pid):.0f} MiB")
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--skip-server", action="store_true", help="part 1 only")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    print(__doc__.split("\n\n")[0])
    with tempfile.TemporaryDirectory() as tmp:
        empty, filled = Path(tmp, "empty"), Path(tmp, "filled")
        subprocess.run(
            [sys.executable, "scripts/warm_up.py", "--core"],
            cwd=ROOT,
            env={**os.environ, **SERVER_ENV, "NUMBA_CACHE_DIR": str(filled)},
            check=True,
            capture_output=True,
        )
        print(f"\nPart 1: seconds, first call / warm (second call in the same process); UMAP and t-SNE of {SIZE} words")
        for mode in ("before", "cold", "warmed"):
            cache = Path(tempfile.mkdtemp(dir=tmp)) if mode != "warmed" else filled
            for name, (first, warm) in run_child(mode, cache).items():
                print(f"  {mode:<7} {name:<9} first {first:6.2f}  warm {warm:6.2f}  ratio {first / warm:5.2f}")
        if args.skip_server:
            return
        print("\nPart 2: the real server")
        from serve import command

        serve("python serve.py (numba cache empty)", command(sys.executable), empty)
        serve("python serve.py --warm-up (numba cache filled)", command(sys.executable, warm_up=True), filled)


if __name__ == "__main__":
    main()
