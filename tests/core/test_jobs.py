"""The job runner: one computation per key, shared, bounded, errors kept and retried."""

import threading

from core.jobs import JobRunner


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
    assert runner.waiting() == 1 and not b.done
    gate.set()
    b.finished.wait(5)
    assert a.done and b.result == "b" and runner.waiting() == 0


def test_a_failed_job_reports_its_error_and_is_retried():
    runner = JobRunner()
    failed = runner.submit("k", lambda progress: 1 / 0, total=1)
    failed.finished.wait(5)
    assert failed.error.startswith("ZeroDivisionError")
    retried = runner.submit("k", lambda progress: 2, total=1)
    retried.finished.wait(5)
    assert retried is not failed and retried.result == 2


def test_one_owner_cannot_fill_the_queue_and_the_queue_is_bounded():
    import pytest

    from core.problems import Problem

    runner, gate = JobRunner(workers=1, per_owner=2, max_waiting=2), threading.Event()
    runner.submit("a1", lambda progress: gate.wait(5), total=1, owner="alice")
    runner.submit("a2", lambda progress: "a2", total=1, owner="alice")
    with pytest.raises(Problem, match="already") as refused:
        runner.submit("a3", lambda progress: "a3", total=1, owner="alice")
    assert refused.value.key == "queue_yours"
    assert runner.submit("a1", lambda progress: "again", total=1, owner="alice").key == "a1"  # existing: never refused
    runner.submit("b1", lambda progress: "b1", total=1, owner="bob")  # a1 runs; a2 and b1 wait
    with pytest.raises(Problem) as full:
        runner.submit("c1", lambda progress: "c1", total=1, owner="carol")
    assert full.value.key == "queue_full"
    gate.set()
    runner.get("b1").finished.wait(5)
    assert runner.submit("c1", lambda progress: "c1", total=1, owner="carol").key == "c1"
