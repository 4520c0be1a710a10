"""A live class across two replicas behind the project's HAProxy (labtools/replicas.py), sharing a real Redis server
(labtools/redis_server.py, EMBLAB_CLASS_STORE): the leader and a learner in browser contexts of their own, on
different replicas. The leader shows a view and the learner's bar names it (ui/live_class.js's poll: no reload, no
click) and the learner follows; the learner answers and the leader's count shows it; a guessed code and a forged
leader link lead nothing; the learner's replica is killed and the learner, on the other, is still in the class with
the answer counted; Redis stopped, both pages say the class is unavailable and work on; Redis back, the class
resumes. One setup for the module: the steps run in order, each on what the one before left."""

import json
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from labtools.browser import EXCEPTION, new_context, wait_for_plot
from labtools.moves import type_into
from labtools.redis_server import redis_server
from labtools.replicas import REPLICA_HEADER, start_replicas
from tests.browser import HEATMAP_SHAPE

WAIT = 60_000  # ms: a condition on a loaded machine (never a timing: each step waits for what it needs)
expect.set_options(timeout=WAIT)


@pytest.fixture(scope="module")
def redis(tmp_path_factory):
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture(scope="module")
def lab(redis):
    with start_replicas(2, env={"EMBLAB_CLASS_STORE": redis.url}) as replicas:
        yield replicas


@pytest.fixture(scope="module")
def room(lab, screens):
    """The leader on the PE page, a learner on the overview who joined by the link, each on a replica."""
    pages, replicas = [], []
    leader = new_context(screens).new_page()
    leader.set_default_timeout(WAIT)
    answer = leader.goto(f"{lab.url}/positional_encoding")
    wait_for_plot(leader, f"{HEATMAP_SHAPE} === '100, 128'")
    replicas.append(answer.headers[REPLICA_HEADER])
    leader.get_by_role("button", name="Class").click()
    leader.get_by_role("button", name="Start a class").click()
    expect(leader.get_by_text("Leading class")).to_be_visible()
    code = leader.get_by_test_id("stSidebar").locator("strong").first.inner_text()
    learner = new_context(screens).new_page()
    learner.set_default_timeout(WAIT)
    answer = learner.goto(f"{lab.url}/?class={code}")
    replicas.append(answer.headers[REPLICA_HEADER])
    expect(learner.get_by_text(f"In class {code}.")).to_be_visible()
    pages = [leader, learner]
    yield dict(leader=leader, learner=learner, code=code, replicas=replicas)
    for page in pages:
        page.context.close()


def sidebar(page):
    return page.get_by_test_id("stSidebar")


def test_the_learners_bar_names_the_leaders_view_and_following_takes_them_there(room):
    leader, learner = room["leader"], room["learner"]
    assert room["replicas"][0] != room["replicas"][1]  # the proxy's leastconn: one replica each
    expect(sidebar(leader).get_by_text("1 learner joined")).to_be_visible()
    type_into(leader, "d_model", 64)
    leader.get_by_role("button", name="Show this to the class").click()
    expect(learner.get_by_text("The leader is showing: Positional encoding, d_model 64")).to_be_visible()
    learner.get_by_text("Follow the leader").click()
    wait_for_plot(learner, f"{HEATMAP_SHAPE} === '100, 64'")
    assert "/positional_encoding" in learner.url and f"class={room['code']}" in learner.url

    sidebar(leader).get_by_role("link", name="Text to tokens").click()  # a new view: the follower goes there by itself
    leader.wait_for_url("**/text_to_tokens**")
    leader.get_by_role("button", name="Show this to the class").click()
    learner.wait_for_url("**/text_to_tokens**")
    assert learner.locator(EXCEPTION).count() == 0


def test_an_answer_counts_and_the_leaders_room_shows_it(room):
    leader, learner = room["leader"], room["learner"]
    box = learner.get_by_label("Your answer").first
    box.fill("6")
    box.press("Enter")
    learner.get_by_role("button", name="Check").first.click()
    expect(learner.get_by_text("Right.").first).to_be_visible()
    expect(leader.get_by_text("The room: 1 of 1 answered, 1 right.").first).to_be_visible()  # its panel redraws itself
    expect(leader.locator(".js-plotly-plot").first).to_be_visible()


def test_a_guessed_code_and_a_forged_leader_link_lead_nothing(lab, room, screens):
    code = room["code"]
    guess = "ZZZZZ2" if code != "ZZZZZ2" else "ZZZZZ3"
    with pytest.raises(urllib.error.HTTPError) as gone:
        urllib.request.urlopen(f"{lab.url}/_class/{guess}/view", timeout=30)
    assert gone.value.code == 404
    with urllib.request.urlopen(f"{lab.url}/_class/{code}/view", timeout=30) as answer:
        said = json.loads(answer.read())
    assert set(said) == {"version", "revealed", "joined"}  # nothing else: no secret, no link, no answer
    forger = new_context(screens).new_page()
    forger.set_default_timeout(WAIT)
    forger.goto(f"{lab.url}/?class={code}&lead=not-the-secret")
    expect(forger.get_by_text("Only the class's leader can do this")).to_be_visible()
    assert forger.get_by_role("button", name="Show this to the class").count() == 0
    forger.goto(f"{lab.url}/?class={guess}")
    expect(forger.get_by_text(f"No class {guess} is running")).to_be_visible()
    forger.context.close()


def test_a_killed_replicas_learner_is_still_in_the_class_with_the_answer_counted(lab, room):
    leader, learner = room["leader"], room["learner"]
    gone = int(room["replicas"][1].removeprefix("app")) - 1
    assert room["replicas"][0] != room["replicas"][1]
    lab.kill_replica(gone)
    learner.reload()  # on the other replica now: a new session, the browser's own learner id
    expect(learner.get_by_text(f"In class {room['code']}.")).to_be_visible()
    expect(sidebar(leader).get_by_text("1 learner joined")).to_be_visible()  # the same learner, not a second
    expect(leader.get_by_text("The room: 1 of 1 answered, 1 right.").first).to_be_visible()


def test_redis_stopped_the_class_is_unavailable_and_the_lab_works_then_it_resumes(lab, redis, room):
    leader, learner = room["leader"], room["learner"]
    redis.stop()
    for page in (leader, learner):
        expect(page.get_by_text("The class is unavailable just now").first).to_be_visible()
    box = learner.get_by_label("Your answer").nth(1)  # the page works on: an exercise checked
    box.fill("3")
    box.press("Enter")
    learner.get_by_role("button", name="Check").nth(1).click()
    expect(learner.get_by_text("Not yet").first).to_be_visible()
    assert learner.locator(EXCEPTION).count() == 0
    redis.start()
    for page in (leader, learner):
        expect(page.get_by_text("The class is unavailable just now")).to_have_count(0)
    sidebar(leader).get_by_role("link", name="Positional encoding").click()
    leader.wait_for_url("**/positional_encoding**")
    leader.get_by_role("button", name="Show this to the class").click()
    learner.wait_for_url("**/positional_encoding**")  # still following
