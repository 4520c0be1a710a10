"""Trustworthiness for the whole cloud: core.trustworthiness against scikit-learn's, in seconds and memory.

The data is the page's: the bundled GloVe's n most frequent words (float32, 50D), projected by PCA in 2D
(core.cloud.project with the default CloudConfig), k = 10.
1. At --compare points (6,000): core.trustworthiness.trustworthiness and scikit-learn's `trustworthiness(...,
   metric="cosine")` on the same points (scikit-learn given them as float64, so that both rank float64 distances:
   on float32 it ranks float32 distances, where thousands tie), and the difference of their values.
2. core.trustworthiness at --sizes (5,000, 20,000 and 50,000); core.trustworthiness.trustworthiness_curve for the page's
   k = 5, 10, 30, 100 in one pass; core.neighbours.preservation (neighbours kept, exact) at the same sizes.
Each measure runs in a fresh process, on one thread (torch.set_num_threads(1), OMP/MKL/OpenBLAS/numba 1), after one
call on 250 points (imports, and numba's compiled count read from its on-disk cache), then --repeats calls: the
median of their wall-clock seconds, and their CPU seconds (the machine is shared: wall time includes waiting for a
core). Memory: Linux's peak resident set (VmHWM) is reset (/proc/self/clear_refs) after the warm-up, and the peak
over the calls less the resident set before them is printed, which covers torch's, numpy's and numba's allocations.
Run: flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/trustworthiness.py [--sizes 5000 20000 50000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
K = 10
CURVE = (5, 10, 30, 100)
WARM_UP = 250  # points of the first call (k = 100 needs more than 200)
ONE_THREAD = {v: "1" for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")}


def memory_kib(field: str) -> int:
    """A field of /proc/self/status (VmRSS, VmHWM) in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def measure(method: str, x_file: str, y_file: str, repeats: int) -> dict:
    """In this (fresh) process: warm up on WARM_UP points, then time `repeats` calls and their peak memory."""
    import torch

    torch.set_num_threads(1)
    from sklearn.manifold import trustworthiness as sk_trustworthiness

    from core import neighbours, trustworthiness

    x, y = np.load(x_file), np.load(y_file)
    calls = {
        "ours": lambda x, y: trustworthiness.trustworthiness(x, y, K),
        "curve": lambda x, y: trustworthiness.trustworthiness_curve(x, y, CURVE),
        "scikit-learn": lambda x, y: float(sk_trustworthiness(x, y, n_neighbors=K, metric="cosine")),
        "preservation": lambda x, y: neighbours.preservation(x, y, K).mean,
    }
    if method == "scikit-learn":
        x = x.astype(np.float64)
    call = calls[method]
    start = time.perf_counter()
    call(x[:WARM_UP], y[:WARM_UP])
    warm_up = time.perf_counter() - start
    Path("/proc/self/clear_refs").write_text("5")  # the peak resident set starts again from here
    before = memory_kib("VmRSS")
    walls, cpus, value = [], [], None
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        value = call(x, y)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return {
        "wall": statistics.median(walls),
        "cpu": statistics.median(cpus),
        "peak_mib": (memory_kib("VmHWM") - before) / 1024,
        "warm_up": warm_up,
        "value": value,
    }


def in_fresh_process(method: str, x_file: str, y_file: str, repeats: int) -> dict:
    """measure() in a new Python process, one thread everywhere."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", method, x_file, y_file, str(repeats)],
        env={**os.environ, **ONE_THREAD},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.splitlines()[-1])


def line(n: int, method: str, r: dict) -> str:
    value = r["value"]
    shown = ", ".join(f"T({k}) {v:.4f}" for k, v in value.items()) if isinstance(value, dict) else f"{value:.10f}"
    return (
        f"{n:>6,} words  {method:<13} {r['wall']:7.2f} s wall  {r['cpu']:6.2f} s cpu  peak {r['peak_mib']:7.1f} MiB "
        f"above the start  (warm-up on {WARM_UP} points {r['warm_up']:.2f} s)  value {shown}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", type=int, default=6000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20_000, 50_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        method, x_file, y_file, repeats = args.child
        print(json.dumps(measure(method, x_file, y_file, int(repeats))))
        return

    from core.cloud import CloudConfig, project
    from core.glove import load_glove

    wv = load_glove()
    load = os.getloadavg()[0]
    print(f"{wv.name}, 2D PCA, k = {K}, one thread; load average {load:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as folder:
        for n in [args.compare, *args.sizes]:
            x = wv.vectors[:n].cpu().numpy()  # (n, 50) float32, as the page passes them
            y = project(x, CloudConfig())  # (n, 2) float32
            x_file, y_file = f"{folder}/x{n}.npy", f"{folder}/y{n}.npy"
            np.save(x_file, x)
            np.save(y_file, y)
            methods = ["ours", "scikit-learn"] if n == args.compare else ["ours", "curve", "preservation"]
            results = {}
            for method in methods:
                results[method] = in_fresh_process(method, x_file, y_file, args.repeats)
                print(line(n, method, results[method]), flush=True)
            if n == args.compare:
                ours, theirs = results["ours"], results["scikit-learn"]
                print(
                    f"{n:>6,} words  ours is {theirs['wall'] / ours['wall']:.1f}x faster (wall), "
                    f"{theirs['cpu'] / ours['cpu']:.1f}x (cpu); |ours - scikit-learn| = "
                    f"{abs(ours['value'] - theirs['value']):.1e}"
                )
    print(f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
