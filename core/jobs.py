"""Long computations run once per key in background threads, shared by every caller (and every learner).

Submitting a key that is deferred, queued, running or done returns the same job: pressing Train twice, leaving the
page mid-run, or thirty learners asking for the same settings never repeats the work.

A job in use is never lost: the runner keeps the last `keep` jobs asked for, and past that any job someone still
holds (a session's state: ui.jobs.hold) stays reachable by its key, for `get` and `submit`, until its last holder lets
it go. So a page that reruns a part of itself (a fragment) finds the result it drew, however many others a class asked
for meanwhile (issue 55: a LookupError from the text-to-tokens page's merge step).
"""

from __future__ import annotations

import itertools
import multiprocessing
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from core.problems import Problem

Progress = Callable[[int, float], None]
Work = Callable[[Progress], Any]
Snapshot = Callable[[int, Any], None]  # (step, the work's state so far: t-SNE's layout)
CHILD_PRELOAD = ("core.bpe", "core.cloud", "core.neighbours", "openTSNE")  # what in_child's work imports
CHILD_REPORTS = 200  # at most this many progress reports from a child process per job (and its last step)


def in_process(func: Callable[..., Any], *args: Any, snapshot: Snapshot | None = None, **kwargs: Any) -> Work:
    """`in_child`'s work run in the job's own thread instead: for tests that replace what the work calls
    (a child process would run the real one)."""

    def work(progress: Progress) -> Any:
        extra = {"snapshot": snapshot} if snapshot is not None else {}
        return func(*args, on_step=lambda step, _total: progress(step, 0.0), **extra, **kwargs)

    return work


def in_child(func: Callable[..., Any], *args: Any, snapshot: Snapshot | None = None, **kwargs: Any) -> Work:
    """Work that runs func(*args, on_step=..., **kwargs) in a child process and forwards its progress (on_step(step,
    total) -> progress(step, 0.0)): for work that holds the GIL (a BPE training in pure Python, UMAP's epochs, t-SNE's
    loop), which in a thread of the server would hold it against its event loop and every learner's run (issue 55:
    page loads unanswered under a burst). The job's thread waits on the pipe, without the GIL. The child is forked
    from multiprocessing's fork server (a process of its own, which has imported CHILD_PRELOAD once: no copy of the
    server's threads, and no imports per child, which a spawned child made, for a minute on a loaded machine); func
    and its arguments and result are the lab's own objects, pickled between its own processes.

    Args:
        snapshot: if given, func is also called with snapshot=..., and each snapshot(step, state) it makes in the
            child is made here too (t-SNE's intermediate layouts).
    Raises (from the work): RuntimeError with the child's error, or when the child ends without a result.
    """

    def work(progress: Progress) -> Any:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(CHILD_PRELOAD))  # read when the fork server starts: the first child
        receive, send = context.Pipe(duplex=False)
        child = context.Process(target=_child, args=(send, func, args, kwargs, snapshot is not None), daemon=True)
        child.start()
        send.close()  # the child holds its own end: EOF here once it is gone
        try:
            while True:
                try:
                    kind, value = receive.recv()
                except EOFError:
                    child.join(5)
                    raise RuntimeError(f"the child process ended without a result (exit {child.exitcode})") from None
                if kind == "step":
                    progress(value, 0.0)
                elif kind == "snapshot" and snapshot is not None:
                    snapshot(*value)
                elif kind == "done":
                    return value
                else:
                    raise RuntimeError(value)
        finally:
            receive.close()
            child.join(5)
            if child.is_alive():
                child.kill()

    return work


