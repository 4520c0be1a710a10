"""Let go of a closed tab's session once Streamlit's reconnect window is over, and give its memory back.

Streamlit keeps a disconnected session (its state, and the download buttons' deferred files with the tables they
were made from) for server.disconnectedSessionTTL seconds, so that a reconnect resumes it, in a TTLCache of at
most 128 sessions. That cache drops an expired session only when it is next written to, that is when another
session disconnects: after a class leaves, the last 128 sessions stay in memory for good. And a session that is
dropped is not shut down (its downloads stay registered) until the garbage collector finds it. Even then glibc's
malloc keeps the freed memory for reuse, so the server's RSS never falls back.

`start_reaper` (app.py calls it on every run; it starts once per process) schedules a callback on the server's
event loop, where Streamlit itself touches its session storage: every REAP_EVERY_S seconds it removes the
sessions whose time is up, shuts each down as Streamlit's own close does (uploaded and download files, session
caches, its event loop), and returns the freed memory to the system (malloc_trim).

`settle_heap` (app.py calls it after every run) keeps Python's garbage collector off what the process loaded
once: after the first run of each page in the process (its libraries imported, its tables and models loaded),
everything the collector tracks is frozen (gc.freeze), so a full collection no longer walks the 400,000 objects of
torch, plotly, pandas, GloVe's vocabulary and the rest. Such a collection held the GIL for about 270 ms (every
learner on the replica waited) and came every few dozen runs; frozen, it takes about 2 ms
(docs/performance.md, "Page opens"). Garbage is collected first, so none is frozen; the objects of the sessions
open at that moment are frozen too, and are freed by their reference counts but never by the collector.

This reaches into Streamlit's private attributes (Runtime._session_mgr._session_storage._cache,
Runtime._get_async_objs()); where a Streamlit version lacks them, it does nothing (tests/app/test_sessions.py
checks the pinned version has them).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import threading
from collections.abc import Callable
from typing import Any

import streamlit as st

REAP_EVERY_S = float(os.environ.get("EMBLAB_REAP_EVERY_S", "30"))


_SETTLED: set[str] = set()  # the pages whose first run in this process is over
_SETTLING = threading.Lock()


def settle_heap(page: str) -> bool:
    """After the first run of `page` in this process: collect the garbage, then freeze every object the collector
    tracks (gc.freeze), so that what the page loaded once is never walked again by a full collection; True when it
    froze."""
    with _SETTLING:
        if page in _SETTLED:
            return False
        _SETTLED.add(page)
    freeze_heap()
    return True


def freeze_heap() -> None:
    """Collect the garbage, then move every object the collector tracks out of its reach for good (gc.freeze)."""
    gc.collect()
    gc.freeze()


def release_free_memory() -> bool:
    """Return the memory malloc holds after frees to the system (glibc's malloc_trim); False where there is none."""
    name = ctypes.util.find_library("c")
    try:
        return bool(ctypes.CDLL(name).malloc_trim(0)) if name else False
    except (OSError, AttributeError):  # not glibc (musl, macOS): its malloc has no malloc_trim
        return False


class SessionReaper:
    """Shuts down the sessions that a session storage's TTLCache holds past their time, and counts them.

    Args:
        cache: Streamlit's TTLCache of disconnected sessions (session id -> SessionInfo).
        release: called after sessions were shut down (default: release_free_memory).
    """

    def __init__(self, cache: Any, release: Callable[[], object] = release_free_memory) -> None:
        self.cache = cache
        self.release = release
        self.reaped = 0

    def reap(self, at_time: float | None = None) -> int:
        """Remove the sessions expired at `at_time` (default now) and shut each down; how many there were.

        Must run where Streamlit touches the storage (the server's event loop).
        """
        count = _shut_down(self.cache.expire(at_time))  # dropped on return: freed before the memory is returned
        if count:
            self.release()
        self.reaped += count
        return count


def _shut_down(expired: list[tuple[str, Any]]) -> int:
    for _, info in expired:
        info.session.shutdown()  # what Runtime.close_session does for a stored session
    return len(expired)


def _every(loop: Any, seconds: float, work: Callable[[], object]) -> None:
    """Run work() on `loop` every `seconds`, from now on (a callback that schedules its next run)."""

    def tick() -> None:
        try:
            work()
        finally:
            loop.call_later(seconds, tick)

    loop.call_soon_threadsafe(lambda: loop.call_later(seconds, tick))


# Not ui.cache.cached: no result, the process's one reaper thread, started once.
@st.cache_resource(show_spinner=False)
def start_reaper() -> SessionReaper | None:
    """The process's reaper, started on the first call; None where there is no server (AppTest) or its Streamlit
    keeps sessions some other way."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return None
    runtime = Runtime.instance()
    cache = getattr(getattr(getattr(runtime, "_session_mgr", None), "_session_storage", None), "_cache", None)
    if cache is None or not hasattr(cache, "expire"):
        return None
    try:
        loop = runtime._get_async_objs().eventloop
    except (AttributeError, RuntimeError):  # a Runtime that has not started
        return None
    reaper = SessionReaper(cache)
    _every(loop, REAP_EVERY_S, reaper.reap)
    return reaper
