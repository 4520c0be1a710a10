"""How many learners one machine holds: simulated learners (loadtest/locustfile.py) against the real server.

What it compares: the rerun times learners see as their number grows (10 -> 200 by default), against the target
of issues 27 and 34 (p95 <= 500 ms with 0 errors), for 1 replica (`streamlit run`, as the README starts it) and
for 2 replicas behind HAProxy with deploy/haproxy.cfg (labtools/replicas.py); and the server CPU each page's
main control costs per rerun, each control alone.

Each learner is a Locust user speaking Streamlit's websocket protocol (loadtest/protocol.py, no browser): it
opens its page, then moves its control with a think time (3 s by default, 2-4 s); a control inside a fragment
reruns that fragment alone, as in the browser. The ramp's learners are spread evenly over issue 34's six
controls (loadtest.controls.CLASS_MIX: PE d_model, word k, rotary base, input sentence, attention seed,
embedding-space find; --mix to choose). At each step the users are started (all of a step's new learners
open their pages within --open-within seconds), left to settle (opening a page is a full run), the statistics
reset, and the step held --hold seconds. Printed per step: learners, the p50 and p95 of the page opens since
the last step (issue 34: 100 opening within 3 s, first page p95 <= 2 s), reruns/s, p50 and p95 of the rerun
time (BackMsg to script_finished), errors (closed socket, exception element, no answer within 30 s), server
CPU per run (reruns and the few page opens in the hold) and in cores (all replicas; /proc/<pid>/stat), the
proxy's CPU, server RSS (summed over replicas), this generator's own CPU in cores (it shares the machine's cores
with the server, so a busy generator also slows the reruns it times), and the machine's 1-minute load average at
the step's end (other work on the machine slows the server too). "held" is the largest step with p95 <= 500 ms and
no error. The ramp stops after a step whose p95 passes --stop-p95.

Past capacity (2 replicas behind the proxy, --learners-per-replica sets its EMBLAB_LEARNERS_PER_REPLICA): a
learner the proxy tells that the lab is full is counted as "full", not as an error, and stays out; printed per
step are how many were let in and told full, and the longest wait of an arrival for each answer (its page's first
run, or the "full" page). A class of 3x the capacity, arriving within 20 s:
    benchmarks/capacity.py --replicas 2 --learners-per-replica 50 --steps 300 --open-within 20 --no-controls

--class: the 2-replica ramp twice on the same replicas, their class store a Redis server started here
(labtools.redis_server, EMBLAB_CLASS_STORE): first with the class off, then with every learner joined to one class
(?class=CODE) and asking /_class/<code>/view every 2 s through the proxy, as ui/live_class.js does. Printed: the
same figures for each, the class's rows marked "[class on]".
    benchmarks/capacity.py --class --replicas 2 --steps 10,25,50 --no-controls

--controls-only measures each control alone (--control-users learners of one class, every class of
loadtest/locustfile.py by default) on one replica: server CPU per rerun under load, caches filled by the
learners' own moves. benchmarks/cpu_per_move.py measures the same cost one learner at a time with every
value cached (issue 34's table), with py-spy profiles.

Run: flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/capacity.py --csv capacity.csv
     [--replicas 1 2] [--steps 10,25,50,75,100,125,150,200] [--hold 30] [--think 3] [--open-within 3]
     [--controls-only | --no-controls] [--learners-per-replica 100]
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import gevent
from locust import User, between  # Locust monkey-patches the standard library for gevent on import
from locust.env import Environment

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from labtools.server import free_port, start_server  # noqa: E402
from loadtest.controls import CLASS_MIX  # noqa: E402
from loadtest.locustfile import USER_CLASSES, Learner  # noqa: E402
from loadtest.protocol import Session  # noqa: E402

TARGET_P95_S = 0.5
POLL_S = 2.0  # ui/live_class.py's EVERY_MS
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def own_cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


@dataclass
class Step:
    """One step of a ramp (or one control alone), measured over its hold."""

    setup: str  # "1 replica", "2 replicas"
    mix: str  # the user classes
    learners: int
    open_p50_ms: float  # the page opens since the last step (the new learners', and any reopened)
    open_p95_ms: float
    seconds: float
    reruns: int
    reruns_per_s: float
    p50_ms: float
    p95_ms: float
    errors: int
    server_cpu_ms_per_rerun: float
    server_cores: float
    proxy_cores: float
    server_rss_mib: float
    generator_cores: float
    opens: int
    open_errors: int
    error_sample: str
    admitted: int  # learners whose page opened, since the ramp began
    told_full: int  # learners the proxy told that the lab is full, since the ramp began
    full_after_page: int  # of those, the ones whose page came but whose session was refused
    longest_open_ms: float  # the longest any arrival let in waited for its page's first run
    longest_full_ms: float  # the longest any arrival waited for the "full" page
    load_1min: float  # the machine's 1-minute load average at the step's end


@dataclass
class Lab:
    """The servers under test: a URL, the server processes' ids, the proxy's (if any), and how to stop them."""

    name: str
    url: str
    server_pids: list[int]
    proxy_pid: int | None
    stop: Callable[[], None]
    server_urls: list[str]  # each replica's own address (the proxy's way round)


def start_lab(replicas: int, learners_per_replica: int | None = None, env: dict | None = None) -> Lab:
    if replicas == 1:
        port = free_port()
        proc = start_server(port, env)

        def stop() -> None:
            proc.terminate()
            proc.wait(timeout=30)

        url = f"http://127.0.0.1:{port}"
        return Lab("1 replica", url, [proc.pid], None, stop, [url])
    from labtools.replicas import start_replicas  # H2's: N servers behind deploy/haproxy.cfg

    proxy_env = {"EMBLAB_LEARNERS_PER_REPLICA": str(learners_per_replica)} if learners_per_replica else None
    lab = start_replicas(replicas, env=env, proxy_env=proxy_env)
    servers = [f"http://127.0.0.1:{p}" for p in lab.ports]
    return Lab(f"{replicas} replicas", lab.url, [p.pid for p in lab.servers], lab.proxy.pid, lab.stop, servers)


def joined(cls: type, code: str) -> type:
    """`cls`'s learners joined to the class `code` (?class=CODE on their page), each asking the class's poll every
    POLL_S through the proxy while its page is open, as ui/live_class.js does (a GET, no rerun)."""

    own = getattr(cls, "query", "")

    class Joined(cls):
        abstract = False
        query = f"class={code}" + (f"&{own}" if own else "")

        def __init__(self, environment) -> None:
            super().__init__(environment)
            self._poll: gevent.Greenlet | None = None

        def _open(self) -> None:
            super()._open()
            if self.session is not None and (self._poll is None or self._poll.dead):
                self._poll = gevent.spawn(self._polling)

        def on_stop(self) -> None:
            if self._poll is not None:
                self._poll.kill(block=False)
            super().on_stop()

        def _polling(self) -> None:
            while True:
                gevent.sleep(POLL_S)
                try:
                    with urllib.request.urlopen(f"{self.host}/_class/{code}/view", timeout=30) as answer:
                        answer.read()
                except OSError:
                    pass  # the poll's failures are the page's "class unavailable", not a learner's error

    Joined.__name__ = Joined.__qualname__ = cls.__name__
    return Joined


def warm(lab: Lab, classes: list[type[Learner]]) -> None:
    """Open each page of `classes` once on every replica, directly: its caches filled and modules imported, as the
    image's warm-up (scripts/warm_up.py) and a class's first learners leave a replica before the measured ones."""
    for url in lab.server_urls:
        for page in dict.fromkeys(cls.spec.page for cls in classes):
            Session.open(url, page).close()


def measure(env: Environment, lab: Lab, learners: int, mix: str, settle: float, hold: float, arrivals: dict) -> Step:
    """Run `learners` users (already started) for settle + hold seconds; the figures over the hold, and the times of
    the page opens that ended since the last step's statistics were reset (before the hold and in it).
    `arrivals` adds up, over the ramp, the answers to arrivals ("open", "full": count and longest time)."""
    gevent.sleep(settle)
    opened = times_of(env, "open")
    count_arrivals(env, arrivals)
    env.stats.reset_all()
    server0 = sum(cpu_seconds(p) for p in lab.server_pids)
    proxy0 = cpu_seconds(lab.proxy_pid) if lab.proxy_pid else 0.0
    own0, t0 = own_cpu_seconds(), time.monotonic()
    gevent.sleep(hold)
    seconds = time.monotonic() - t0
    server = sum(cpu_seconds(p) for p in lab.server_pids) - server0
    proxy = (cpu_seconds(lab.proxy_pid) - proxy0) if lab.proxy_pid else 0.0
    own = own_cpu_seconds() - own0
    reruns = opens = 0
    failures = open_failures = 0
    for bucket, count in times_of(env, "open").items():  # the opens that ended during the hold
        opened[bucket] = opened.get(bucket, 0) + count
    times = times_of(env, "rerun")
    for (_name, kind), entry in env.stats.entries.items():
        if kind == "rerun":
            reruns += entry.num_requests
            failures += entry.num_failures
        elif kind == "open":
            opens += entry.num_requests
            open_failures += entry.num_failures
    sample = next(iter(env.stats.errors.values())).error if env.stats.errors else ""
    count_arrivals(env, arrivals)
    return Step(
        setup=lab.name,
        mix=mix,
        learners=learners,
        open_p50_ms=percentile(opened, 0.5),
        open_p95_ms=percentile(opened, 0.95),
        seconds=round(seconds, 1),
        reruns=reruns,
        reruns_per_s=round(reruns / seconds, 2),
        p50_ms=percentile(times, 0.5),
        p95_ms=percentile(times, 0.95),
        errors=failures + open_failures,
        server_cpu_ms_per_rerun=round(1000 * server / (reruns + opens), 1) if reruns + opens else float("nan"),
        server_cores=round(server / seconds, 2),
        proxy_cores=round(proxy / seconds, 3),
        server_rss_mib=round(sum(rss_mib(p) for p in lab.server_pids)),
        generator_cores=round(own / seconds, 2),
        opens=opens,
        open_errors=open_failures,
        error_sample=str(sample)[:200],
        admitted=arrivals["open"],
        told_full=arrivals["full"],
        full_after_page=arrivals["full_after_page"],
        longest_open_ms=round(arrivals["longest_open_ms"]),
        longest_full_ms=round(arrivals["longest_full_ms"]),
        load_1min=round(os.getloadavg()[0], 2),
    )


def count_arrivals(env: Environment, arrivals: dict) -> None:
    """Add the page opens (successful) and "full" answers since the statistics' last reset to `arrivals`; the
    statistics are reset right after each call, so each answer is counted once."""
    for (name, kind), entry in env.stats.entries.items():
        if kind in ("open", "full") and entry.num_requests:
            ok = entry.num_requests - entry.num_failures
            arrivals[kind] += ok if kind == "open" else entry.num_requests
            if kind == "full" and name.endswith("(session)"):
                arrivals["full_after_page"] += entry.num_requests
            longest = f"longest_{kind}_ms"
            arrivals[longest] = max(arrivals[longest], entry.max_response_time)


def times_of(env: Environment, kind: str) -> dict[int, int]:
    """Locust's rounded response times (ms -> count) of one request type ("open", "rerun"), every name."""
    times: dict[int, int] = {}
    for (_name, entry_kind), entry in env.stats.entries.items():
        if entry_kind == kind:
            for bucket, count in entry.response_times.items():
                times[bucket] = times.get(bucket, 0) + count
    return times


