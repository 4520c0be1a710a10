"""The job runner: one computation per key, shared, bounded, errors kept and retried; a learner's press past their
own bound deferred behind their own jobs; and the pages' queues as a state machine (Hypothesis), learners pressing,
leaving and coming back while the machine decides when each job finishes or fails; and sessions reading the results
they show while a class pushes them out of the queue (InUse)."""

import os
import threading
import weakref
from collections.abc import Hashable

import pytest
from hypothesis import currently_in_test_context, event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from core.jobs import Job, JobRunner
from core.problems import Problem
from ui.jobs import HELD, HOLD, QUEUES, held, press, refusal


def test_same_key_returns_the_same_job_and_runs_once():
    runner, calls, gate = JobRunner(workers=1), [], threading.Event()

    def work(progress):
        calls.append(1)
        gate.wait(5)
        progress(1, 0.5)
        return "done"

    first = runner.submit("k", work, total=1)
    second = runner.submit("k", work, total=1)
    gate.set()
    first.finished.wait(5)
    assert first is second and calls == [1]
    assert first.result == "done" and first.losses == [0.5] and first.step == 1


def test_one_worker_runs_jobs_one_at_a_time():
    runner, gate = JobRunner(workers=1), threading.Event()
    a = runner.submit("a", lambda progress: gate.wait(5), total=1)
    b = runner.submit("b", lambda progress: "b", total=1)
    assert runner.waiting() == 1 and not b.done and runner.ahead("b") == 1
    gate.set()
    b.finished.wait(5)
    assert a.done and b.result == "b" and runner.waiting() == 0


def test_a_failed_job_reports_its_error_and_is_retried():
    runner = JobRunner()
    failed = runner.submit("k", lambda progress: 1 / 0, total=1)
    failed.finished.wait(5)
    assert failed.error is not None and failed.error.startswith("ZeroDivisionError")
    retried = runner.submit("k", lambda progress: 2, total=1)
    retried.finished.wait(5)
    assert retried is not failed and retried.result == 2


def test_a_press_past_the_owners_bound_waits_for_their_own_job_then_runs():
    runner, gate = JobRunner(workers=1, per_owner=1, max_waiting=6), threading.Event()
    sweep = runner.submit("sweep", lambda progress: gate.wait(5), total=1, owner="alice")
    tsne = runner.submit("tsne", lambda progress: "tsne", total=1, owner="alice")  # not refused: deferred
    bob = runner.submit("bob", lambda progress: "bob", total=1, owner="bob")  # others are not held up by it
    assert tsne.deferred and not bob.deferred and runner.ahead("bob") == 1 and runner.waiting() == 2
    with pytest.raises(Problem) as refused:  # a second press while one waits for alice's run
        runner.submit("umap", lambda progress: "umap", total=1, owner="alice")
    again = runner.refusal(["umap"], "alice")
    assert refused.value.key == "queue_yours" and again is not None and again.key == "queue_yours"
    assert runner.refusal(["tsne"], "alice") is None  # asking again for what is on its way is never refused
    gate.set()
    assert tsne.finished.wait(5) and sweep.done and tsne.result == "tsne"
    assert bob.queued < tsne.queued  # it joined the queue when the sweep ended, behind bob
    assert runner.refusal(["umap"], "alice") is None


def test_a_deferred_job_someone_free_asks_for_joins_the_queue_at_once():
    runner, gate = JobRunner(workers=1, per_owner=1), threading.Event()
    runner.submit("a1", lambda progress: gate.wait(5), total=1, owner="alice")
    shared = runner.submit("shared", lambda progress: "shared", total=1, owner="alice")
    assert shared.deferred
    assert runner.submit("shared", lambda progress: "again", total=1, owner="bob") is shared
    assert not shared.deferred and shared.owner == "bob"
    gate.set()
    assert shared.finished.wait(5) and shared.result == "shared"


