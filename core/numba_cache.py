"""numba's on-disk cache for UMAP's compiled code, so that a process loads it instead of compiling it again.

umap-learn and pynndescent compile their numba functions on first use. pynndescent's carry numba's on-disk cache
(`cache=True`), UMAP's own do not (`smooth_knn_dist`, `compute_membership_strengths`, the layout's epoch), so
every process compiled them again. `cache_numba_functions` gives them the on-disk cache too (numba's
`Dispatcher.enable_caching`, what `cache=True` does): the compiled code is written once to `NUMBA_CACHE_DIR`
(or beside the package's sources) and loaded after that, when the image is built (scripts/warm_up.py) or by a
machine's first UMAP. pynndescent's search itself cannot be cached (it asks numba for its thread count, a pointer
the cache refuses), so core.cloud gives UMAP exact neighbours instead and never runs it.
"""

from __future__ import annotations

import sys
from types import ModuleType

PACKAGES = ("umap", "pynndescent")  # whose numba functions the embedding-space page compiles


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
        # numba says whether a dispatcher caches only through its private _cache (which enable_caching sets), so
        # numba's own stub (dispatcher.pyi) leaves it out.
        if any(not isinstance(d._cache, NullCache) for d in wrappers):  # type: ignore[attr-defined]
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
