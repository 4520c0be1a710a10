"""Kill one replica behind the proxy during a load run, and report what the learners saw.

Simulated learners (loadtest.protocol.Session, no browser) move the PE page's d_model through the proxy, each
keeping its cookies as a browser does, the proxy's sticky one included. Partway through, `--kill` runs (e.g.
`kill -9 <the container's main process>`, a crash: after `docker kill` Docker does not restart a container). A learner whose socket closes reopens the page at the URL it showed (the settings
live in the URL), with its cookies, as the frontend does when it reconnects, until a rerun succeeds.

It prints, for the learners whose replica stayed up (their sticky cookie never changed) and for the ones that
moved to another replica: their reruns, errors, and for the ones that moved the time from the kill to their
first good rerun and whether the reopened page showed their view. With `--healthy`, a command that prints the
killed container's health, also the time from the kill until Docker had restarted it and it was healthy again.
Run by scripts/deploy_check.sh; traffic only to the proxy's address.

    python scripts/deploy_failover.py --url http://127.0.0.1:8600 --kill "kill -9 PID" \
        --healthy "docker inspect -f {{.State.Health.Status}} X"
"""

from __future__ import annotations

import argparse
import random
import shlex
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from loadtest.protocol import Session  # noqa: E402

STICKY_COOKIE = "EMBLAB_REPLICA"  # deploy/haproxy.cfg
PAGE, WIDGET, VALUES = "positional_encoding", "pe_d_model", (64, 128)


@dataclass
class Learner:
    replicas: list[str] = field(default_factory=list)  # each sticky cookie it had, in order
    reruns: int = 0
    errors: list[str] = field(default_factory=list)
    failed_s: float | None = None  # from the kill to its first failed move (it notices at its next move)
    recovered_s: float | None = None  # from the kill to the first good rerun after its socket closed
    same_view: bool | None = None


def reopen(old: Session | None, url: str, value: int) -> Session:
    """Open the page at the URL that shows `value`, with the cookies the old session had (as a browser would)."""
    session = Session(url, PAGE, f"d_model={value}")
    if old is not None:
        session.http.cookies.update(old.http.cookies)
    session._handshake()  # what Session.open does, after the cookies are in
    session.last_open = session.rerun()
    return session


def run_learner(learner: Learner, url: str, think: float, stop_at: float, killed: threading.Event, kill_t: list):
    shown = random.choice(VALUES)
    session = None
    while session is None and time.monotonic() < stop_at:
        try:
            session = reopen(None, url, shown)
        except Exception as err:  # noqa: BLE001 (an error to count, whatever it is)
            learner.errors.append(f"open: {err}")
            time.sleep(1)
    if session is None:
        return
    learner.replicas.append(session.http.cookies.get(STICKY_COOKIE) or "")
    while time.monotonic() < stop_at:
        time.sleep(think * random.uniform(0.5, 1.5))
        target = VALUES[1] if shown == VALUES[0] else VALUES[0]
        try:
            result = session.set(WIDGET, target)
            errors = result.errors
        except Exception as err:  # noqa: BLE001
            errors = [f"{type(err).__name__}: {err}"]
        learner.reruns += 1
        if not errors:
            shown = target
            continue
        learner.errors.extend(errors)
        if killed.is_set() and learner.failed_s is None:
            learner.failed_s = time.monotonic() - kill_t[0]
        session.close()
        session = None
        while session is None and time.monotonic() < stop_at:
            try:
                session = reopen(session, url, shown)
                if session.last_open is not None and session.last_open.errors:  # reopen sets it
                    raise RuntimeError(session.last_open.errors[0])
            except Exception as err:  # noqa: BLE001
                learner.errors.append(f"reopen: {err}")
                session = None
                time.sleep(1)
        if session is None:
            return
        learner.same_view = int(session.widget(WIDGET).value) == shown
        if killed.is_set() and learner.recovered_s is None:
            learner.recovered_s = time.monotonic() - kill_t[0]
        learner.replicas.append(session.http.cookies.get(STICKY_COOKIE) or "")
    session.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the proxy")
    parser.add_argument("--learners", type=int, default=24)
    parser.add_argument("--think", type=float, default=3.0, help="seconds between moves (mean)")
    parser.add_argument("--seconds", type=float, default=90.0, help="length of the run")
    parser.add_argument("--kill-at", type=float, default=30.0, help="seconds into the run")
    parser.add_argument("--kill", required=True, help="command that kills one replica")
    parser.add_argument("--healthy", help="command printing the killed container's health status")
    args = parser.parse_args()

    learners = [Learner() for _ in range(args.learners)]
    killed, kill_t = threading.Event(), [0.0]
    start = time.monotonic()
    stop_at = start + args.seconds
    threads = [
        threading.Thread(target=run_learner, args=(lr, args.url, args.think, stop_at, killed, kill_t), daemon=True)
        for lr in learners
    ]
    for t in threads:
        t.start()
        time.sleep(0.1)
    time.sleep(max(0.0, start + args.kill_at - time.monotonic()))
    before = {lr.replicas[0] for lr in learners if lr.replicas}
    kill_t[0] = time.monotonic()
    killed.set()
    print(f"{args.learners} learners on {len(before)} replicas; killing at {args.kill_at:.0f} s: {args.kill}")
    subprocess.run(shlex.split(args.kill), check=True, capture_output=True)
    restarted_s = None
    if args.healthy:
        seen_down = False
        while time.monotonic() < stop_at + 120:
            status = subprocess.run(shlex.split(args.healthy), capture_output=True, text=True).stdout.strip()
            seen_down = seen_down or status != "healthy"
            if seen_down and status == "healthy":
                restarted_s = time.monotonic() - kill_t[0]
                break
            time.sleep(1)
    for t in threads:
        t.join(timeout=args.seconds + 120)

    stayed = [lr for lr in learners if len(set(lr.replicas)) == 1]
    moved = [lr for lr in learners if len(set(lr.replicas)) > 1]
    lost = [lr for lr in learners if not lr.replicas]
    for name, group in (("stayed on their replica", stayed), ("moved off the killed replica", moved)):
        errors = sum(len(lr.errors) for lr in group)
        print(f"{len(group)} learners {name}: {sum(lr.reruns for lr in group)} reruns, {errors} errors")
        for lr in group:
            for err in lr.errors[:2]:
                print(f"    {err[:160]}")
    if moved:
        done = [(lr.recovered_s, lr.failed_s) for lr in moved if lr.recovered_s is not None and lr.failed_s is not None]
        for name, times in (
            ("the kill to a good rerun on another replica", sorted(recovered for recovered, _ in done)),
            ("the failed move to a good rerun", sorted(recovered - failed for recovered, failed in done)),
        ):
            if times:
                print(
                    f"time from {name}: median {statistics.median(times):.1f} s, max {times[-1]:.1f} s "
                    f"({len(times)} of {len(moved)} learners)"
                )
        print(f"reopened on the view their URL held: {sum(bool(lr.same_view) for lr in moved)} of {len(moved)}")
    if lost:
        print(f"{len(lost)} learners never opened the page")
    if args.healthy:
        print("killed replica restarted and healthy again after " + (f"{restarted_s:.0f} s" if restarted_s else "-"))


if __name__ == "__main__":
    main()