def test_a_press_is_taken_whole_or_refused_whole_and_the_queue_is_bounded():
    runner, gate = JobRunner(workers=1, per_owner=3, max_waiting=4), threading.Event()
    first = runner.submit_all([(f"a{i}", lambda progress: gate.wait(5), 1) for i in range(3)], owner="alice")
    assert [j.deferred for j in first] == [False] * 3 and runner.waiting() in (2, 3)
    with pytest.raises(Problem) as full:  # bob's three would make 5 or 6 wait: none of them is queued
        runner.submit_all([(f"b{i}", lambda progress: "b", 1) for i in range(3)], owner="bob")
    assert full.value.key == "queue_full" and all(runner.get(f"b{i}") is None for i in range(3))
    assert runner.submit("a0", lambda progress: "again", total=1, owner="carol") is first[0]  # existing: at once
    gate.set()
    assert all(job.finished.wait(5) for job in first)
    assert runner.submit_all([(f"b{i}", lambda progress: "b", 1) for i in range(3)], owner="bob")


# --- The queues as a state machine ------------------------------------------------------------------------
# The pages' presses, as ui.jobs.press makes them: (queue, the state key its refusal is kept under, jobs per press).
PAGES = {
    "training": (
        "training",
        "lv_refused",
        3,
    ),  # lessons/learned_vs_sinusoidal/learned_vs_sinusoidal.py: three models per Train
    "projection": ("projections", "es_refused", 1),  # lessons/embedding_space/embedding_space.py: t-SNE or UMAP
    "sweep": ("projections", "es_sweep_refused", 1),  # the same page's perplexity sweep, on the same queue
    "evaluation": ("evaluation", "we_eval_refused", 1),  # lessons/word_embeddings/word_embeddings.py
    "tight": ("tight", "tight_refused", 2),  # a queue with small bounds, two workers and 4 kept: eviction and races
}
QUEUE_BOUNDS = QUEUES | {"tight": dict(workers=2, keep=4, per_owner=2, max_waiting=3)}
LEARNERS = 4  # enough to fill every queue: 4 x (per_owner queued or running + per_owner deferred) > max_waiting
SETTINGS = 4  # settings per page: learners ask for the same ones (cache hits) and for others
WAIT = 10  # seconds a thread handoff may take on a loaded machine before the test says it never came


def count(what: str) -> None:
    """How often each case came up, under pytest --hypothesis-show-statistics."""
    if currently_in_test_context():
        event(what)


class Gate:
    """A job's work, finished (or failed) when the state machine says so: no sleeps, no timing."""

    def __init__(self, machine: "Queues", key) -> None:
        self.machine, self.key = machine, key
        self.go, self.fail = threading.Event(), False

    def __call__(self, progress):
        with self.machine.changed:
            self.machine.changed.notify_all()  # it has started
        assert self.go.wait(WAIT * 6), "the state machine never let this job finish"
        if self.fail:
            raise RuntimeError("failed on purpose")
        return ("result", self.key, id(self))


