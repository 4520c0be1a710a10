"""Past capacity, a clear answer: deploy/haproxy.cfg, run by the real HAProxy in front of two stand-in replicas
(tests/deploy/fake_replica.py), with room for two learners per replica.

A learner, to the proxy, is one session: the websocket `/_stcore/stream` its tab holds open. The limit counts
those (HAProxy's `maxconn` on the `emblab` backend's servers) and the arrivals let in whose session has not opened
yet; a learner's other requests (scripts, a reload's page) are never limited. These tests show that past capacity a
new arrival gets the "full" page (503, Retry-After 60, English and Chinese) within the queue's bound, a session
past its replica's place waits in the queue at most `timeout queue` and then gets the same page, a place that frees
goes to whoever waits, and the learners already in keep being served throughout."""

from __future__ import annotations

import csv
import io
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
import websocket

from labtools.replicas import HAPROXY_CFG, start_proxy
from labtools.server import ROOT, free_port
from tests import found

PER_REPLICA = 2
REPLICAS = ("app1", "app2")
FULL, FULL_ZH = "The lab is full", "实验室已满"
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"  # Chromium's, opening a page
# deploy/haproxy.cfg's queue timeout: how long a session waits for a place before the "full" page.
QUEUE_S = int(found(r"^\s*timeout queue (\d+)s", HAPROXY_CFG.read_text(), re.MULTILINE).group(1))
BOUND_S = QUEUE_S + 10  # a client that waited longer than this was left hanging


@dataclass
class Proxy:
    url: str
    stats_socket: Path

    def servers(self, backend: str = "emblab") -> dict[str, dict[str, str]]:
        """HAProxy's own counters for a backend's servers (scur: connections, qcur: queued, status): `emblab`'s are
        the sessions, `emblab_pages`' the arrivals' pages being served."""
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(self.stats_socket))
            s.sendall(b"show stat\n")
            data = b"".join(iter(lambda: s.recv(65536), b""))
        rows = csv.DictReader(io.StringIO(data.decode().lstrip("# ")))
        return {r["svname"]: r for r in rows if r["pxname"] == backend and r["svname"] in REPLICAS}

    def wait_for(self, condition, what: str, backend: str = "emblab") -> None:
        """Wait (polling the counters) until `condition(servers)` holds for `backend`'s servers."""
        deadline = time.monotonic() + 30
        while not condition(self.servers(backend)):
            if time.monotonic() > deadline:
                raise AssertionError(f"the proxy never showed {what}: {self.servers(backend)}")
            time.sleep(0.05)  # the poll of a wait on a condition (the counters), with its deadline above


@dataclass
class Learner:
    """One browser: its cookies (the proxy's replica cookie among them) and its tab's session, once open."""

    url: str
    http: requests.Session = field(default_factory=requests.Session)
    ws: websocket.WebSocket | None = None

    def arrive(self, query: str = "") -> requests.Response:
        """Open the lab's page as a browser does (Accept: text/html)."""
        page = f"{self.url}/positional_encoding{query}"
        return self.http.get(page, headers={"Accept": BROWSER_ACCEPT}, timeout=BOUND_S)

    def open_session(self) -> websocket.WebSocket:
        """Open the tab's websocket with the browser's cookies; raises WebSocketBadStatusException if refused."""
        cookie = "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)
        stream = self.url.replace("http://", "ws://") + "/_stcore/stream"
        self.ws = websocket.create_connection(
            stream, cookie=cookie or None, subprotocols=["streamlit"], timeout=BOUND_S
        )
        # the handshake's answer sets the replica cookie (a session's replica is chosen when it opens); a browser
        # keeps it, as for any answer
        answer = SimpleCookie((self.ws.getheaders() or {}).get("set-cookie", ""))
        for name, morsel in answer.items():
            self.http.cookies.set(name, morsel.value, domain=urlsplit(self.url).hostname, path=morsel["path"] or "/")
        return self.ws

    def replica(self) -> str:
        """The replica serving this learner's session (its echo names it)."""
        assert self.ws is not None
        self.ws.send("ping")
        echo = self.ws.recv()
        assert isinstance(echo, str), echo  # a text frame
        name, _, text = echo.partition(":")
        assert text == "ping"
        return name

    def leave(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None


def full_page(status: int, headers, body: str) -> bool:
    return status == 503 and headers.get("retry-after") == "60" and FULL in body and FULL_ZH in body


@pytest.fixture(scope="module")
def replicas() -> Iterator[list[str]]:
    ports: list[int] = []
    while len(ports) < len(REPLICAS):
        if (p := free_port()) not in ports:
            ports.append(p)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.deploy.fake_replica", "--port", str(p), "--name", name], cwd=ROOT
        )
        for p, name in zip(ports, REPLICAS, strict=True)
    ]
    try:
        for p in ports:
            deadline = time.monotonic() + 30
            while True:
                try:
                    requests.get(f"http://127.0.0.1:{p}/_stcore/health", timeout=2).raise_for_status()
                    break
                except requests.RequestException:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)  # the poll of a wait on a condition (health), with its deadline above
        yield [f"127.0.0.1:{p}" for p in ports]
    finally:
        for proc in procs:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:  # a page still held open
                proc.kill()
                proc.wait()


