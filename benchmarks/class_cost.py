"""What a learner costs the server per minute with a live class on and off: idle, and following the leader.

One server (labtools.server.start_server, as deployed) with its class store in a Redis server started here
(labtools.redis_server, EMBLAB_CLASS_STORE), and --learners simulated learners (loadtest.protocol: Streamlit's
websocket, as a browser speaks it) on the positional-encoding page. Four phases of --seconds each, the server
process's CPU (user + system, /proc/<pid>/stat) read before and after each:

- idle, class off: the learners' pages open, nothing moves;
- idle, class on: the learners joined (?class=CODE), each asking serve.py's /_class/<code>/view every 2 s, as
  ui/live_class.js does (a GET, no rerun);
- moving, class off: every --every s each learner moves to the next view themselves (a rerun with the new link);
- following, class on: every --every s the leader shows the next view (core.classroom.RedisStore.publish, from
  here); each learner's poll sees the new version and reruns the page (the rerun live_class.js asks for), which
  takes them to the view (the run that follows the link).

Printed: the server's CPU s per minute per learner in each phase, and the class's own share (on minus off).

Then the leader's counts latency (`counts_latency`, --seconds long): every learner joined answers one question
every 2-6 s (RedisStore.answer, a text of its own), and a leader on a store of its own (another replica's) asks the
tally every 2 s, as the leader's panel (ui.class_answers.room, a fragment run every REFRESH_S) redraws; printed: the
p50/p95/max from an answer written to the store until a leader's tally first holds it: the store's side.

And the same as the room sees it (`counts_on_screen`, --screen-learners learners): the leader in Chromium, on the
positional-encoding page in presenter mode with the class's leader link, its panel (ui.class_answers.room) redrawing
itself every REFRESH_S through the server; each learner, joined, answers the page's first exercise once at a random
moment of --seconds (RedisStore.answer); a MutationObserver in the leader's page stamps every count it shows.
Printed: p50/p95/max from an answer written until the leader's screen shows a count that includes it (the issue's
bar: within 3 s).

Run (2 cores: hold the lock): flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/class_cost.py
     [--learners 10] [--seconds 60] [--every 10] [--screen-learners 100]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.classroom import RedisStore  # noqa: E402
from labtools.redis_server import redis_server  # noqa: E402
from labtools.server import free_port, start_server, stop  # noqa: E402
from loadtest.protocol import Session  # noqa: E402

POLL_S = 2.0  # ui/live_class.py's EVERY_MS
VIEWS = ["pe_d_model=64", "pe_d_model=128"]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime, stime in clock ticks (USER_HZ 100)


def phase(pid: int, seconds: float, learners: list[Session], code: str | None, store, secret, every: float,
          url: str) -> float:  # fmt: skip
    """Run one phase; returns the server's CPU s per minute per learner."""
    stop_at = time.monotonic() + seconds
    lock = threading.Lock()

    def learner(i: int, s: Session) -> None:
        seen, view = None, 0
        next_move = time.monotonic() + every * (i + 1) / len(learners)
        while time.monotonic() < stop_at:
            if code is not None:
                with urllib.request.urlopen(f"{url}/_class/{code}/view", timeout=30) as answer:
                    version = answer.read()
                if seen is not None and version != seen:
                    s.query_string = f"class={code}&{VIEWS[view % 2]}"
                    s.rerun()  # live_class.js's rerun: the follower goes to the view
                    view += 1
                seen = version
            elif every and time.monotonic() >= next_move:
                s.query_string = VIEWS[view % 2]
                s.rerun()
                view += 1
                next_move += every
            time.sleep(POLL_S)

    def leader() -> None:
        view = 0
        while time.monotonic() + every < stop_at:
            time.sleep(every)
            with lock:
                store.publish(code, secret, "pe", f"/positional_encoding?{VIEWS[view % 2]}")
            view += 1

    threads = [threading.Thread(target=learner, args=(i, s)) for i, s in enumerate(learners)]
    if code is not None and every:
        threads.append(threading.Thread(target=leader))
    before = cpu_seconds(pid)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return (cpu_seconds(pid) - before) / seconds * 60 / len(learners)


