"""Pay a server process's first-use costs before a learner does: numba's compiled UMAP code, imports, first calls.

umap-learn and pynndescent compile their numba functions on first use. pynndescent's carry numba's on-disk cache
(`cache=True`), UMAP's own do not (`smooth_knn_dist`, `compute_membership_strengths`, the layout's epoch), so
every process compiled them again. `cache_numba_functions` gives them the on-disk cache too (numba's
`Dispatcher.enable_caching`, what `cache=True` does): the compiled code is written once to `NUMBA_CACHE_DIR`
(or beside the package's sources) and loaded after that, when the image is built or by a machine's first UMAP.
pynndescent's search itself cannot be cached (it asks numba for its thread count, a pointer the cache refuses),
so core.cloud gives UMAP exact neighbours instead and never runs it.

`warm_up` runs the pages' long computations once on small inputs, through the same core calls the pages make.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from types import ModuleType

import numpy as np

PACKAGES = ("umap", "pynndescent")  # whose numba functions the embedding-space page compiles
Report = Callable[[str, float], None]  # (what was warmed, seconds)


def cache_numba_functions(packages: tuple[str, ...] = PACKAGES) -> int:
    """Give every numba function of the packages' loaded modules an on-disk cache, where it has none.

    A function wrapped by two dispatchers with different options (umap's layout epoch, serial and parallel)
    caches through one of them only: numba's cache key does not hold the options, so the two would read each
    other's code. Idempotent; call it after importing the packages and before their first compile.

    Returns:
        How many functions got a cache now.
    """
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    dispatchers: dict[int, list[Dispatcher]] = {}  # py_func's id -> its dispatchers
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in packages:
            continue
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and value.py_func.__module__.split(".")[0] in packages:
                wrappers = dispatchers.setdefault(id(value.py_func), [])
                if all(value is not d for d in wrappers):
                    wrappers.append(value)
    enabled = 0
    for wrappers in dispatchers.values():
        if any(not isinstance(d._cache, NullCache) for d in wrappers):
            continue  # cache=True already, or enabled by an earlier call
        serial = [d for d in wrappers if not d.targetoptions.get("parallel")]
        if len(wrappers) > 1 and not serial:
            continue
        (serial or wrappers)[0].enable_caching()
        enabled += 1
    return enabled


def import_umap() -> ModuleType:
    """umap-learn's module, imported (with pynndescent) with every numba function cached on disk."""
    import pynndescent  # noqa: F401
    import umap

    cache_numba_functions()
    return umap


def warm_up(*, umap_size: int = 300, train_steps: int = 2, report: Report | None = None) -> dict:
    """Compile (or load from numba's cache) UMAP's code, and run Train once, on small inputs.

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
    from core import cloud, training

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