def percentile(times: dict[int, int], q: float) -> float:
    """The q-quantile of Locust's rounded response times (ms)."""
    total = sum(times.values())
    if not total:
        return float("nan")
    seen = 0
    for bucket in sorted(times):
        seen += times[bucket]
        if seen >= q * total:
            return float(bucket)
    return float(max(times))


def run_users(
    lab: Lab,
    classes: list[type[Learner]],
    steps: list[int],
    settle: float,
    hold: float,
    stop_p95: float,
    out,
    within=5.0,
    tag: str = "",
):
    """A ramp over `steps` learners of `classes` on `lab`, each step's new learners opening their pages within
    `within` seconds; each Step is printed and handed to `out`."""
    env = Environment(user_classes=list[type[User]](classes), host=lab.url)
    runner = env.create_local_runner()
    mix = "+".join(c.__name__ for c in classes) + tag
    before = 0
    arrivals = {"open": 0, "full": 0, "full_after_page": 0, "longest_open_ms": 0.0, "longest_full_ms": 0.0}
    try:
        for n in steps:
            runner.start(n, spawn_rate=max((n - before) / within, 2), wait=False)
            before = n
            while runner.user_count < n:  # a page open is a full run
                gevent.sleep(0.5)
            step = measure(env, lab, n, mix, settle, hold, arrivals)
            out(step)
            if step.p95_ms > stop_p95 * 1000 or step.errors > n:
                break
    finally:
        runner.quit()