class Queues(RuleBasedStateMachine):
    """Learners press on the pages, leave them and come back; the machine finishes or fails running jobs.

    After every step: the bounds hold, no worker idles while a job waits, a job is deferred only while its owner's
    own jobs fill their bound, a finished result is reachable by its key while kept, and a page shows a refusal only
    while the queue would refuse that press now.
    """

    def __init__(self) -> None:
        super().__init__()
        self.runners = {name: JobRunner(**bounds) for name, bounds in QUEUE_BOUNDS.items()}
        self.jobs: dict[str, list[Job]] = {name: [] for name in self.runners}  # every job created, per queue
        self.gates: dict[int, Gate] = {}  # id(job) -> Gate
        # keys by when they were last asked for, oldest first
        self.asked: dict[str, list[Hashable]] = {name: [] for name in self.runners}
        self.succeeded: dict[Hashable, tuple[str, Job]] = {}  # key -> (queue, job) for each job that finished well
        self.state: list[dict] = [{} for _ in range(LEARNERS)]  # each learner's session state, as ui.jobs keeps it
        # each learner's refused press per page, as the test saw it
        self.refused: list[dict[str, list[Hashable]]] = [{} for _ in range(LEARNERS)]
        self.on_page = [True] * LEARNERS
        self.changed = threading.Condition()

    # --- what the test knows about the queues, from the jobs themselves -----------------------------------
    def mine(self, queue: str, owner: int) -> tuple[int, int]:
        """(queued or running, deferred) jobs of this owner."""
        unfinished = [j for j in self.jobs[queue] if j.owner == owner and not j.done]
        return sum(not j.deferred for j in unfinished), sum(j.deferred for j in unfinished)

    def waiting(self, queue: str) -> int:
        return sum(not j.started and not j.done for j in self.jobs[queue])

    def expected_refusal(self, queue: str, keys: list, owner: int) -> str | None:
        """Why a press of these keys should be refused now: only a queue really full, or a learner whose own jobs
        fill their bound and who already has a press waiting behind them."""
        runner, bounds = self.runners[queue], QUEUE_BOUNDS[queue]
        new = [k for k in dict.fromkeys(keys) if (j := runner.get(k)) is None or j.error is not None]
        if not new:
            return None
        active, deferred = self.mine(queue, owner)
        if deferred + max(len(new) - (bounds["per_owner"] - active), 0) > bounds["per_owner"]:
            return "queue_yours"
        if self.waiting(queue) + len(new) > bounds["max_waiting"]:
            return "queue_full"
        return None

    def settle(self) -> None:
        """Wait (on events, with a limit) until each queue has as many jobs running as it has workers for."""

        def settled() -> bool:
            for queue, jobs in self.jobs.items():
                running = sum(j.started and not j.done for j in jobs)
                queued = sum(not j.deferred and not j.done for j in jobs)
                if running != min(queued, QUEUE_BOUNDS[queue]["workers"]):
                    return False
            return True

        with self.changed:
            assert self.changed.wait_for(settled, timeout=WAIT), "a worker idles while a job waits in the queue"

    # --- what learners and jobs do -------------------------------------------------------------------------
    @rule(
        learner=st.integers(0, LEARNERS - 1),
        page=st.sampled_from(list(PAGES)),
        setting=st.integers(0, SETTINGS - 1),
    )
    def press(self, learner, page, setting):
        queue, refused_key, n = PAGES[page]
        keys = [(page, setting, i) for i in range(n)]
        runner = self.runners[queue]
        before = {k: runner.get(k) for k in keys}
        expected = self.expected_refusal(queue, keys, learner)
        requests = [(k, Gate(self, k), 1) for k in keys]
        jobs = press(runner, requests, learner, self.state[learner], refused_key)
        for key, (_, gate, _) in zip(keys, requests, strict=True):  # every job the press made, taken or not
            if (job := runner.get(key)) is not before[key]:
                assert job is not None  # a key pressed has a job, new or old
                self.succeeded.pop(key, None)  # a new job for a key whose result was dropped, or failed
                self.jobs[queue].append(job)
                self.gates[id(job)] = gate
        count(f"press: {expected or 'taken'}")
        self.refused[learner].pop(refused_key, None)
        if expected is not None:
            assert jobs is None, f"{page} press taken though the queue should refuse it ({expected})"
            assert all(runner.get(k) is before[k] for k in keys), "a refused press changed the queue"
            self.refused[learner][refused_key] = keys
            return
        assert jobs is not None, f"{page} press refused: its learner has {self.mine(queue, learner)} jobs"
        for key, job in zip(keys, jobs, strict=True):
            assert runner.get(key) is job
            if (old := before[key]) is not None and old.error is None:
                assert job is old, "asking for a job that exists started another"
                count(
                    f"press: asked again for a {'done' if old.done else 'deferred' if old.deferred else 'queued'} job"
                )
                if key in self.succeeded:  # a cache hit: back at once, done, never refused
                    assert job.done and job.result == self.succeeded[key][1].result
            self.asked[queue] = [k for k in self.asked[queue] if k != key] + [key]
        if any(j.deferred for j in jobs):
            count("press: deferred")
        self.settle()

    @precondition(lambda self: any(j.started and not j.done for js in self.jobs.values() for j in js))
    @rule(which=st.integers(0, 20), fail=st.booleans())
    def finish(self, which, fail):
        running = [(q, j) for q, js in self.jobs.items() for j in js if j.started and not j.done]
        queue, job = running[which % len(running)]
        gate = self.gates[id(job)]
        gate.fail = fail
        gate.go.set()
        assert job.finished.wait(WAIT), "a released job did not finish"
        self.runners[queue].waiting()  # its lock: the jobs that were waiting for this one have joined the queue
        assert (job.error is not None) == fail
        if not fail:
            self.succeeded[job.key] = (queue, job)
        self.settle()

    @rule(learner=st.integers(0, LEARNERS - 1))
    def leave_or_come_back(self, learner):
        """Away, the page is not drawn and its state waits; back, the page draws what holds then."""
        self.on_page[learner] = not self.on_page[learner]

    # --- what must hold after every step ---------------------------------------------------------------
    @invariant()
    def the_bounds_hold(self):
        for queue, jobs in self.jobs.items():
            bounds = QUEUE_BOUNDS[queue]
            assert self.waiting(queue) == self.runners[queue].waiting() <= bounds["max_waiting"]
            assert sum(j.started and not j.done for j in jobs) <= bounds["workers"]
            for owner in range(LEARNERS):
                active, deferred = self.mine(queue, owner)
                assert active <= bounds["per_owner"] and deferred <= bounds["per_owner"]
                if deferred:  # deferred only while the owner's own jobs fill their bound
                    assert active == bounds["per_owner"], f"{queue}: learner {owner} waits behind nothing"

    @invariant()
    def nothing_finished_is_lost(self):
        for key, (queue, job) in self.succeeded.items():
            if self.runners[queue].get(key) is None:
                count("a finished job dropped after `keep` newer ones")
            order = self.asked[queue]
            if len(order) - order.index(key) <= QUEUE_BOUNDS[queue]["keep"]:  # among the last `keep` asked for
                assert self.runners[queue].get(key) is job and job.result == ("result", key, id(self.gates[id(job)]))

    @invariant()
    def a_page_shows_a_refusal_only_while_it_holds(self):
        for learner in range(LEARNERS):
            if not self.on_page[learner]:  # the page is not drawn: nothing is shown, the state waits
                continue
            for queue, refused_key, _ in PAGES.values():
                keys = self.refused[learner].get(refused_key)
                expected = None if keys is None else self.expected_refusal(queue, keys, learner)
                why = refusal(self.runners[queue], learner, self.state[learner], refused_key)
                assert getattr(why, "key", None) == expected, f"{refused_key}: shows {why!r}, holds {expected!r}"
                if expected is None:  # gone once it stops holding: not shown again
                    self.refused[learner].pop(refused_key, None)

    def teardown(self):
        for gate in self.gates.values():
            gate.go.set()
        for jobs in self.jobs.values():
            for job in jobs:  # every accepted press runs in the end: none stays deferred for ever
                assert job.finished.wait(WAIT), f"{job.key} never ran"
        for runner in self.runners.values():
            runner.shutdown()


