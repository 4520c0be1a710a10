"""Warm this process before it serves: UMAP's numba code, Train, GloVe and the MiniLM tables.

    python scripts/warm_up.py            # warm up and print each step's time (fills numba's on-disk cache)
    python scripts/warm_up.py --core     # UMAP and Train alone (no page tables): the image's build step, fills NUMBA_CACHE_DIR
    python scripts/warm_up.py streamlit run serve.py [ARGS] # warm up, then serve from this same process
                                                            # (what `python serve.py --warm-up` runs)

Serving this way, the server opens its port only once the warm-up is done, so `/_stcore/health` (Docker's
HEALTHCHECK, a Kubernetes readiness probe, the proxy's check) answers only from a warm process: the tables are in
the caches the pages read (st.cache_resource is per process, so they must be loaded in the serving process), and
UMAP's code is compiled. The Docker image's entry point serves this way (`python serve.py --warm-up`).

While it warms up to serve, the process keeps a marker file (scripts/docker_healthcheck.py's warm_up_marker: the
time it started, then the step it is on), removed once the server's port accepts connections: meanwhile the health
check fails saying "starting" and the step.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

Report = Callable[[str, float], None]  # (what was warmed, seconds)


def warm_up(*, umap_size: int = 300, train_steps: int = 2, report: Report | None = None) -> dict[str, float]:
    """Compile (or load from numba's cache) UMAP's code, and run Train once, on small inputs, through the same core
    calls the pages make.

    t-SNE is left out: openTSNE compiles nothing, and its first run in a process is as fast as the next
    (benchmarks/cold_start.py).

    Args:
        umap_size: points for one UMAP (0 skips it); the compiled code does not depend on the size, since UMAP
            always gets exact neighbours (core.cloud._umap).
        train_steps: steps of the learned-vs-sinusoidal model, once per position kind (torch's first backward
            pass and Adam step); 0 skips it.
        report: called as report(what, seconds) after each step.

    Returns:
        Seconds per step.
    """
    import numpy as np

    from core import cloud, training
    from core.numba_cache import import_umap

    rng = np.random.default_rng(0)
    seconds: dict[str, float] = {}

    def step(what: str, work: Callable[[], object]) -> None:
        start = time.perf_counter()
        work()
        seconds[what] = time.perf_counter() - start
        if report:
            report(what, seconds[what])

    step("import umap", import_umap)
    if umap_size:
        x = rng.standard_normal((umap_size, 50)).astype(np.float32)  # (n, 50): GloVe 6B 50d's width
        step(f"UMAP of {umap_size} points", lambda: cloud.project(x, cloud.CloudConfig("UMAP")))
    if train_steps:
        cfgs = [training.TrainConfig(position=p, steps=train_steps) for p in training.POSITIONS]
        step(f"Train ({train_steps} steps)", lambda: [training.train(c) for c in cfgs])
    return seconds


def log(what: str, seconds: float) -> None:
    print(f"emblab warm-up: {what}: {seconds:.1f} s", file=sys.stderr, flush=True)


class Marker:
    """The file the health check reads while this process warms up to serve: the time the warm-up started, then
    the last step done. `done()` removes it."""

    def __init__(self) -> None:
        from scripts.docker_healthcheck import warm_up_marker

        self.path = warm_up_marker(os.getpid(), dict(os.environ))
        self.started = time.time()
        self.write("started")
        atexit.register(self.done)

    def write(self, step: str) -> None:
        with contextlib.suppress(OSError):  # no writable TMPDIR: the health check fails until the port opens
            self.path.write_text(f"{self.started}\n{step}\n")

    def report(self, what: str, seconds: float) -> None:
        log(what, seconds)
        self.write(f"{what} done")

    def done(self) -> None:
        self.path.unlink(missing_ok=True)

    def done_once_serving(self) -> threading.Thread:
        """A thread that removes the marker once this process's server accepts connections on its port."""

        def watch() -> None:
            from streamlit import config
            from streamlit.runtime import Runtime

            while not Runtime.exists():
                time.sleep(0.2)
            port = int(config.get_option("server.port"))
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                except OSError:
                    time.sleep(0.2)
                    continue
                self.done()
                return

        thread = threading.Thread(target=watch, name="emblab-warm-up-marker", daemon=True)
        thread.start()
        return thread


@contextlib.contextmanager
def cache_lock() -> Iterator[None]:
    """Held while loading the tables: replicas that share one cache folder (deploy/compose.yaml's volume) then
    write GloVe's unit rows one at a time, the first writing the file and the others mapping it."""
    from core.glove import cache_dir

    try:
        cache_dir().mkdir(parents=True, exist_ok=True)
        lock = (cache_dir() / ".lock").open("a")
    except OSError:  # a folder this user cannot write: each process keeps the rows in its own memory
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def main(argv: list[str]) -> int:
    serve = argv[:2] == ["streamlit", "run"]
    core_only = argv[:1] == ["--core"]
    if not (serve or core_only or not argv):
        print(__doc__, file=sys.stderr)
        return 2
    marker = Marker() if serve else None
    report = marker.report if marker else log
    start = time.perf_counter()
    warm_up(report=report)
    if not core_only:
        from ui.resources import preload

        # Loading outside a script run is what this is for: Streamlit's warning that there is none is noise here.
        quiet = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
        level = quiet.level
        quiet.setLevel(logging.ERROR)
        try:
            with cache_lock():
                preload(report=report)
        finally:
            quiet.setLevel(level)
    log("all", time.perf_counter() - start)
    if not serve:
        return 0
    from ui.sessions import release_free_memory

    # What the warm-up freed (UMAP's and Train's arrays, the loaders' buffers) goes back to the system before the
    # server starts, instead of waiting in malloc's arenas for the first session to end (ui.sessions trims then).
    release_free_memory()
    from streamlit.web import cli

    os.chdir(ROOT)
    assert marker is not None
    marker.write("opening the port")
    marker.done_once_serving()
    return cli.main(argv[1:], prog_name="streamlit")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