def print_step(step: Step) -> None:
    print(
        f"{step.setup:>10} {step.learners:>4} learners  opens p50 {step.open_p50_ms:5.0f} p95 {step.open_p95_ms:5.0f} ms  "
        f"{step.reruns_per_s:6.1f} reruns/s  "
        f"p50 {step.p50_ms:6.0f} ms  p95 {step.p95_ms:6.0f} ms  errors {step.errors:3d}  "
        f"server {step.server_cpu_ms_per_rerun:5.1f} ms CPU/rerun ({step.server_cores:.2f} cores)  "
        f"proxy {step.proxy_cores:.3f} cores  RSS {step.server_rss_mib:5.0f} MiB  "
        f"generator {step.generator_cores:.2f} cores  load {step.load_1min:.2f}  [{step.mix}]",
        flush=True,
    )
    arrived = step.admitted + step.told_full
    print(
        f"           arrivals so far: {step.admitted} let in, {step.told_full} told the lab is full "
        f"({100 * step.told_full / max(arrived, 1):.0f}%; {step.full_after_page} of them after their page came), "
        f"longest wait for the lab {step.longest_open_ms:.0f} ms, "
        f"for the full page {step.longest_full_ms:.0f} ms",
        flush=True,
    )
    if step.error_sample:
        print(f"           first error: {step.error_sample}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--csv", type=Path, default=None, help="write every step here")
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--steps", default="10,25,50,75,100,125,150,200")
    parser.add_argument("--hold", type=float, default=30.0, help="seconds each step is measured")
    parser.add_argument("--settle", type=float, default=8.0, help="seconds after spawning before measuring")
    parser.add_argument("--think", type=float, default=3.0, help="mean think time between moves, seconds")
    parser.add_argument("--stop-p95", type=float, default=2.0, help="stop a ramp after a step with a p95 above this")
    parser.add_argument(
        "--open-within", type=float, default=5.0, help="seconds in which a step's new learners open their pages"
    )
    parser.add_argument("--mix", default=",".join(CLASS_MIX), help="user classes of the ramp")
    parser.add_argument("--controls", default=",".join(USER_CLASSES), help="the controls measured alone")
    parser.add_argument("--control-users", type=int, default=20, help="learners for each control alone")
    parser.add_argument("--control-hold", type=float, default=20.0)
    parser.add_argument(
        "--learners-per-replica", type=int, default=None, help="the proxy's EMBLAB_LEARNERS_PER_REPLICA (2+ replicas)"
    )
    parser.add_argument(
        "--class", dest="in_class", action="store_true",
        help="the 2+-replica ramps with a Redis class store, the class off and then every learner joined",
    )  # fmt: skip
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--controls-only", action="store_true", help="only the CPU per rerun of each control")
    which.add_argument("--no-controls", action="store_true", help="only the ramps")
    args = parser.parse_args()
    for cls in USER_CLASSES.values():  # the same spread as the locustfile's, around --think
        cls.wait_time = between(args.think * 2 / 3, args.think * 4 / 3)
    steps = [int(s) for s in args.steps.split(",")]
    rows: list[Step] = []

    def out(step: Step) -> None:
        print_step(step)
        rows.append(step)

    if not args.no_controls:
        print(f"Server CPU per rerun, each control alone ({args.control_users} learners, 1 replica):", flush=True)
        lab = start_lab(1)
        try:
            for name in args.controls.split(","):
                one = [USER_CLASSES[name]]
                run_users(lab, one, [args.control_users], args.settle, args.control_hold, 1e9, out, args.open_within)
        finally:
            lab.stop()
    if not args.controls_only:
        classes = [USER_CLASSES[name] for name in args.mix.split(",")]
        for replicas in args.replicas:
            print(f"\nRamp, {replicas} replica(s), think time {args.think:g} s:", flush=True)
            with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
                env, code = None, ""
                if args.in_class:
                    from core.classroom import RedisStore
                    from labtools.redis_server import redis_server

                    redis = stack.enter_context(redis_server(Path(folder)))
                    env = {"EMBLAB_CLASS_STORE": redis.url}
                    code, _secret = RedisStore(redis.url).start()
                lab = start_lab(replicas, args.learners_per_replica, env)
                try:
                    warm(lab, classes)
                    run_users(lab, classes, [1], args.settle, 10.0, 1e9, out)  # RSS with one learner
                    ramps = [("", classes)] + ([(" [class on]", [joined(c, code) for c in classes])] if code else [])
                    for tag, users in ramps:
                        run_users(lab, users, steps, args.settle, args.hold, args.stop_p95, out, args.open_within, tag)
                finally:
                    lab.stop()
            for tag, _users in ramps:
                mix = "+".join(c.__name__ for c in classes) + tag
                ramp = [s for s in rows if s.setup == lab.name and s.mix == mix]
                ok = [s.learners for s in ramp if s.p95_ms <= TARGET_P95_S * 1000 and s.errors == 0]
                print(
                    f"held with {lab.name}{tag}: {max(ok) if ok else 0} learners (p95 <= 500 ms, 0 errors)", flush=True
                )
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(asdict(rows[0])))
            writer.writeheader()
            writer.writerows(asdict(s) for s in rows)
        print(f"wrote {args.csv}")


if __name__ == "__main__":
    main()