TestQueues = Queues.TestCase


def test_the_issues_press_runs_after_the_sweep_and_nothing_is_said_against_it():
    """Issue 33, item 3, as the machine plays it: the sweep runs, t-SNE is pressed, the sweep ends."""
    machine = Queues()
    machine.press(0, "sweep", 0)
    machine.press(0, "projection", 0)
    tsne = machine.runners["projections"].get(("projection", 0, 0))
    assert tsne is not None and tsne.deferred and not machine.refused[0]  # waiting for the sweep, not refused
    machine.finish(0, False)
    assert not tsne.deferred and tsne.started
    machine.teardown()


# --- Results in use, over many sessions (issue 55, item 1) ------------------------------------------------
SESSIONS = 3
KEEP = 3  # a queue that keeps few results: a class pushes a session's result out at once


class InUse(RuleBasedStateMachine):
    """Sessions ask for results (ui.jobs.press, as ui.tokens.training does), the class asks for many others (which
    pushes them out of what the queue keeps), sessions rerun their fragments (a read by key, as
    views.merge_table -> ui.tokens.merges does) or their whole page (ui.jobs.held, re-asked when gone), and sessions
    end. No read of a result a live session shows ever misses, and what ended sessions held is let go."""

    def __init__(self) -> None:
        super().__init__()
        self.runner = JobRunner(workers=1, keep=KEEP)
        self.state: list[dict] = [{} for _ in range(SESSIONS)]
        self.shown: list[tuple | None] = [None] * SESSIONS  # the key each session's page draws, or None
        self.class_keys = 0
        self.made: list[weakref.ref] = []  # every job the sessions' asks returned, without holding it

    def ask(self, session: int, key: tuple) -> None:
        jobs = press(self.runner, [(key, lambda progress: ("result", key), 1)], session, self.state[session], "r")
        assert jobs is not None and jobs[0].finished.wait(WAIT)
        self.made.append(weakref.ref(jobs[0]))
        self.shown[session] = key

    @rule(session=st.integers(0, SESSIONS - 1), setting=st.integers(0, 5))
    def a_session_asks(self, session, setting):
        self.ask(session, ("mine", setting))

    @rule(n=st.integers(1, 2 * KEEP))
    def the_class_asks_for_others(self, n):
        for _ in range(n):
            self.class_keys += 1
            key = ("class", self.class_keys)
            jobs = press(self.runner, [(key, lambda progress: "other", 1)], "class", {}, "r")
            assert jobs is not None and jobs[0].finished.wait(WAIT)

    @rule(session=st.integers(0, SESSIONS - 1))
    def a_fragment_reruns(self, session):
        if (key := self.shown[session]) is None:
            return
        job = self.runner.get(key)  # no ask: the fragment reads what the page drew
        assert job is not None, f"session {session}'s {key} is gone under it"
        assert job.done and job.result == ("result", key)

    @rule(session=st.integers(0, SESSIONS - 1))
    def the_page_reruns(self, session):
        if (key := self.shown[session]) is None:
            return
        if held(self.runner, key, self.state[session]) is None:  # never, while the session holds it
            count("a full rerun re-asks")
            self.ask(session, key)

    @rule(session=st.integers(0, SESSIONS - 1))
    def a_session_ends(self, session):
        self.state[session], self.shown[session] = {}, None  # a job holds no cycle: let go at once, without gc

    @invariant()
    def every_shown_result_is_found(self):
        for session, key in enumerate(self.shown):
            if key is not None:
                job = self.runner.get(key)
                assert job is not None and job.result == ("result", key), f"session {session}: {key} lost"

    @invariant()
    def only_kept_or_held_results_stay(self):
        alive = {job.key for ref in self.made if (job := ref()) is not None}
        held_keys = {key for state in self.state for (_, key) in state.get(HELD, {})}
        assert len(alive - held_keys) <= KEEP, "results nobody holds stay past what the queue keeps"
        assert all(len(state.get(HELD, {})) <= HOLD for state in self.state)

    def teardown(self):
        self.runner.shutdown()