def _child(send: Any, func: Callable[..., Any], args: tuple, kwargs: dict, snapshots: bool = False) -> None:
    """in_child's process: func's progress (every 1/CHILD_REPORTS of it), its snapshots if asked for, and its result
    or error, down the pipe."""
    last = [0]

    def on_step(step: int, total: int) -> None:
        if step - last[0] >= max(total // CHILD_REPORTS, 1) or step == total:
            last[0] = step
            send.send(("step", step))

    if snapshots:
        kwargs = {**kwargs, "snapshot": lambda step, state: send.send(("snapshot", (step, state)))}
    try:
        send.send(("done", func(*args, on_step=on_step, **kwargs)))
    except Exception as err:  # reported as the job's error
        send.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        send.close()


@dataclass(eq=False)
class Job:
    """One computation: deferred (behind its owner's own jobs), queued, running, then its result or error."""

    key: Hashable
    total: int
    owner: Hashable = None
    step: int = 0
    losses: list[float] = field(default_factory=list)
    result: Any = None
    error: str | None = None
    deferred: bool = True  # not in the queue yet: it joins when its owner has room (JobRunner)
    queued: int = -1  # its place in the order jobs joined the queue
    started: bool = False
    finished: threading.Event = field(default_factory=threading.Event)

    @property
    def done(self) -> bool:
        return self.finished.is_set()

    def report(self, step: int, loss: float) -> None:
        self.step = step
        self.losses.append(loss)


class JobRunner:
    """At most `workers` jobs run at once, the rest wait in the order they joined the queue; the last `keep` are kept.

    So that one learner cannot starve the rest, an owner (a session) has at most `per_owner` jobs queued or running.
    A press past that is not refused: its jobs are deferred, and join the back of the queue as the owner's own jobs
    finish. Refused, with a Problem saying why, is only a press while the owner already has `per_owner` jobs
    deferred (a press waiting for their previous one), or one that would make more than `max_waiting` jobs wait in
    all, deferred ones included. 0 leaves a bound out.
    """

    def __init__(self, workers: int = 1, keep: int = 64, per_owner: int = 0, max_waiting: int = 0) -> None:
        self.workers = workers
        self.per_owner = per_owner
        self.max_waiting = max_waiting
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="emblab-job")
        self._jobs: OrderedDict[Hashable, Job] = OrderedDict()  # least recently asked for first
        # Every job anyone still holds, evicted from _jobs or not: a job in use is found by its key until let go.
        self._held: weakref.WeakValueDictionary[Hashable, Job] = weakref.WeakValueDictionary()
        self._deferred: dict[Job, Work] = {}  # in the order they were asked for
        self._order = itertools.count()
        self._keep = keep
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Job | None:
        """The job for `key`: one of the last `keep` asked for, or an older one that someone still holds."""
        with self._lock:
            return self._find(key)

    def submit(self, key: Hashable, work: Work, total: int, owner: Hashable = None) -> Job:
        """The job for `key`: the existing one unless it failed, else a new one running work(progress).

        Raises:
            Problem: as submit_all.
        """
        return self.submit_all([(key, work, total)], owner)[0]

    def submit_all(self, requests: Sequence[tuple[Hashable, Work, int]], owner: Hashable = None) -> list[Job]:
        """One press: the jobs for these (key, work, total), all of them or none.

        A key that is deferred, queued, running or done comes back as it is, at once and never refused (a deferred
        one joins the queue now if this owner has room). The others are new jobs: they join the queue while the
        owner has fewer than per_owner jobs queued or running, and are deferred past that.

        Raises:
            Problem("queue_yours") when the owner would have more than per_owner jobs deferred; Problem("queue_full")
            when more than max_waiting jobs would wait. Nothing is submitted then.
        """
        with self._lock:
            if (why := self._refusal([key for key, _, _ in requests], owner)) is not None:
                raise why
            jobs = [self._job(key, work, total, owner) for key, work, total in requests]
            self._promote()
            self._evict()
        return jobs

    def refusal(self, keys: Iterable[Hashable], owner: Hashable = None) -> Problem | None:
        """Why submit_all would refuse a press of these keys by `owner` now, or None when it would take it."""
        with self._lock:
            return self._refusal(list(keys), owner)

    def waiting(self) -> int:
        """Jobs submitted but not started yet: deferred or queued."""
        with self._lock:
            return sum(not j.started and not j.done for j in self._jobs.values())

    def ahead(self, key: Hashable) -> int:
        """The unfinished jobs that joined the queue before this one (running or waiting); 0 for a deferred job."""
        with self._lock:
            job = self._jobs.get(key)
            if job is None or job.deferred:
                return 0
            return sum(not j.deferred and not j.done and j.queued < job.queued for j in self._jobs.values())

    def shutdown(self) -> None:
        """Stop the workers once their jobs are done (tests; a server's queues live as long as it does)."""
        self._pool.shutdown(wait=True)

    def _refusal(self, keys: list[Hashable], owner: Hashable) -> Problem | None:
        new = [key for key in dict.fromkeys(keys) if self._reusable(key) is None]
        if not new:
            return None
        if self.per_owner and owner is not None:
            mine = [j for j in self._jobs.values() if j.owner == owner and not j.done]
            room = self.per_owner - sum(not j.deferred for j in mine)
            deferred = sum(j.deferred for j in mine) + max(len(new) - room, 0)
            if deferred > self.per_owner:
                return Problem("queue_yours")
        if self.max_waiting and self._waiting() + len(new) > self.max_waiting:
            return Problem("queue_full", n=self.max_waiting)
        return None

    def _find(self, key: Hashable) -> Job | None:
        job = self._jobs.get(key)
        return job if job is not None else self._held.get(key)

    def _reusable(self, key: Hashable) -> Job | None:
        job = self._find(key)
        return job if job is not None and job.error is None else None

    def _waiting(self) -> int:
        return sum(not j.started and not j.done for j in self._jobs.values())

    def _has_room(self, owner: Hashable) -> bool:
        if not self.per_owner or owner is None:
            return True
        active = sum(j.owner == owner and not j.deferred and not j.done for j in self._jobs.values())
        return active < self.per_owner

    def _job(self, key: Hashable, work: Work, total: int, owner: Hashable) -> Job:
        if (job := self._reusable(key)) is not None:
            self._jobs[key] = job  # back among the kept if it had been evicted while held
            self._jobs.move_to_end(key)
            if job.deferred and job.owner != owner and self._has_room(owner):
                job.owner = owner  # someone free asks for it: it need not wait for its first owner's jobs
            return job
        job = Job(key, total, owner)
        self._jobs.pop(key, None)  # a failed job's key: the new job is the most recent
        self._jobs[key] = job
        self._held[key] = job
        self._deferred[job] = work
        return job

    def _promote(self) -> None:
        """Deferred jobs join the queue, in the order they were asked for, as far as their owners have room."""
        for job in list(self._deferred):
            if self._has_room(job.owner):
                work = self._deferred.pop(job)
                job.deferred, job.queued = False, next(self._order)
                self._pool.submit(self._run, job, work)

    def _evict(self) -> None:
        while len(self._jobs) > self._keep:
            oldest = next(iter(self._jobs))
            if not self._jobs[oldest].done:
                break
            del self._jobs[oldest]

    def _run(self, job: Job, work: Work) -> None:
        job.started = True
        try:
            job.result = work(job.report)
        except Exception as err:  # reported on the page; the next submit retries
            job.error = f"{type(err).__name__}: {err}"
        finally:
            with self._lock:  # done and its owner's deferred jobs queued at once, for anyone who looks
                job.finished.set()
                self._promote()
