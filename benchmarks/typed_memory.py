"""Memory per request for the largest text a learner can type into each page's boxes (issue 55, item 3).

Each page runs in AppTest in this process at its largest settings; the boxes are then filled with `chars`
characters of distinct words and the page runs again: its peak resident set above the run before, and what it
keeps once the run's elements are dropped (labtools.memory.measured). The budget: 300 MiB peak.

    .venv/bin/python benchmarks/typed_memory.py [chars ...]     (default: 10,000, 100,000 and 1,000,000)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labtools.memory import PAGES, typed  # noqa: E402

if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 100_000, 1_000_000]
    for page in PAGES:
        for chars in sizes:
            peak, held = typed(page, chars)
            print(f"{page:26} {chars:>9,} chars per box: peak +{peak:6.0f} MiB, held +{held:5.0f} MiB")
