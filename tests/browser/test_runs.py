"""labtools' wait for a run (labtools/runs.js, labtools.browser.wait_until_idle and rerun): it reads Streamlit's own
messages, so it waits for a run asked for after the move that asked, and fails when a move asks for none."""

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from labtools.browser import RUNS, requests, rerun, wait_until_idle

PIN, UNPIN = "Pin these settings as A", "Unpin A"


def test_runs_js_reads_the_fields_streamlit_sends():
    constants = dict(re.findall(r"const (\w+) = (\d+);", RUNS))
    assert int(constants["RERUN_SCRIPT"]) == BackMsg.DESCRIPTOR.fields_by_name["rerun_script"].number
    assert int(constants["NEW_SESSION"]) == ForwardMsg.DESCRIPTOR.fields_by_name["new_session"].number
    assert int(constants["SCRIPT_FINISHED"]) == ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"].number
    assert int(constants["FINISHED_EARLY_FOR_RERUN"]) == ForwardMsg.FINISHED_EARLY_FOR_RERUN


def test_a_run_asked_for_after_the_move_is_waited_for(page, server_url):
    """The move here presses Pin half a second after the move's call returns, as ui/live_chart.js sends a slider's
    move once the chart is drawn: the old wait (a fixed 200 ms, then "no run going") returned before that run."""
    page.goto(f"{server_url}/rotary")
    wait_until_idle(page)
    counts = page.evaluate("window.__emblabRuns")
    assert 0 < counts["requested"] < counts["started"] < counts["finished"] and counts["error"] is None
    asked = requests(page)
    with rerun(page):
        page.evaluate(
            """name => setTimeout(() => [...document.querySelectorAll('button')]
                .find(b => b.innerText.trim() === name).click(), 500)""",
            PIN,
        )
    assert requests(page) == asked + 1
    assert page.get_by_role("button", name=UNPIN, exact=True).count() == 1  # read at once: the run has ended
    with rerun(page):
        page.get_by_role("button", name=UNPIN, exact=True).click()
    assert page.get_by_role("button", name=PIN, exact=True).count() == 1


def test_a_move_that_asks_for_no_run_fails_the_wait(page, server_url):
    page.goto(f"{server_url}/rotary")
    wait_until_idle(page)
    with pytest.raises(PlaywrightTimeoutError), rerun(page, timeout=3_000):
        page.locator('[data-testid="stMain"] h1').first.click()  # a heading: nothing to run
