"""A live class in AppTest (ui.live_class, ui.class_answers): a leader starts a class and shows a view, learners
join by the link or the code, see the bar naming the view, go there or follow, answer the exercises; the leader sees
the room's counts and chart and reveals an answer; nothing a learner sends leads; a store down leaves the lab
working. Each session is its own AppTest, the store this process's (core.classroom.process_store)."""

import pytest
from streamlit.testing.v1 import AppTest

import ui.live_class
from core.classroom import MemoryStore, RedisStore, process_store
from core.exercises import EXERCISES
from labtools.redis_server import RedisServer
from tests.app import APP

PE = "lessons/positional_encoding/positional_encoding.py"
TT = "lessons/text_to_tokens/text_to_tokens.py"  # its exercises show without a chapter chosen
EXERCISE = EXERCISES["tt"][0]  # its answer: a whole number


def session(page: str = PE, **params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(page)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


def ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


def texts(at: AppTest) -> str:
    return " ".join(str(e.value) for kind in ("markdown", "info", "warning", "success", "error", "caption")
                    for e in getattr(at, kind)) + " " + " ".join(str(e.value) for e in at.sidebar.markdown)  # fmt: skip


@pytest.fixture
def leader():
    at = session()
    ok(at.button(key="cls_start").click().run())
    return at


def code_of(at: AppTest) -> str:
    return at.session_state["_class"].code


def test_a_leader_starts_a_class_and_a_learner_joins_by_link_or_by_typing_the_code(leader):
    code = code_of(leader)
    assert f"Leading class **{code}**: 0 learners joined." in texts(leader)
    assert leader.query_params["class"] in (code, [code])
    by_link = session(**{"class": code})
    assert f"In class **{code}**." in texts(by_link) and "not shown a view yet" in texts(by_link)
    typed = session()
    typed.text_input(key="cls_code").input(" " + code.lower()[:3] + " " + code.lower()[3:])
    ok(typed.button(key="cls_join").click().run())
    assert f"In class **{code}**." in texts(typed)
    ok(leader.run())
    assert "2 learners joined" in texts(leader)
    ok(leader.button(key="cls_qr").click().run())  # the join code and QR dialog draws
    ok(typed.button(key="cls_leave").click().run())
    ok(leader.run())
    assert "1 learner joined" in texts(leader)


def test_the_bar_names_the_view_go_there_takes_the_learner_and_their_own_changes_stay_unless_following(leader):
    learner = session(**{"class": code_of(leader)})
    ok(learner.number_input(key="pe_d_model").set_value(32).run())
    ok(leader.number_input(key="pe_d_model").set_value(64).run())
    ok(leader.button(key="cls_show").click().run())
    assert "The class now sees this view." in texts(leader)
    ok(learner.run())  # as the poll's rerun
    assert "The leader is showing: **Positional encoding, d_model 64**" in texts(learner)
    assert learner.number_input(key="pe_d_model").value == 32  # not following: their own view stays
    ok(learner.button(key="cls_go").click().run())
    assert learner.number_input(key="pe_d_model").value == 64 and learner.button(key="cls_go").disabled

    ok(learner.number_input(key="pe_d_model").set_value(24).run())
    ok(learner.toggle(key="cls_follow").set_value(True).run())
    assert learner.number_input(key="pe_d_model").value == 64  # following: to the leader's view at once
    ok(leader.number_input(key="pe_d_model").set_value(16).run())
    ok(leader.button(key="cls_show").click().run())
    ok(learner.run())
    assert learner.number_input(key="pe_d_model").value == 16


def test_answers_count_for_the_class_the_leader_sees_the_room_and_reveals(leader):
    code = code_of(leader)
    leader.switch_page(TT)
    ok(leader.run())
    right, wrong = session(TT, **{"class": code}), session(TT, **{"class": code})
    answer = str(EXERCISE.answer(None))
    for at, typed in ((right, "7"), (right, answer), (wrong, "7")):  # the latest answer counts, one per learner
        at.text_input(key=f"ex_{EXERCISE.key}").set_value(typed).run()
        ok(at.button(key=f"ex_{EXERCISE.key}_check").click().run())
    ok(leader.run())
    assert "The room: 2 of 2 answered, 1 right." in texts(leader)
    assert leader.get("plotly_chart")  # the answers' spread
    assert "Revealed" not in texts(right)
    ok(leader.button(key=f"cls_reveal_{EXERCISE.key}").click().run())
    ok(right.run())
    assert any(answer in str(i.value) for i in right.info)


def test_nothing_a_learner_sends_leads(leader):
    code = code_of(leader)
    forged = session(**{"class": code, "lead": "guessed-secret"})
    assert "Only the class's leader can do this" in texts(forged)
    assert "_class" not in forged.session_state and not [b for b in forged.button if b.key == "cls_show"]
    ok(forged.run())  # the next run (a component's) does not join it as a learner either
    assert "_class" not in forged.session_state and "class" not in forged.query_params
    guessed = session(**{"class": "ZZZZZ2" if code != "ZZZZZ2" else "ZZZZZ3"})
    assert "No class" in texts(guessed) and "_class" not in guessed.session_state
    bad = session()
    bad.text_input(key="cls_code").input("0OIL1!")
    ok(bad.button(key="cls_join").click().run())
    assert "No class 0OIL1" in texts(bad)
    lead_link = session(**{"class": code, "lead": leader.session_state["_class"].secret})
    assert [b for b in lead_link.button if b.key == "cls_show"] and "lead" not in lead_link.query_params


def test_an_answer_past_the_bound_is_refused_with_a_message_and_kept_in_its_box(leader):
    learner = session(TT, **{"class": code_of(leader)})
    long = "9" * (process_store().limits.answer_chars + 1)
    learner.text_input(key=f"ex_{EXERCISE.key}").set_value(long).run()
    ok(learner.button(key=f"ex_{EXERCISE.key}_check").click().run())
    assert "An answer counts for the class up to" in texts(learner)
    assert learner.text_input(key=f"ex_{EXERCISE.key}").value == long


def test_a_store_down_leaves_the_lab_working_and_the_class_resumes_when_it_is_back(tmp_path, monkeypatch):
    server = RedisServer(tmp_path)
    server.start()
    redis_store = RedisStore(server.url, pause_s=0)
    monkeypatch.setattr(ui.live_class, "process_store", lambda: redis_store)
    try:
        leader = session()
        ok(leader.button(key="cls_start").click().run())
        learner = session(**{"class": code_of(leader)})
        server.stop()
        for at in (leader, learner):
            ok(at.number_input(key="pe_d_model").set_value(48).run())  # the page works on
            assert "The class is unavailable just now" in texts(at)
        server.start()
        ok(leader.run())  # live_class.js's poll sees the store back and reruns the page
        ok(leader.button(key="cls_show").click().run())
        ok(learner.run())
        assert "The leader is showing: **Positional encoding, d_model 48**" in texts(learner)
    finally:
        server.stop()
    assert isinstance(process_store(), MemoryStore)
