"""scripts/warm_up.py and core.numba_cache: the server is warm when it first answers, and numba's cache covers UMAP."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

from core import numba_cache
from labtools.server import ROOT, SERVER_ENV, free_port
from scripts import docker_healthcheck as healthcheck
from scripts.warm_up import warm_up
from serve import command

# Counts the numba compiles a UMAP makes in a fresh process once UMAP is imported (and its eager, explicitly typed
# functions compiled): with the warm-up's cache, none.
COUNT_COMPILES = """
import sys
sys.path.insert(0, {root!r})
import numpy as np
from numba.core import event
from core import cloud, numba_cache

numba_cache.import_umap()
compiled = []
class Listener(event.Listener):
    def on_start(self, e):
        pass
    def on_end(self, e):
        compiled.append(e.data["dispatcher"].py_func.__qualname__)
event.register("numba:compile", Listener())
x = np.random.default_rng(1).standard_normal((150, 8))
coords = cloud.project(x, cloud.CloudConfig("UMAP", 3, n_neighbors=10, seed=5))
assert coords.shape == (150, 3) and np.isfinite(coords).all()
print("compiled:", ",".join(compiled))
"""


def test_umaps_own_numba_functions_get_a_disk_cache_once():
    import umap.layouts
    import umap.umap_
    from numba.core.caching import NullCache

    numba_cache.cache_numba_functions()
    for function in (
        umap.umap_.smooth_knn_dist,
        umap.umap_.compute_membership_strengths,
        umap.layouts._nb_optimize_layout_euclidean_single_epoch,
    ):
        assert not isinstance(function._cache, NullCache), function
    # the parallel twin of the layout's epoch shares its Python function, so numba's cache key: it stays uncached
    assert isinstance(umap.layouts._nb_optimize_layout_euclidean_single_epoch_parallel._cache, NullCache)
    assert numba_cache.cache_numba_functions() == 0


def test_preload_fills_the_caches_the_pages_read():
    from ui.resources import minilm_input, minilm_positions, preload
    from ui.vectors import _bundled_vectors

    steps = []
    preload(report=lambda what, seconds: steps.append(what))
    assert steps == [
        "imports",
        "device",
        "GloVe",
        "MiniLM input layer",
        "MiniLM positions",
        "MiniLM encoder and its positional heads",
        "the shipped sentences' vectors",
        "the word-order pairs' cosines",
    ]
    assert minilm_input() is minilm_input() and minilm_positions().shape == (512, 384)
    from ui.resources import minilm_model, shipped_profile

    assert minilm_model().word is minilm_input().word  # the encoder shares the input layer's 45 MB table
    assert shipped_profile()[0].shape == (6, 12, 17)
    assert "unit" in vars(_bundled_vectors())  # GloVe's unit rows are built, not left to the first search
    from ui.resources import sentence_collection, shipped_order_cosines

    assert sentence_collection() is sentence_collection() and sentence_collection().minilm.shape[1] == 384
    assert len(shipped_order_cosines()) >= 20  # the Sentence vectors page's shipped pairs, once per server


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`python serve.py --warm-up` (serve.command, as the image serves) on a free port with an empty numba cache;
    its URL, log and cache, and what the image's health check (scripts/docker_healthcheck.py) said while it had no
    answer yet."""
    cache = tmp_path_factory.mktemp("numba")
    log = cache.parent / "served.log"
    port = free_port()
    env = {**os.environ, **SERVER_ENV, "NUMBA_CACHE_DIR": str(cache), "PYTHONUNBUFFERED": "1"}
    options = ["--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true"]
    cmd = command(sys.executable, *options, warm_up=True)
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    checks = []  # (exit status, what it said) while the server had no answer
    try:
        deadline = time.monotonic() + 600  # compiling UMAP's code on a busy 2-core machine
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                checks.append(healthcheck.check(proc.pid, cmd, env))
                time.sleep(0.5)  # polling the health check while the port is closed (it answers at once)
        else:
            raise AssertionError(f"no health answer; the log:\n{log.read_text()}")
        answered = log.read_text()  # what the process had printed when its health first answered
        yield url, answered, cache, (proc.pid, cmd, env, checks)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_served_process_answers_health_only_once_warm(served):
    _, answered, _, _ = served
    for step in ("import umap", "UMAP of", "Train (", "GloVe", "MiniLM input layer", "all"):
        assert f"emblab warm-up: {step}" in answered
    assert "skipped" not in answered


