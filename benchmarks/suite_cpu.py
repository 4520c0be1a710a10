"""Where the test suite's CPU goes: each test file run alone (`pytest -n 0`), its wall time and the CPU time of
every process it ran, split by kind: the pytest process itself, the servers it started (Streamlit, serve.py,
replicas), the processes that run a page's background jobs (multiprocessing's forkserver and its children, a
server's or the pytest process's own under AppTest), Chromium (and Playwright's node driver), haproxy and
redis-server, and anything else.

The figures are CPU seconds, user + system, read from /proc every --every seconds for every process of pytest's
tree while it lives (keyed by pid and start time, its last reading kept). What no reading saw (a process that lived
less than one interval, the last interval of one that ended) is `unseen`: the tree's total by
getrusage(RUSAGE_CHILDREN) once pytest has ended, less the readings. That total is a lower bound (Chromium's
processes and a server's forkserver are not reaped by pytest, so getrusage never counts them); `cpu` is the larger
of the two totals. A file's CPU, unlike its wall time in a run of three processes on two cores, grows little with
what runs beside it, so the files are compared by it.

Run (2 cores: hold the lock, and the machine otherwise quiet):
    flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/suite_cpu.py tests/browser/test_accessibility.py ...
    [-k EXPR] [--every 0.2]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("pytest", "server", "jobs", "chromium", "haproxy/redis", "other")
TICK = os.sysconf("SC_CLK_TCK")


def processes() -> dict[int, tuple[int, float, str, float]]:
    """Every process now: pid -> (parent pid, start time in ticks, name, CPU seconds user + system), from /proc."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()  # from the state on: stat's 3rd field
        found[int(entry)] = (int(fields[1]), float(fields[19]), name, (int(fields[11]) + int(fields[12])) / TICK)
    return found


def descendants(root: int, table: dict[int, tuple[int, float, str, float]]) -> list[int]:
    children: dict[int, list[int]] = defaultdict(list)
    for pid, (parent, *_) in table.items():
        children[parent].append(pid)
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children[pid])
    return [pid for pid in tree if pid in table]


def kind_of(pid: int, name: str, root: int) -> str:
    """The kind of one process of the tree that pytest `root` started."""
    if pid == root:
        return "pytest"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            line = f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "other"
    if "chrom" in name or "chrom" in line or name.startswith("node") or "playwright" in line:
        return "chromium"
    if name in ("haproxy", "redis-server") or "haproxy" in line or "redis-server" in line:
        return "haproxy/redis"
    if "python" in name and "multiprocessing" in line:
        return "jobs"  # a forkserver and the processes it forked: a page's background jobs (a server's or AppTest's)
    if "python" in name and ("streamlit" in line or "serve.py" in line or "app.py" in line):
        return "server"
    return "other"


def run_file(path: str, extra: list[str], every: float) -> dict[str, float]:
    """One pytest run of `path` alone; its wall time, exit code and CPU seconds by kind."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    command = [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider", path, *extra]
    pytest = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen: dict[tuple[int, float], tuple[str, float]] = {}
    while pytest.poll() is None:
        table = processes()
        for pid in descendants(pytest.pid, table):
            _, started, name, cpu = table[pid]
            kind = seen.get((pid, started), ("other", 0.0))[0]
            # a process is named by its first reading that is not "other": a child read before its exec still has
            # pytest's command line, and one ending (a zombie) has none
            seen[(pid, started)] = (kind if kind != "other" else kind_of(pid, name, pytest.pid), cpu)
        time.sleep(every)
    out = pytest.stdout.read() if pytest.stdout else ""
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    by_kind: dict[str, float] = defaultdict(float)
    for kind, cpu in seen.values():
        by_kind[kind] += cpu
    result = {"wall": wall, "total": total, "rc": float(pytest.returncode), **{k: by_kind[k] for k in KINDS}}
    result["unseen"] = max(0.0, total - sum(by_kind.values()))
    result["total"] = max(total, sum(by_kind.values()))
    result["summary"] = out.strip().splitlines()[-1] if out.strip() else ""  # type: ignore[assignment]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    parser.add_argument("-k", default=None, help="pytest's -k, passed on")
    parser.add_argument("--every", type=float, default=0.2, help="seconds between readings of /proc")
    args = parser.parse_args()
    extra = ["-k", args.k] if args.k else []
    header = f"{'file':52} {'wall':>6} {'cpu':>6} " + " ".join(f"{k:>13}" for k in (*KINDS, "unseen"))
    print(header, flush=True)
    totals: dict[str, float] = defaultdict(float)
    for path in args.files:
        r = run_file(path, extra, args.every)
        for key in ("wall", "total", *KINDS, "unseen"):
            totals[key] += r[key]
        cells = " ".join(f"{r[k]:13.1f}" for k in (*KINDS, "unseen"))
        print(
            f"{path[-52:]:52} {r['wall']:6.1f} {r['total']:6.1f} {cells}  rc={int(r['rc'])} {r['summary']}", flush=True
        )
    cells = " ".join(f"{totals[k]:13.1f}" for k in (*KINDS, "unseen"))
    print(f"{'all':52} {totals['wall']:6.1f} {totals['total']:6.1f} {cells}")


if __name__ == "__main__":
    main()