def counts_latency(url: str, code: str, learners: int, seconds: float) -> list[float]:
    """Seconds from each answer written to the store (RedisStore.answer returned) until the leader's next tally
    (every REFRESH_S, on a store of its own) holds it; `learners` answer, each every 2-6 s, for `seconds`."""
    from ui.class_answers import REFRESH_S

    written: dict[str, float] = {}
    seen: dict[str, float] = {}
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds
    ids = [f"counts-{i}" for i in range(learners)]
    store = RedisStore(url)
    for name in ids:
        store.join(code, name)

    def learner(name: str) -> None:
        own, n = RedisStore(url), 0
        while time.monotonic() < stop_at:
            time.sleep(random.uniform(2, 6))
            text = f"{name}.{n}"
            own.answer(code, name, "counts", text)
            with lock:
                written[text] = time.monotonic()
            n += 1

    def leader() -> None:
        own = RedisStore(url)
        while time.monotonic() < stop_at + REFRESH_S:
            time.sleep(REFRESH_S)
            given = own.tally(code, "counts").answers
            now = time.monotonic()
            with lock:
                for text in given:
                    if text in written and text not in seen:
                        seen[text] = now

    threads = [threading.Thread(target=learner, args=(name,)) for name in ids] + [threading.Thread(target=leader)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for learner_id in ids:
        store.leave(code, learner_id)
    return [seen[text] - written[text] for text in seen]


# Every count the leader's panels show, stamped (the page's clock is this machine's: Date.now() and time.time() agree).
STAMP_COUNTS = """() => {
  window.__counts = [];
  const read = () => {
    const said = [...document.body.innerText.matchAll(/The room: (\\d+) of \\d+ answered/g)].map(m => +m[1]);
    window.__counts.push([Date.now(), Math.max(0, ...said)]);
  };
  new MutationObserver(read).observe(document.body, {childList: true, subtree: true, characterData: true});
  read();
}"""


def counts_on_screen(url: str, store_url: str, learners: int, seconds: float) -> list[float]:
    """Seconds from each answer written to the store until the leader's page, in Chromium, first shows a count that
    includes it: `learners` joined learners each answer the PE page's first exercise once, at random moments."""
    from playwright.sync_api import sync_playwright

    from core.exercises import EXERCISES
    from labtools.browser import launch_browser, screen_link, screen_page
    from ui.class_answers import REFRESH_S
    from ui.class_view import LEAD, PARAM

    store = RedisStore(store_url)
    code, secret = store.start()
    ids = [f"screen-{i}" for i in range(learners)]
    for name in ids:
        store.join(code, name)
    question = EXERCISES["pe"][0].key
    with sync_playwright() as playwright:
        browser = launch_browser(playwright)
        with screen_page(browser, "presenter-1920") as page:
            page.goto(screen_link(f"{url}/positional_encoding", "presenter-1920", {PARAM: code, LEAD: secret}))
            page.get_by_text("Try this", exact=True).first.click()  # the exercises' expander, closed at first
            page.get_by_text(f"The room: 0 of {learners} answered").first.wait_for(timeout=120_000)
            page.evaluate(STAMP_COUNTS)
            written = []
            start = time.time()
            for when, name in sorted((random.uniform(0, seconds), name) for name in ids):
                time.sleep(max(0.0, start + when - time.time()))
                store.answer(code, name, question, "5")
                written.append(time.time() * 1000)
            page.get_by_text(f"The room: {learners} of {learners} answered").first.wait_for(
                timeout=int(10 * REFRESH_S * 1000)
            )
            counts = page.evaluate("window.__counts")
        browser.close()
    for name in ids:
        store.leave(code, name)
    late = []
    for k, at in enumerate(written, start=1):  # the k-th answer makes the count k
        shown = next((ms for ms, n in counts if n >= k and ms >= at), None)
        if shown is not None:
            late.append((shown - at) / 1000)
    return late


def summary(late: list[float]) -> str:
    late = sorted(late)
    p95 = late[min(len(late) - 1, int(0.95 * len(late)))]
    return f"{len(late)} answers, p50 {statistics.median(late):.2f} s, p95 {p95:.2f} s, max {late[-1]:.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--every", type=float, default=10, help="s between two views (moving, following)")
    parser.add_argument("--screen-learners", type=int, default=100, help="learners answering, the leader in Chromium")
    parser.add_argument("--screen-only", action="store_true", help="only the leader's counts in Chromium")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, redis_server(Path(folder)) as redis:
        port = free_port()
        server = start_server(port, {"EMBLAB_CLASS_STORE": redis.url})
        url = f"http://127.0.0.1:{port}"
        store = RedisStore(redis.url)
        code, secret = store.start()
        try:
            if args.screen_only:
                late = counts_on_screen(url, redis.url, args.screen_learners, args.seconds)
                print(f"leader's counts on screen, {args.screen_learners} learners: {summary(late)}")
                return 0
            rows = []
            for name, joined, every in (
                ("idle, class off", False, 0),
                ("idle, class on", True, 0),
                ("moving, class off", False, args.every),
                ("following, class on", True, args.every),
            ):
                query = f"class={code}" if joined else ""
                learners = [Session.open(url, "positional_encoding", query) for _ in range(args.learners)]
                time.sleep(2)  # the first runs' messages sent
                rows.append((name, phase(server.pid, args.seconds, learners, code if joined else None, store,
                                         secret, every, url)))  # fmt: skip
                for s in learners:
                    s.close()
            print(f"{args.learners} learners, {args.seconds:.0f} s a phase, a new view every {args.every:.0f} s")
            print(f"{'phase':<24}server CPU s per minute per learner")
            for name, cost in rows:
                print(f"{name:<24}{cost:.3f}")
            print(
                f"the class's own share: idle {rows[1][1] - rows[0][1]:+.3f}, following {rows[3][1] - rows[2][1]:+.3f}"
            )
            late = counts_latency(redis.url, code, args.learners, args.seconds)
            if late:
                print(f"leader's counts, from the store to the leader's tally: {summary(late)}")
            late = counts_on_screen(url, redis.url, args.screen_learners, args.seconds)
            print(f"leader's counts on screen, {args.screen_learners} learners: {summary(late)}")
        finally:
            stop(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
