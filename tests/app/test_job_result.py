"""ui.jobs.job_result in AppTest, on a page of its own: the button, then the job's progress, then its result; a failed
job's error above the button, which asks again."""

import threading

from streamlit.testing.v1 import AppTest

from core.jobs import JobRunner

RUNNER = JobRunner(workers=1)  # the page's queue: this module's, imported by the page, so every rerun sees the same
GATE = threading.Event()  # the work waits for it: the test sees the job running


def work(kind: str, progress) -> str:
    assert GATE.wait(60)
    if kind == "fail":
        raise RuntimeError("it broke")
    return f"the {kind} result"


def page() -> None:
    """One job_result for the job named by the text box (AppTest.from_function runs this source alone)."""
    import functools

    import streamlit as st

    from tests.app.test_job_result import RUNNER, work
    from ui.jobs import job_result, submit

    kind = st.text_input("kind", "ok", key="kind")
    result = job_result(
        RUNNER,
        kind,
        lambda: submit(RUNNER, [(kind, functools.partial(work, kind), 1)], "refused"),
        label=f"Run {kind}",
        button_key="run",
        refused_key="refused",
        describe=lambda job: f"{kind} running",
        failed=lambda error: f"{kind} failed: {error}",
    )
    if result is not None:
        st.success(result)


def finished(kind: str) -> None:
    job = RUNNER.get(kind)
    assert job is not None and job.finished.wait(60)


def test_the_button_then_the_progress_then_the_result():
    GATE.clear()
    at = AppTest.from_function(page, default_timeout=60).run()
    assert at.button(key="run").label == "Run ok" and not at.get("progress") and not at.success
    at.button(key="run").click().run()
    assert [bar.proto.text for bar in at.get("progress")] == ["ok running"] and not at.button
    GATE.set()
    finished("ok")
    at.run()
    assert [s.value for s in at.success] == ["the ok result"] and not at.button and not at.get("progress")
    assert not at.exception


def test_a_failed_job_says_why_above_the_button_that_asks_again():
    GATE.set()
    at = AppTest.from_function(page, default_timeout=60)
    at.run()
    at.text_input(key="kind").set_value("fail").run()
    at.button(key="run").click().run()
    finished("fail")
    at.run()
    assert [e.value for e in at.error] == ["fail failed: RuntimeError: it broke"]
    assert at.button(key="run").label == "Run fail" and not at.success and not at.exception


def test_a_maps_progress_says_what_runs_from_its_start_to_its_result():
    """Issue 51: the sentence map's bar stood at "step 650 of 750" for minutes, its last step drawn before the job's
    end and the page's rerun; each stage now has its text (and job_progress draws "Done: drawing the result…")."""
    from core.jobs import Job
    from ui.jobs import describe_projection

    job = Job("map", total=750, deferred=False, started=True)
    assert describe_projection("t-SNE", job).startswith("t-SNE: starting")
    job.step = 650
    assert describe_projection("t-SNE", job) == "t-SNE: step 650 of 750"
    job.step = 750
    assert describe_projection("t-SNE", job) == "t-SNE: all 750 steps done; handing the layout over…"
