"""How long a full garbage collection holds the GIL in a warm replica, before and after ui.sessions.freeze_heap.

A replica's heap after its warm-up (ui.resources.preload: every module the pages import, GloVe, the MiniLM tables
and encoder; then UMAP and scikit-learn, which the embedding-space page imports) holds some 400,000 objects the
collector tracks. Python runs a full collection every so often as objects pile up; while it walks them, no
learner's run on that replica moves. Printed: the tracked objects, and the CPU time of a full collection
(gc.collect(), the median of --repeat) before the freeze and after it.

    flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/gc_pause.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def full_collection_ms(repeat: int) -> float:
    """The median CPU time of `repeat` full collections, in ms."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        gc.collect()
        times.append(1000 * (time.process_time() - start))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import ui.resources
    import ui.sessions

    ui.resources.freeze_heap = lambda: None  # the heap as it was before the freeze
    ui.resources.preload()
    import sklearn.manifold  # noqa: F401
    import umap  # noqa: F401

    before = full_collection_ms(args.repeat)
    tracked = len(gc.get_objects())
    ui.sessions.freeze_heap()
    after = full_collection_ms(args.repeat)
    print(f"a warm replica's heap: {tracked:,} objects tracked by the collector")
    print(f"full collection, median of {args.repeat}: {before:.1f} ms CPU before the freeze, {after:.1f} ms after")
    print(
        f"left for the collector after the freeze: {len(gc.get_objects()):,} objects ({gc.get_freeze_count():,} frozen)"
    )


if __name__ == "__main__":
    main()
