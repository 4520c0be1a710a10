"""Simulated learners for Locust: each opens one page the way the browser does and moves one control on it.

One user class per control that issues 27 and 34 name: the PE page's d_model (PEDModel) and its table window
(PEWindow, moved through the state the chart component sends, as ui/live_chart.js does), the word page's k
(WordK), the rotary page's base (RotaryBase), the input layer's sentence (InputSentence), the attention page's
seed (AttentionSeed) and the embedding-space page's "find a word" (EmbeddingFind). A learner opens its page,
reads the widget ids from the elements the server sent, then moves its control, thinking EMBLAB_THINK_S seconds
(3 by default, between 2/3 and 4/3 of it) between moves. A control inside an st.fragment is moved as the browser
moves it: the rerun names the fragment, and only the fragment runs (loadtest.protocol.Session.set; the BackMsgs
were compared with Chromium's for each of these controls, benchmarks/cpu_per_move.py --compare-browser). Each
control's page and key are in loadtest/controls.py (CONTROLS, by class name), which the benchmarks share.

Each rerun is reported to Locust as a request (type "rerun", name "<page>:<control>", its time from the
BackMsg to script_finished); a closed socket, an exception element or no script_finished within 30 s is a
failure. Opening the page is reported as type "open". After a closed socket the learner opens its page again,
as the browser reconnects. A learner the proxy tells that the lab is full (deploy/503.http, to its page or its
session) is reported as type "full" (named "<page> (page)", or "<page> (session)" when its page came but its
session was refused), its time the wait for that answer, and stays out for the rest of the run (a
learner would try again in a minute).

    .venv/bin/locust -f loadtest/locustfile.py --headless -u 20 -r 5 -t 60s -H http://127.0.0.1:8600
    .venv/bin/locust -f loadtest/locustfile.py ... PEDModel WordK      # only those classes
"""

from __future__ import annotations

import json
import os
import random
import time
from typing import Any, ClassVar

from locust import User, between, task  # locust first: it monkey-patches sockets for gevent

from loadtest.controls import CONTROLS, FIND_WORDS, Control
from loadtest.protocol import Element, LabFull, ProtocolError, RerunResult, Session

THINK_S = float(os.environ.get("EMBLAB_THINK_S", "3"))
WORDS = "the cat sat on a mat while king and queen walked to paris from london with three small dogs".split()


