"""ui.sessions: a closed tab's session is shut down and forgotten once Streamlit's reconnect window is over."""

import ctypes
import ctypes.util
import subprocess
import sys
import time
from typing import cast

from streamlit.runtime.app_session import AppSession
from streamlit.runtime.memory_session_storage import MemorySessionStorage
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.session_manager import SessionInfo
from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

import ui.sessions
from labtools.server import ROOT
from ui.sessions import SessionReaper, release_free_memory, settle_heap

TTL = 120


class FakeSession:
    """What the storage and the reaper use of an AppSession."""

    def __init__(self, session_id: str) -> None:
        self.id = session_id
        self.shut_down = False

    def shutdown(self) -> None:
        self.shut_down = True


def stored(storage: MemorySessionStorage, session_id: str) -> FakeSession:
    session = FakeSession(session_id)
    storage.save(SessionInfo(client=None, session=cast(AppSession, session)))  # what they read of one
    return session


def test_sessions_past_the_window_are_shut_down_and_forgotten_with_no_other_traffic():
    storage = MemorySessionStorage(ttl_seconds=TTL)
    released = []
    reaper = SessionReaper(storage._cache, release=lambda: released.append(True))
    sessions = [stored(storage, f"s{i}") for i in range(3)]
    assert reaper.reap() == 0 and not any(s.shut_down for s in sessions) and not released  # within the window
    assert reaper.reap(at_time=time.monotonic() + TTL + 1) == 3
    assert all(s.shut_down for s in sessions) and storage.list() == [] and released == [True]
    assert reaper.reap(at_time=time.monotonic() + TTL + 1) == 0 and released == [True] and reaper.reaped == 3


def test_a_session_whose_window_is_not_over_is_kept_for_its_reconnect():
    storage = MemorySessionStorage(ttl_seconds=TTL)
    reaper = SessionReaper(storage._cache, release=lambda: None)
    early = stored(storage, "early")
    between = time.monotonic() + TTL
    while time.monotonic() + TTL <= between:  # the second session is saved strictly later
        time.sleep(0.001)  # the condition is the clock itself: the loop ends once it has moved on
    late = stored(storage, "late")
    assert reaper.reap(at_time=between) == 1
    assert early.shut_down and not late.shut_down
    assert storage.get("late") is not None and storage.get("early") is None


def test_the_pinned_streamlit_keeps_sessions_where_the_reaper_looks():
    """start_reaper reads these private attributes; it does nothing where they are missing, so check them here."""
    from streamlit.runtime.runtime import Runtime
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache

    manager = WebsocketSessionManager(
        session_storage=MemorySessionStorage(ttl_seconds=TTL),
        uploaded_file_manager=MemoryUploadedFileManager("/_stcore/upload_file"),
        script_cache=ScriptCache(),
        message_enqueued_callback=None,
    )
    from streamlit.runtime.caching.ttl_cache import TTLCache

    assert isinstance(manager._session_storage, MemorySessionStorage)
    assert isinstance(manager._session_storage._cache, TTLCache)
    assert callable(manager._session_storage._cache.expire)
    assert callable(Runtime._get_async_objs)


def test_free_memory_is_given_back_and_skipped_where_there_is_no_glibc(monkeypatch):
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    blocks = [libc.malloc(4096) for _ in range(20_000)]  # 80 MB of small blocks, from malloc's heap, not mmap
    for block in blocks[:-1]:  # the last one kept: the freed pages lie inside the heap, where only a trim frees them
        libc.free(block)
    try:
        assert release_free_memory() is True
    finally:
        libc.free(blocks[-1])
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)  # musl, macOS: no malloc_trim to call
    assert release_free_memory() is False


def test_the_app_runs_without_a_server_to_reap_in(open_page):
    open_page("lessons/overview/overview.py")  # AppTest: no Runtime with a session storage; start_reaper does nothing


def test_each_pages_first_run_in_the_process_freezes_the_heap_once(monkeypatch):
    froze = []
    monkeypatch.setattr(ui.sessions, "_SETTLED", set())
    monkeypatch.setattr(ui.sessions, "freeze_heap", lambda: froze.append(True))
    assert settle_heap("pe") and not settle_heap("pe") and settle_heap("we") and not settle_heap("we")
    assert froze == [True, True]


def test_the_app_settles_the_heap_after_a_pages_run(open_page, monkeypatch):
    settled = []
    monkeypatch.setattr(ui.sessions, "_SETTLED", set())
    monkeypatch.setattr(ui.sessions, "freeze_heap", lambda: settled.append(True))
    open_page("lessons/overview/overview.py")
    assert ui.sessions._SETTLED == {"ov"} and settled == [True]


FROZEN = """
import gc
from ui.sessions import freeze_heap
freed = []


class Node:
    def __del__(self):
        freed.append(True)


kept = [{"i": i} for i in range(10_000)]  # tracked containers, alive
cycle = Node()
cycle.me = cycle  # garbage only the collector frees
del cycle
freeze_heap()
assert freed == [True]  # collected before the freeze, not kept for good
assert gc.get_freeze_count() >= 10_000, gc.get_freeze_count()
assert not any(o is kept for o in gc.get_objects())  # out of every collection's walk
"""


def test_freezing_collects_the_garbage_first_and_puts_what_is_alive_out_of_the_collectors_walk():
    # in a process of its own: a freeze lasts for the process
    run = subprocess.run([sys.executable, "-c", FROZEN], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
