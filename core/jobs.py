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

Progress = Callable[[int, float], None]


@dataclass(eq=False)
class Job:
    """One computation: its progress (step of total, losses so far), then its result or error."""

    key: Hashable
    total: int
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
    """At most `workers` jobs run at once, the rest wait in submission order; the last `keep` jobs are kept."""

    def __init__(self, workers: int = 1, keep: int = 64) -> None:
        self.workers = workers
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="emblab-job")
        self._jobs: OrderedDict[Hashable, Job] = OrderedDict()
        self._keep = keep
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Job | None:
        with self._lock:
            return self._jobs.get(key)

    def submit(self, key: Hashable, work: Callable[[Progress], Any], total: int) -> Job:
        """The job for `key`: the existing one unless it failed, else a new one running work(progress)."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and job.error is None:
                self._jobs.move_to_end(key)
                return job
            job = self._jobs[key] = Job(key, total)
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
