"""The "Try this" section at the end of every lesson page: questions the app checks against its own computation."""

from __future__ import annotations

import functools

import streamlit as st

from core.exercises import EXERCISES, Exercise, formatted, matches
from core.vectors import WordVectors
from ui.class_answers import leading, record, revealed, room
from ui.i18n import t
from ui.presenter import presenting


def try_this(page: str, wv: WordVectors | None = None) -> None:
    """The page's exercises: a box for the answer, a check with the reason, a hint, and the answer on request; in a
    live class, a learner's checked answer counts for the class and the leader sees the room's (ui.class_answers)."""
    st.header(t("ex.title"))
    st.caption(t("ex.intro_presenting") if presenting() else t("ex.intro"))
    shown_to_class, leader = revealed(), leading()
    for number, exercise in enumerate(EXERCISES[page], start=1):
        with st.container(border=True):
            st.markdown(f"**{number}.** " + t(f"ex.{exercise.key}_q"))
            typed = st.text_input(t("ex.answer"), key=f"ex_{exercise.key}", label_visibility="collapsed")
            c1, c2 = st.columns([1, 5])
            if c1.button(t("ex.check"), key=f"ex_{exercise.key}_check", disabled=not typed.strip()):
                st.session_state[judged_key(exercise)] = typed
                record(exercise, typed)
            with c2.popover(t("ex.hint"), icon=":material/lightbulb:"):
                st.markdown(t(f"ex.{exercise.key}_hint"))
            expected = functools.cache(lambda exercise=exercise: exercise.answer(wv))  # at most once a run
            # the result stays through every other move (another box, Enter, Show the answer) until this box changes
            if typed.strip() and st.session_state.get(judged_key(exercise)) == typed:
                if matches(exercise, typed, expected()):
                    st.success(t("ex.right") if presenting() else t("ex.right") + " " + why(exercise, expected()))
                else:
                    st.error(t("ex.wrong"))
            if exercise.key in shown_to_class:
                st.info(why(exercise, expected()), icon=":material/groups:")
            elif not presenting() and st.toggle(t("ex.show"), key=f"ex_{exercise.key}_show"):
                st.info(why(exercise, expected()))
            if leader:
                room(exercise, expected())


def judged_key(exercise: Exercise) -> str:
    """Session state: the answer Check last judged for this exercise (a button is True for one run only)."""
    return f"_ex_{exercise.key}_judged"


def why(exercise: Exercise, expected: float | int | str) -> str:
    """The explanation with the answer in it."""
    return t(f"ex.{exercise.key}_why", answer=formatted(exercise, expected))
