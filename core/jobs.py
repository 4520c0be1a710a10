"""Long computations run once per key in background threads, shared by every caller (and every learner).

Submitting a key that is queued, running or done returns the same job: pressing Train twice, leaving the
page mid-run, or thirty learners asking for the same settings never repeats the work.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from core.problems import Problem

Progress = Callable[[int, float], None]


@dataclass(eq=False)
class Job:
    """One computation: its progress (step of total, losses so far), then its result or error."""

    key: Hashable
    total: int
    owner: Hashable = None
    step: int = 0
    losses: list[float] = field(default_factory=list)
    result: Any = None
    error: str | None = None
    started: bool = False
    finished: threading.Event = field(default_factory=threading.Event)

    @property
    def done(self) -> bool:
        return self.finished.is_set()

    def report(self, step: int, loss: float) -> None:
        self.step = step
        self.losses.append(loss)


class JobRunner:
    """At most `workers` jobs run at once, the rest wait in submission order; the last `keep` jobs are kept.

    So that one learner cannot starve the rest: an owner (a session) may have at most `per_owner` unfinished
    jobs, and at most `max_waiting` jobs wait in all; past either bound, submit raises a Problem.
    """

    def __init__(self, workers: int = 1, keep: int = 64, per_owner: int = 0, max_waiting: int = 0) -> None:
        self.workers = workers
        self.per_owner = per_owner
        self.max_waiting = max_waiting
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="emblab-job")
        self._jobs: OrderedDict[Hashable, Job] = OrderedDict()
        self._keep = keep
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Job | None:
        with self._lock:
            return self._jobs.get(key)

    def submit(self, key: Hashable, work: Callable[[Progress], Any], total: int, owner: Hashable = None) -> Job:
        """The job for `key`: the existing one unless it failed, else a new one running work(progress).

        Raises:
            Problem("queue_yours") when `owner` already has per_owner unfinished jobs; Problem("queue_full")
            when max_waiting jobs are waiting. Asking for a job that exists is never refused.
        """
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and job.error is None:
                self._jobs.move_to_end(key)
                return job
            unfinished = [j for j in self._jobs.values() if not j.done]
            if self.per_owner and owner is not None and sum(j.owner == owner for j in unfinished) >= self.per_owner:
                raise Problem("queue_yours")
            if self.max_waiting and sum(not j.started for j in unfinished) >= self.max_waiting:
                raise Problem("queue_full", n=self.max_waiting)
            job = self._jobs[key] = Job(key, total, owner)
            while len(self._jobs) > self._keep:
                oldest = next(iter(self._jobs))
                if not self._jobs[oldest].done:
                    break
                del self._jobs[oldest]
        self._pool.submit(self._run, job, work)
        return job

    def waiting(self) -> int:
        """Jobs submitted but not started yet."""
        with self._lock:
            return sum(not j.started for j in self._jobs.values())

    @staticmethod
    def _run(job: Job, work: Callable[[Progress], Any]) -> None:
        job.started = True
        try:
            job.result = work(job.report)
        except Exception as err:  # reported on the page; the next submit retries
            job.error = f"{type(err).__name__}: {err}"
        finally:
            job.finished.set()