TestInUse = InUse.TestCase


# --- Work in a child process (issue 55, item 7) -----------------------------------------------------------


def test_work_in_a_child_process_reports_progress_and_its_result_or_error():
    from core import bpe
    from core.jobs import in_child

    counts = [("lower", 5), ("newest", 6), ("widest", 3)]
    runner = JobRunner()
    job = runner.submit("bpe", in_child(bpe.train, counts, 8), total=8)
    assert job.finished.wait(120) and job.error is None, job.error
    assert job.result == bpe.train(counts, 8) and job.step == len(job.result)
    failed = runner.submit("bad", in_child(bpe.train, counts, -1), total=1)
    assert failed.finished.wait(120) and failed.error is not None and "must be 0 or more" in failed.error
    runner.shutdown()


def _own_pid(on_step=None) -> int:
    return os.getpid()


def test_work_in_a_child_process_runs_outside_the_server_process():
    """Issue 55, item 7: a BPE training ran in a thread of the server, holding the GIL against its event loop
    (benchmarks/burst.py measures the page loads); ui.tokens.training now submits it through in_child."""
    from core.jobs import in_child

    runner = JobRunner()
    job = runner.submit("pid", in_child(_own_pid), total=1)
    assert job.finished.wait(120) and job.error is None and job.result != os.getpid()
    runner.shutdown()