def test_the_health_check_fails_saying_starting_while_the_process_warms_up(served):
    """Docker's HEALTHCHECK says healthy only once the lab serves (issue 50: "(healthy)" came 16 s after the start,
    the port 178 s): from the warm-up's first line the check fails (exit 1), saying "starting" and the step it is on,
    and the start period keeps the replica from being marked unhealthy meanwhile; once the port is open the marker is
    gone and the check passes on the server's answer alone."""
    _, _, _, (pid, cmd, env, checks) = served
    first = next((i for i, (_, said) in enumerate(checks) if said.startswith("starting")), None)
    assert first is not None, checks
    checks = checks[first:]
    while checks and checks[-1] == (0, "healthy"):  # the port opened between the fixture's poll and the check
        checks.pop()
    assert all(status == 1 for status, _ in checks), checks
    assert all(said.startswith("starting: warming up for ") for _, said in checks), checks
    assert any(" done" in said for _, said in checks), checks  # the step it is on
    marker = healthcheck.warm_up_marker(pid, env)
    deadline = time.monotonic() + 60
    while marker.exists() and time.monotonic() < deadline:
        time.sleep(0.2)  # polling a file another process removes: nothing to wait on
    assert not marker.exists()
    assert healthcheck.check(pid, cmd, env) == (0, "healthy")
    assert healthcheck.streamlit_process() is not None  # the check finds `python serve.py`


def test_a_process_that_is_not_serving_fails_the_check_and_says_why(tmp_path):
    env = {"TMPDIR": str(tmp_path), "STREAMLIT_SERVER_PORT": str(free_port())}  # nothing listens there
    status, said = healthcheck.check(4242, [], env)
    assert status == 1 and "refused" in said.lower()
    marker = healthcheck.warm_up_marker(4242, env)
    marker.write_text(f"{time.time() - 30}\nGloVe done\n")
    assert healthcheck.check(4242, [], env) == (1, "starting: warming up for 30 s, GloVe done")


def test_the_warm_server_serves_the_pages_that_use_the_preloaded_tables(served):
    from loadtest.protocol import Session

    url, _, _, _ = served
    pages = [("input_layer", "mode=minilm"), ("learned_vs_sinusoidal", ""), ("word_embeddings", "")]
    for page, query in [*pages, ("sentence_vectors", "sv_chapter=search"), ("sentence_vectors", "sv_chapter=order")]:
        with Session.open(url, page, query) as session:
            assert not session.exceptions(), (page, session.exceptions())
            assert session.page_elements()


def test_after_the_warm_up_a_fresh_process_compiles_nothing_for_umap(served):
    _, _, cache, _ = served
    assert list(cache.glob("umap_*/umap_.smooth_knn_dist-*.nbi"))
    env = {**os.environ, **SERVER_ENV, "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run(
        [sys.executable, "-c", COUNT_COMPILES.format(root=str(ROOT))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert "compiled: \n" in out.stdout, out.stdout


def test_warm_up_runs_on_small_inputs_and_reports_each_step():
    steps: dict[str, float] = {}
    seconds = warm_up(umap_size=60, train_steps=1, report=steps.__setitem__)
    assert list(seconds) == ["import umap", "UMAP of 60 points", "Train (1 steps)"] == list(steps)
    assert all(np.isfinite(s) and s >= 0 for s in seconds.values())