class Learner(User):
    """One learner on one page. A subclass names its control (`spec`, from CONTROLS) and how it moves (`next_value`)."""

    abstract = True
    wait_time = between(THINK_S * 2 / 3, THINK_S * 4 / 3)
    spec: ClassVar[Control]
    query: ClassVar[str] = ""

    def __init__(self, environment: Any) -> None:
        super().__init__(environment)
        self.session: Session | None = None
        self.rng = random.Random()
        self.told_full = False

    @property
    def page(self) -> str:
        return self.spec.page

    @property
    def control(self) -> str:
        """The widget's user key."""
        return self.spec.key

    @property
    def request_name(self) -> str:
        return self.spec.name

    def on_start(self) -> None:
        self._open()

    def on_stop(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None

    def _open(self) -> None:
        assert self.host is not None, "Locust's --host (or the User's host) names the lab"
        started = time.perf_counter()
        try:
            self.session = Session.open(self.host, self.page, self.query)
            errors = self.session.last_open.errors if self.session.last_open else []
            if errors:
                raise ProtocolError("; ".join(errors))
            self.session.widget(self.control)  # its id must be on the page
        except LabFull as full:  # a clear answer, not a failure: counted apart, with how long it took to come
            self.told_full = True
            self._report("full", f"{self.page} ({full.at})", time.perf_counter() - started, None)
            self.on_stop()
            return
        except Exception as err:  # any failure to open is the learner's failure, reported, never a crash
            self._report("open", self.page, time.perf_counter() - started, err)
            self.on_stop()
            return
        self._report("open", self.page, time.perf_counter() - started, None)

    def _report(self, kind: str, name: str, seconds: float, error: Exception | None) -> None:
        self.environment.events.request.fire(
            request_type=kind,
            name=name,
            response_time=seconds * 1000,
            response_length=0,
            exception=error,
            context={},
        )

    @task
    def move(self) -> None:
        if self.told_full:
            return
        if self.session is None or self.session.closed_reason:
            self.on_stop()
            self._open()
            return
        widget = self.session.widget(self.control)
        result: RerunResult = self.session.set(widget, self.next_value(widget))
        error = ProtocolError("; ".join(result.errors)) if result.errors else None
        self._report("rerun", self.request_name, result.seconds, error)

    def next_value(self, widget: Element) -> Any:
        raise NotImplementedError


class PEDModel(Learner):
    """The PE page's d_model, stepped up or down a few units at a time, as the number box's buttons do."""

    spec = CONTROLS["PEDModel"]

    def next_value(self, widget: Element) -> Any:
        low, high = max(int(widget.proto.min), 8), min(int(widget.proto.max), 512)
        return min(max(int(widget.value) + self.rng.choice([-8, -4, -2, 2, 4, 8]), low), high)


class PEWindow(Learner):
    """The PE table's window, moved by the chart's sliders: the component sends {"window": {start, span}}."""

    spec = CONTROLS["PEWindow"]

    def next_value(self, widget: Element) -> Any:
        # as live_chart.js: spans among the choices, and a first row and column up to the last ones the server
        # worked out for those spans (lessons.positional_encoding.tables.extents)
        window = json.loads(widget.proto.json)["window"]
        i, j = (self.rng.randrange(len(spans)) for spans in window["spans"])
        *_, last_row, last_col = window["extents"][i][j]
        start = [self.rng.randint(0, last_row), self.rng.randint(0, last_col)]
        return {"window": {"start": start, "span": [window["spans"][0][i], window["spans"][1][j]]}}


class WordK(Learner):
    """The word page's k (nearest neighbours), anywhere in its range."""

    spec = CONTROLS["WordK"]

    def next_value(self, widget: Element) -> Any:
        return self.rng.randint(int(widget.proto.min), int(widget.proto.max))


class RotaryBase(Learner):
    """The rotary page's base, typed: a well-known one or any number from 100 to a million."""

    spec = CONTROLS["RotaryBase"]

    def next_value(self, widget: Element) -> Any:
        known = ["10000", "500000", "1000000", "50000"]
        return self.rng.choice(known) if self.rng.random() < 0.5 else str(self.rng.randint(100, 1_000_000))


class InputSentence(Learner):
    """The input layer's sentence, typed anew: three to ten words."""

    spec = CONTROLS["InputSentence"]

    def next_value(self, widget: Element) -> Any:
        return " ".join(self.rng.choices(WORDS, k=self.rng.randint(3, 10)))


class AttentionSeed(Learner):
    """The attention page's seed, stepped by the number box's buttons (one up or down) among the first few seeds:
    a class tries a handful of seeds, each one's view computed once per server and then shared."""

    spec = CONTROLS["AttentionSeed"]
    SEEDS = range(0, 16)

    def next_value(self, widget: Element) -> Any:
        return min(max(int(widget.value) + self.rng.choice([-1, 1]), self.SEEDS[0]), self.SEEDS[-1])


class EmbeddingFind(Learner):
    """The embedding-space page's "find a word": a word typed (or the box cleared) from a short list, which makes
    four clouds in all (loadtest.controls.FIND_WORDS), within the page's caches."""

    spec = CONTROLS["EmbeddingFind"]

    def next_value(self, widget: Element) -> Any:
        return self.rng.choice([w for w in FIND_WORDS if w != widget.value])


USER_CLASSES: dict[str, type[Learner]] = {
    cls.__name__: cls for cls in (PEDModel, PEWindow, WordK, RotaryBase, InputSentence, AttentionSeed, EmbeddingFind)
}
