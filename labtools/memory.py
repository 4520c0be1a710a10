"""Memory a request takes, measured in this process: Linux's peak resident set (VmHWM) reset before the request
(/proc/self/clear_refs), and the resident set kept once it is done and collected. Shared by the typed-input
benchmark (benchmarks/typed_memory.py) and its test (tests/app/test_typed_memory.py); memory, not time, so it
holds on a loaded machine."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGES = {  # page: (its largest settings in a link, the boxes a learner types into)
    "lessons/input_layer/input_layer.py": (
        dict(il_mode="random", il_d_model="512", il_max_len="512"),
        ("il_sentence", "il_pair"),
    ),
    "lessons/text_to_tokens/text_to_tokens.py": (dict(tt_words="1000", tt_merges="500"), ("tt_sentence",)),
}


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise LookupError(field)


def measured(request: Callable[[], Any]) -> tuple[float, float]:
    """(peak, held) MiB above the resident set before `request()`: its peak while it ran, and what stays once its
    result is dropped and the collector has run."""
    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # the peak resident set starts again from here
    before = _status_kib("VmRSS")
    result = request()
    peak = _status_kib("VmHWM") - before
    del result
    gc.collect()
    return peak / 1024, (_status_kib("VmRSS") - before) / 1024


def distinct_words(chars: int, seed: int = 0) -> str:
    """`chars` characters of words that are all different (hex counters): the most rows a word table can get."""
    out, size, i = [], 0, seed * 10**8
    while size < chars:
        word = f"{i:x}q"
        out.append(word)
        size += len(word) + 1
        i += 1
    return " ".join(out)[:chars]


def typed(page: str, chars: int) -> tuple[float, float]:
    """(peak, held) MiB of one run of `page` (PAGES: at its largest settings) after its boxes are filled with `chars`
    characters of distinct words each, in AppTest."""
    link, boxes = PAGES[page]
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(page)
    for name, value in link.items():
        at.query_params[name] = value
    at.run()

    def request() -> None:
        for seed, key in enumerate(boxes):
            box = next(w for w in (*at.text_input, *at.text_area) if w.key == key)
            box.set_value(distinct_words(chars, seed))
        at.run()
        assert not at.exception, at.exception

    return measured(request)
