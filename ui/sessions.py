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

This reaches into Streamlit's private attributes (Runtime._session_mgr._session_storage._cache,
Runtime._get_async_objs()); where a Streamlit version lacks them, it does nothing (tests/app/test_sessions.py
checks the pinned version has them).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Callable
from typing import Any

import streamlit as st

REAP_EVERY_S = float(os.environ.get("EMBLAB_REAP_EVERY_S", "30"))


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
