"""scripts/warm_up.py's cache_lock: replicas sharing one cache folder (deploy/compose.yaml's volume) load GloVe's
unit rows one at a time, so that one writes the file and the others map it."""

import threading

from scripts.warm_up import cache_lock


def test_a_second_replica_waits_for_the_first(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBLAB_CACHE_DIR", str(tmp_path / "cache"))
    order = []

    def second() -> None:
        with cache_lock():  # flock: a second open of the file waits, in another process or in this one
            order.append("second in")

    with cache_lock():
        other = threading.Thread(target=second)
        other.start()
        other.join(timeout=1)
        assert other.is_alive() and not order  # blocked while the first holds the lock
        order.append("first out")
    other.join(timeout=10)
    assert order == ["first out", "second in"]


def test_a_folder_it_cannot_write_is_no_lock(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("EMBLAB_CACHE_DIR", str(tmp_path / "file" / "cache"))  # under a file: mkdir fails
    with cache_lock():
        pass
