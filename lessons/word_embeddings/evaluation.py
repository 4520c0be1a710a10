"""The word page's analogy evaluation as a queued job: read a questions-words text, queue it, show its progress and
then its accuracy per section. One evaluation runs at a time for everyone (ui.jobs' "evaluation" queue)."""

from __future__ import annotations

import functools
import hashlib

import pandas as pd
import streamlit as st

from core import evaluate
from core.jobs import Job, JobRunner
from core.vectors import WordVectors
from ui.i18n import problem, t
from ui.jobs import held, job_progress, job_runner, submit
from ui.tables import table

# gensim's questions-words.txt has 19,544 questions in 0.6 MB. Evaluations share one queue per server, so a file
# with many more would hold everyone's evaluations behind it: the rest of a file is left out, with a notice.
MAX_QUESTIONS = 20_000
ASKED = "we_eval_asked"  # this session's last evaluation: its job key and what it was asked with
REFUSED = "we_eval_refused"  # this session's last press the queue refused (ui.jobs.refusal_notice)


def eval_runner() -> JobRunner:
    """The evaluation queue: one at a time, results kept per (vectors, questions, words) and shared by everyone."""
    return job_runner("evaluation")


def read_questions_or_say_why(text: str | None) -> list[evaluate.Question] | None:
    """The questions of a questions-words text, or None after a message that says what to change."""
    if text is None:
        st.warning(t("we.no_questions_file"))
        return None
    try:
        questions = evaluate.read_questions(text)
    except ValueError as err:
        st.error(t("we.not_questions", problem=problem(err)))
        return None
    if not questions:
        st.warning(t("we.no_questions"))
        return None
    return questions


def uploaded_questions(upload) -> str | None:
    """An uploaded questions file's text (None: no file yet), its size checked here, on the server: the upload
    widget's max_upload_size is the browser's alone. Raises Problem for a file over the cap."""
    return evaluate.decode_questions(upload.getvalue(), upload.name) if upload is not None else None


def start_evaluation(wv: WordVectors, text: str | None, asked: dict, *, upload=None) -> None:
    """Queue the evaluation of a questions-words text, or of an upload's (uploaded_questions; neither: no file
    yet); this session remembers it in state[ASKED], so the page shows it while it runs and after, across reruns
    and pages."""
    st.session_state.pop(ASKED, None)
    st.session_state.pop(REFUSED, None)
    if upload is not None:
        try:
            text = uploaded_questions(upload)
        except ValueError as err:
            st.error(problem(err))
            return
    questions = read_questions_or_say_why(text)
    if questions is None or text is None:  # text is None only where questions is (said on the page)
        return
    key = (asked["source"], hashlib.sha256(text.encode()).hexdigest(), asked["restrict"])
    kept = questions[:MAX_QUESTIONS]

    def work(progress) -> dict:
        result = evaluate.evaluate_analogies(
            wv,
            kept,
            restrict=asked["restrict"],
            case_insensitive=True,
            on_batch=lambda done, total: progress(100 * done // total, 0.0),
        )
        del result["predictions"]  # kept per key for everyone: only what the page shows
        return result

    submit(eval_runner(), [(key, work, 100)], REFUSED)
    st.session_state[ASKED] = asked | dict(key=key, n=len(questions))


def describe(n: int, restrict: int, job: Job) -> str:
    """The progress bar's text for an evaluation of n questions among the `restrict` most frequent words."""
    if job.deferred:
        return t("we.eval_deferred")
    if not job.started:
        return t("we.eval_waiting", n=eval_runner().ahead(job.key))
    return t("we.eval_running", n=n, restrict=restrict, percent=job.step)


def show_evaluation(wv: WordVectors, asked: dict) -> None:
    """This session's last evaluation, while the settings it was asked with (`asked`) stay: its progress, or its
    accuracy and table per section, or a message."""
    last = st.session_state.get(ASKED)
    if last is None or {k: last[k] for k in asked} != asked:
        return
    job = held(eval_runner(), last["key"])
    if job is None:  # refused (the page says why), or dropped from the kept results long ago
        return
    if last["n"] > MAX_QUESTIONS:
        st.warning(t("we.questions_cut", n=last["n"], most=MAX_QUESTIONS))
    if not job.done:
        n, restrict = min(last["n"], MAX_QUESTIONS), min(last["restrict"], len(wv))
        job_progress(eval_runner(), last["key"], functools.partial(describe, n, restrict))
        return
    if job.error:
        st.error(t("we.eval_failed", error=job.error))
        return
    result = job.result
    if not result["total"]:
        st.warning(t("we.all_skipped", skipped=result["skipped"], restrict=min(last["restrict"], len(wv))))
        return
    st.metric(
        t("we.accuracy"),
        f"{result['accuracy']:.1%}",
        help=t("we.accuracy_help", correct=result["correct"], total=result["total"], skipped=result["skipped"]),
    )
    table(pd.DataFrame(result["sections"]), "evaluation", hide_index=True)
