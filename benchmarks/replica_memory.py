"""Memory of two replicas on one machine: what a second server process adds next to the first.

Starts one server as the README starts it (labtools/server.py: start_server), opens every page once
(loadtest/protocol.py, no browser), then a second server and the same; then prints each process's RSS and PSS
(/proc/<pid>/smaps_rollup: PSS counts a page shared by two processes half in each) and the memory they hold
in private (what no other process maps). Read-only memory maps (the bundled GloVe matrix, its unit rows, the MiniLM tables) are shared
between the two, so the second replica's PSS is far below its RSS.

Run (under the machine's benchmark lock):
    flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/replica_memory.py
To measure another checkout (an older commit), copy this file into its benchmarks/ and run it from there with
this venv's python: the servers run that checkout's code.

With --docker IMAGE it measures a container instead (run as root, Docker on this machine, cgroup v1 or v2): it
starts the image as a replica is started (a restart policy, its own port), samples every second from the start
until --after seconds past Docker's "healthy", then kills the main process (kill -9: a crash, which Docker
restarts) and samples the restarted container the same way; --runs times. Each sample: what `docker stats` shows
(the cgroup's usage less its inactive page cache, as the Docker CLI computes it), the page cache inside that
(files the container read: the image's libraries), and the main process's RSS, anonymous and file-backed:
    flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/replica_memory.py --docker emblab --runs 3
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from labtools.server import free_port, start_server  # noqa: E402
from loadtest.protocol import Session  # noqa: E402

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


def docker(*args: str) -> str:
    return subprocess.run(["docker", *args], capture_output=True, text=True, check=True).stdout.strip()


def cgroup_memory(container_id: str) -> dict[str, float]:
    """The container's cgroup: usage, what `docker stats` shows, its page cache and anonymous memory; MiB."""
    v1 = Path("/sys/fs/cgroup/memory/docker") / container_id
    if v1.exists():
        usage = int((v1 / "memory.usage_in_bytes").read_text())
        stat = dict(line.split() for line in (v1 / "memory.stat").read_text().splitlines())
        inactive, cache, anon = (int(stat[k]) for k in ("total_inactive_file", "total_cache", "total_rss"))
    else:
        v2 = next(Path("/sys/fs/cgroup").glob(f"**/*{container_id}*/memory.current")).parent
        usage = int((v2 / "memory.current").read_text())
        stat = dict(line.split() for line in (v2 / "memory.stat").read_text().splitlines())
        inactive, cache, anon = (int(stat[k]) for k in ("inactive_file", "file", "anon"))
    mib = 1024 * 1024
    return {"stats": (usage - inactive) / mib, "cache": cache / mib, "anon": anon / mib}


def process_memory(pid: int) -> dict[str, float]:
    """RSS of a process, anonymous and file-backed (mapped libraries and tables), MiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssAnon", "RssFile"):
            out[name] = int(value.split()[0]) / 1024
    return out


def sample_until_healthy(name: str, after: float, label: str) -> list[str]:
    """One line per second from now until `after` seconds past "healthy"; returns the lines at healthy and at the end."""
    container_id = docker("inspect", "-f", "{{.Id}}", name)
    start, healthy_at, marks = time.monotonic(), None, []
    while healthy_at is None or time.monotonic() < healthy_at + after:
        state = docker("inspect", "-f", "{{.State.Pid}} {{.State.Health.Status}}", name).split()
        pid, health = int(state[0]), state[1]
        try:
            group, proc = cgroup_memory(container_id), process_memory(pid)
        except (OSError, StopIteration, ValueError):  # between two processes
            time.sleep(1)
            continue
        line = (
            f"{label:<9} {time.monotonic() - start:>5.0f} s  {health:<9} docker stats {group['stats']:>5.0f}  "
            f"page cache {group['cache']:>5.0f}  anon {group['anon']:>5.0f}  | process RSS {proc['VmRSS']:>5.0f} "
            f"(anon {proc['RssAnon']:>5.0f}, file {proc['RssFile']:>4.0f})"
        )
        print(line, flush=True)
        if health == "healthy" and healthy_at is None:
            healthy_at = time.monotonic()
            marks.append(line + "  <- healthy")
        if time.monotonic() - start > 600:
            raise RuntimeError(f"{name} not healthy after 600 s")
        time.sleep(1)
    marks.append(line + f"  <- {after:.0f} s later")
    return marks


def measure_container(image: str, runs: int, after: float) -> None:
    summary = []
    for run in range(1, runs + 1):
        name = f"emblab-memory-{run}"
        subprocess.run(["docker", "rm", "-f", name], capture_output=True)
        port = free_port()
        docker(
            "run",
            "-d",
            "--name",
            name,
            "--network",
            "host",
            "--restart",
            "unless-stopped",
            image,
            f"--server.port={port}",
        )
        try:
            print(f"run {run}: MiB; docker stats = the cgroup's usage less its inactive page cache")
            summary += [f"run {run} {line}" for line in sample_until_healthy(name, after, "start")]
            pid = docker("inspect", "-f", "{{.State.Pid}}", name)
            subprocess.run(["kill", "-9", pid], check=True)
            while docker("inspect", "-f", "{{.State.Pid}}", name) in (pid, "0"):
                time.sleep(0.2)
            summary += [f"run {run} {line}" for line in sample_until_healthy(name, after, "restarted")]
        finally:
            subprocess.run(["docker", "rm", "-f", name], capture_output=True)
    print("\n".join(["", f"{image}, MiB:", *summary]))


def watch_containers(names: list[str], after: float) -> None:
    """Sample running containers (a compose project's replicas) side by side until each is past healthy."""
    threads, marks = [], {}

    def watch(name: str) -> None:
        marks[name] = sample_until_healthy(name, after, name[-12:])

    for name in names:
        threads.append(threading.Thread(target=watch, args=(name,)))
        threads[-1].start()
    for thread in threads:
        thread.join()
    print("\n".join(["", "MiB:", *(line for name in names for line in marks[name])]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docker", metavar="IMAGE", help="measure containers of this image instead")
    parser.add_argument("--watch", nargs="+", metavar="CONTAINER", help="sample these running containers instead")
    parser.add_argument("--runs", type=int, default=1, help="with --docker: fresh containers, one after another")
    parser.add_argument("--after", type=float, default=30, help="with --docker: seconds sampled past healthy")
    args = parser.parse_args()
    if args.watch:
        watch_containers(args.watch, args.after)
        return
    if args.docker:
        measure_container(args.docker, args.runs, args.after)
        return
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
