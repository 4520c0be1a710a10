"""A replica killed with learners on it (issue 50): two replicas behind the project's HAProxy (deploy/haproxy.cfg,
labtools/replicas.py), each served as the image serves it; the replica of one learner is killed with SIGKILL, as an
out-of-memory kill or a crash would. The moved learner keeps page, settings and chart, and their next move (a move
inside a fragment, as most of a page's moves are) redraws, soon after the kill and again once the dead replica is
back, as compose and a swarm restart it; the other learner never notices. Before serve.py's WholeRunAfterReconnect
the moved learner's next move ran nothing on the new replica (it had none of the old session's fragments)."""

from urllib.parse import parse_qs, urlsplit

import pytest

from labtools.browser import EXCEPTION, new_context, wait_for_plot, wait_until_idle
from labtools.moves import type_into
from labtools.replicas import REPLICA_HEADER, STICKY_COOKIE, start_replicas
from tests.browser import HEATMAP_SHAPE


@pytest.fixture(scope="module")
def lab():
    with start_replicas(2) as running:
        yield running


def replica_of(page) -> str:
    return next(c["value"] for c in page.context.cookies(page.url) if c["name"] == STICKY_COOKIE)


def d_model_moves_to(page, d_model: int) -> None:
    """The learner types d_model and the heatmap is redrawn with that many columns."""
    type_into(page, "d_model", d_model)
    wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, {d_model}'")
    assert parse_qs(urlsplit(page.url).query)["pe_d_model"] == [str(d_model)]
    assert page.locator(EXCEPTION).count() == 0


def test_a_killed_replicas_learners_move_to_the_other_and_every_next_move_redraws(lab, screens):
    learners, replicas = [], []
    for _ in range(2):  # the proxy puts the second arrival on the other replica (leastconn)
        page = new_context(screens).new_page()
        page.set_default_timeout(120_000)  # a cold page on a loaded machine
        answer = page.goto(f"{lab.url}/positional_encoding?pe_d_model=64")
        wait_for_plot(page, f"{HEATMAP_SHAPE} === '100, 64'")
        wait_until_idle(page)
        learners.append(page)
        replicas.append(int(answer.headers[REPLICA_HEADER].removeprefix("app")) - 1)
    moved, stayed = learners
    assert replicas[0] != replicas[1]
    gone, kept = replica_of(moved), replica_of(stayed)

    lab.kill_replica(replicas[0])
    d_model_moves_to(moved, 32)  # soon after the kill: the move that reconnects it
    assert replica_of(moved) == kept != gone
    d_model_moves_to(stayed, 48)
    moved.reload()  # a reload on the other replica: the same page and settings
    wait_for_plot(moved, f"{HEATMAP_SHAPE} === '100, 32'")
    assert urlsplit(moved.url).path == "/positional_encoding"

    lab.restart_replica(replicas[0])  # back, as compose restarts it: the moved learner stays where it is
    for page, d_model in ((moved, 16), (stayed, 24)):
        d_model_moves_to(page, d_model)
    assert replica_of(moved) == replica_of(stayed) == kept
    for page in learners:
        page.context.close()
