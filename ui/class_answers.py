"""A live class's answers to the "Try this" exercises (ui.exercises, every lesson page): a joined learner's Check
counts their latest answer for the class (core.classroom, anonymous: the store keeps a random id); the leader sees
beside each exercise how many of the joined learners answered, how many right, and the answers' spread, and can
reveal the answer to the whole class. The leader's panel redraws itself every REFRESH_S (a fragment, one leader per
class), so the counts follow the answers."""

from __future__ import annotations

from collections import Counter

import streamlit as st

from core.classroom import StoreDown
from core.exercises import Answer, Exercise, matches, parse_answer
from core.problems import Problem
from figures.classroom import answers_figure
from ui.i18n import problem, t
from ui.live_class import member, store
from ui.presenter import presented

REFRESH_S = 2.0
BARS = 8  # answers drawn; the rest are one bar, "other answers"


def record(exercise: Exercise, typed: str) -> None:
    """A joined learner's checked answer, over their earlier one; a message if the class cannot take it."""
    now = member()
    if now is None or now.leads:
        return
    try:
        store().answer(now.code, now.learner, exercise.key, typed.strip())
    except StoreDown as err:
        st.caption(problem(err))
    except Problem as err:
        st.warning(problem(err))


def revealed() -> frozenset[str]:
    """The exercises the leader revealed to this learner's class (none outside a class, or while the store is down)."""
    now = member()
    if now is None or now.leads:
        return frozenset()
    try:
        return store().revealed(now.code)
    except Problem:
        return frozenset()


def leading() -> bool:
    now = member()
    return now is not None and now.leads


def grouped(answers: dict[str, int]) -> Counter[str]:
    """Answers as learners typed them, grouped by what they say ("1,024" and "1024", "Queen" and "queen")."""
    out: Counter[str] = Counter()
    for text, n in answers.items():
        value = parse_answer(text)
        out[f"{value:g}" if isinstance(value, float) else value] += n
    return out


@st.fragment(run_every=REFRESH_S)
def room(exercise: Exercise, expected: Answer) -> None:
    """The leader's panel for one exercise: answered, right, the spread, and Reveal."""
    now = member()
    if now is None or not now.leads:
        return
    try:
        tally = store().tally(now.code, exercise.key)
    except Problem as err:
        st.caption(problem(err))
        return
    given = grouped(tally.answers)
    right = {a: matches(exercise, a, expected) for a in given}
    st.markdown(
        t("cls.room", answered=tally.answered, joined=tally.joined, right=sum(n for a, n in given.items() if right[a]))
    )
    if given:
        top = given.most_common(BARS - 1 if len(given) > BARS else BARS)
        rest = sum(given.values()) - sum(n for _, n in top)
        labels = [a for a, _ in top] + ([t("cls.other")] if rest else [])
        counts = [n for _, n in top] + ([rest] if rest else [])
        flags = [right[a] for a, _ in top] + ([False] if rest else [])
        figure = answers_figure(labels, counts, flags, t("cls.room_title"), t("cls.room_axis"))
        st.plotly_chart(presented(figure), key=f"cls_room_{exercise.key}", config={"displayModeBar": False})
    if (said := st.session_state.pop(f"_cls_reveal_{exercise.key}", None)) is not None:
        st.warning(said)
    if tally.revealed:
        st.caption(t("cls.revealed"))
    else:
        st.button(t("cls.reveal"), key=f"cls_reveal_{exercise.key}", icon=":material/visibility:", on_click=reveal,
                  args=(exercise.key,))  # fmt: skip


def reveal(question: str) -> None:
    """Reveal's on_click: the answer shown to the class (a message kept for the panel if the store refuses)."""
    now = member()
    if now is None or not now.leads:
        return
    try:
        store().reveal(now.code, now.secret or "", question)
    except Problem as err:
        st.session_state[f"_cls_reveal_{question}"] = problem(err)
