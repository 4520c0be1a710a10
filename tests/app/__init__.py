"""AppTests of the pages; APP is the app's entry point they all start from."""

import base64
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_link(page: str, params: dict | None = None, /, **named) -> AppTest:
    """The page opened from a link with these query parameters (a dict, or named: `open_link(PAGE, rp_base="5")`)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(page)
    for name, value in {**(params or {}), **named}.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


# How often wait_for_job reruns: a page's progress fragment reruns every second in a browser (ui/jobs.py,
# run_every=1.0); AppTest runs no fragment on a timer, so the test reruns the page itself, a little more often.
POLL_S = 0.25


def wait_for_job(
    at: AppTest,
    done: Callable[[AppTest], object],
    what: str,
    seconds: float = 120,
    each: Callable[[AppTest], None] | None = None,
) -> None:
    """Rerun the page, as its progress fragment does in a browser, until `done(at)` holds: a job (training, an
    evaluation, a projection) that runs in the background has shown its result.

    Fails (AssertionError) as soon as the page shows an exception, or when `seconds` pass without `done`: the
    message names `what` and the page's last errors. each(at): called after every rerun while waiting (to check
    what the page shows meanwhile).
    """
    deadline = time.monotonic() + seconds
    while not done(at):
        assert not at.exception, at.exception
        if time.monotonic() > deadline:
            shown = [e.value for e in at.error] + [w.value for w in at.warning]
            raise AssertionError(f"{what} did not finish within {seconds:.0f} s; the page shows {shown}")
        time.sleep(POLL_S)  # the job runs in another thread: see POLL_S
        at.run()
        if each is not None:
            each(at)
    assert not at.exception, at.exception


def train_and_wait(at: AppTest, seconds: float = 120) -> None:
    """Press Train on the learned-vs-sinusoidal page and wait (wait_for_job) until its result or its error shows."""
    at.button(key="lv_train").click().run()
    wait_for_job(at, lambda at: at.metric or at.error, "training", seconds)


def live_charts(at: AppTest) -> list[dict]:
    """The figures a page sent through ui.live_chart, in order (each one's JSON), an overlay's traces after the
    figure's as the browser draws them."""
    sent = [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.component_name == "live_chart"]
    figures = [
        (json.loads(data["figure"]), json.loads(data.get("overlay") or "[]")) for data in sent if data.get("figure")
    ]
    return [dict(figure, data=[*figure["data"], *over]) for figure, over in figures]


def decode(array) -> np.ndarray:
    """A plotly typed array ({"dtype", "bdata"}) or a list, as numbers."""
    if isinstance(array, list):
        return np.asarray(array, np.float64)
    return np.frombuffer(base64.b64decode(array["bdata"]), array["dtype"]).astype(np.float64)


def view(at: AppTest, charts: Callable[[AppTest], list[dict]] = live_charts) -> tuple:
    """What a page shows: every chart's data and every text, notice, table and metric (a control that moves
    changes it)."""
    return (
        [json.dumps(c["data"], sort_keys=True) for c in charts(at)],
        [m.value for m in at.markdown],
        [c.value for c in at.caption],
        [w.value for w in at.warning],
        [d.value.to_json() for d in at.dataframe],
        [m.value for m in at.metric],
    )