@pytest.fixture
def proxy(replicas, tmp_path) -> Iterator[Proxy]:
    """A new proxy per test (its arrival counters start at 0), both replicas up in it."""
    stats = tmp_path / "haproxy.sock"
    env = {"EMBLAB_LEARNERS_PER_REPLICA": str(PER_REPLICA), "EMBLAB_STATS_SOCKET": str(stats)}
    proc, url = start_proxy(replicas, env=env)
    try:
        running = Proxy(url, stats)
        running.wait_for(lambda s: all(s[n]["status"] == "UP" for n in REPLICAS), "both replicas up")
        yield running
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def full_class(proxy) -> Iterator[list[Learner]]:
    """PER_REPLICA learners in on each replica, each with its session open."""
    learners = [Learner(proxy.url) for _ in range(PER_REPLICA * len(REPLICAS))]
    for learner in learners:
        assert learner.arrive().status_code == 200
        learner.open_session()
    proxy.wait_for(lambda s: all(int(s[n]["scur"]) == PER_REPLICA for n in REPLICAS), "every place taken")
    yield learners
    for learner in learners:
        learner.leave()


def test_past_capacity_a_new_arrival_gets_the_full_page_and_those_in_keep_being_served(proxy, full_class):
    assert sorted(learner.replica() for learner in full_class) == sorted(REPLICAS * PER_REPLICA)

    answer = Learner(proxy.url).arrive()  # a bound of BOUND_S: never left hanging
    assert full_page(answer.status_code, answer.headers, answer.text)
    assert "EMBLAB_REPLICA" not in answer.cookies

    # those in: their sessions, their scripts (many at once) and a reload's page, all served while the class is full
    def scripts(learner: Learner) -> list[int]:
        return [learner.http.get(f"{proxy.url}/static/js/index.js", timeout=BOUND_S).status_code for _ in range(5)]

    with ThreadPoolExecutor(len(full_class)) as pool:
        assert all(codes == [200] * 5 for codes in pool.map(scripts, full_class))
    for learner in full_class:
        assert learner.replica() in REPLICAS
        assert learner.arrive().status_code == 200  # a reload's page: it has its replica's cookie
    assert all(int(s["qcur"]) == 0 for s in proxy.servers().values())


def test_a_session_past_its_replicas_places_waits_in_the_queue_then_gets_the_full_page(proxy, full_class):
    """A second tab of a learner already in (the same cookie): its replica is full, so its session waits for a
    place at most the queue's timeout, then gets the "full" page; the learners in never notice."""
    tab = Learner(proxy.url, http=full_class[0].http)
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        tab.open_session()
    # deploy/503.http's headers (websocket-client reads no body from a refused handshake)
    headers = refused.value.resp_headers or {}
    assert refused.value.status_code == 503 and headers.get("retry-after") == "60"
    assert all(learner.replica() in REPLICAS for learner in full_class)


def test_a_place_that_frees_goes_to_the_session_waiting_for_it(proxy, full_class):
    tab = Learner(proxy.url, http=full_class[0].http)
    replica = full_class[0].replica()
    outcome: list[object] = []
    waiting = threading.Thread(target=lambda: outcome.append(_try(tab.open_session)))
    waiting.start()
    proxy.wait_for(lambda s: int(s[replica]["qcur"]) == 1, f"a session queued on {replica}")
    neighbour = next(learner for learner in full_class[1:] if learner.replica() == replica)
    neighbour.leave()
    waiting.join(timeout=BOUND_S)
    assert outcome and isinstance(outcome[0], websocket.WebSocket), outcome
    assert tab.replica() == replica
    tab.leave()


def test_a_place_that_frees_lets_the_next_arrival_in(proxy, full_class):
    arrival = Learner(proxy.url)
    assert arrival.arrive().status_code == 503
    full_class[0].leave()
    proxy.wait_for(lambda s: sum(int(r["scur"]) for r in s.values()) == len(full_class) - 1, "a place free")
    assert arrival.arrive().status_code == 200
    arrival.open_session()
    assert arrival.replica() in REPLICAS
    arrival.leave()


def test_arrivals_let_in_hold_their_places_until_their_sessions_open(proxy):
    """A class arriving at once: every arrival's page is served before any session opens (their browsers are still
    loading the scripts). Those past the places get the "full" page, not a page whose session then waits in vain."""
    arrivals = [Learner(proxy.url) for _ in range(PER_REPLICA * len(REPLICAS) + 2)]
    codes = [a.arrive().status_code for a in arrivals]
    assert codes == [200] * (len(arrivals) - 2) + [503, 503]
    for a in arrivals[:-2]:
        a.open_session()
        assert a.replica() in REPLICAS
    assert sorted(a.replica() for a in arrivals[:-2]) == sorted(REPLICAS * PER_REPLICA)
    assert Learner(proxy.url).arrive().status_code == 503
    for a in arrivals:
        a.leave()


def test_a_session_goes_to_a_replica_with_a_place_wherever_its_page_came_from(proxy):
    """Arrivals' pages come from the replica with the fewest connections, and a page's connection ends when it is
    served: three pages in a row while one replica holds a session all come from the other one. Their sessions
    choose when they open, among the sessions open, so none is sent where there is no place; the replica cookie
    comes with the session's answer and keeps the learner's other requests on its replica."""
    first = Learner(proxy.url)
    assert first.arrive().status_code == 200
    first.open_session()
    arrivals = [Learner(proxy.url) for _ in range(PER_REPLICA * len(REPLICAS) - 1)]
    pages = [a.arrive() for a in arrivals]
    assert [p.status_code for p in pages] == [200] * len(arrivals)
    assert all("EMBLAB_REPLICA" not in p.cookies for p in pages)  # a page sets no replica: its session will
    for a in arrivals:
        a.open_session()  # at once: a place is free
    held = [first.replica(), *(a.replica() for a in arrivals)]
    assert sorted(held) == sorted(REPLICAS * PER_REPLICA)
    for learner, replica in zip([first, *arrivals], held, strict=True):  # a script, as an upload would, by its cookie
        answer = learner.http.get(f"{proxy.url}/static/js/index.js", timeout=BOUND_S)
        assert answer.headers["x-fake-replica"] == replica
    assert Learner(proxy.url).arrive().status_code == 503
    for learner in [first, *arrivals]:
        learner.leave()


def _try(call):
    try:
        return call()
    except Exception as err:  # the thread's outcome, checked by the test
        return err


def test_an_arrival_whose_page_is_still_being_served_takes_one_place_not_two(proxy, replicas):
    """Pages served slowly (a busy replica): each arrival counts once while its page is on its way, so the places
    left are still offered."""
    slow = [Learner(proxy.url) for _ in range(2)]
    with ThreadPoolExecutor(len(slow)) as pool:
        served = [pool.submit(learner.arrive, "?hold=1") for learner in slow]
        proxy.wait_for(
            lambda s: sum(int(r["scur"]) for r in s.values()) == len(slow), "two pages on their way", "emblab_pages"
        )
        try:
            assert Learner(proxy.url).arrive().status_code == 200  # 4 places: 2 pages on their way and this one
        finally:
            for backend in replicas:
                requests.get(f"http://{backend}/release", timeout=BOUND_S)
        assert [f.result().status_code for f in served] == [200, 200]
    assert Learner(proxy.url).arrive().status_code == 200  # the fourth place
    assert Learner(proxy.url).arrive().status_code == 503
