"""Memory a request takes, measured in this process: Linux's peak resident set (VmHWM) reset before the request
(/proc/self/clear_refs), and the resident set kept once it is done, collected and the freed memory given back to the
system (malloc_trim, as the server's session reaper does: what malloc keeps for reuse depends on everything the
process ran before, and is no request's). Shared by the typed-input
benchmark (benchmarks/typed_memory.py) and its test (tests/app/test_typed_memory.py); memory, not time, so it
holds on a loaded machine."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
SV = "lessons/sentence_vectors/sentence_vectors.py"
# A page (or one chapter of it): (its script, its largest settings in a link, the boxes a learner types into[, the
# lines each box's text is split into: the most sentences a list reads]).
PAGES: dict[str, tuple] = {
    "input_layer": (
        "lessons/input_layer/input_layer.py",
        dict(il_mode="random", il_d_model="512", il_max_len="512"),
        ("il_sentence", "il_pair"),
    ),
    "text_to_tokens": (
        "lessons/text_to_tokens/text_to_tokens.py",
        dict(tt_words="1000", tt_merges="500"),
        ("tt_sentence",),
    ),
    "sentence_vectors/sentences": (
        SV,
        dict(sv_chapter="sentences"),
        ("sv_sentences",),
        20,
    ),  # core.sentences.MAX_SENTENCES (a test says so)
    "sentence_vectors/order": (SV, dict(sv_chapter="order"), ("sv_first", "sv_second")),
    "sentence_vectors/search": (SV, dict(sv_chapter="search", sv_k="20"), ("sv_query",)),
    "sentence_vectors/map": (SV, dict(sv_chapter="map", sv_method="PCA"), ("sv_query",)),
}


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise LookupError(field)


def _trimmed() -> None:
    """Collect the garbage and return what malloc holds after frees to the system (glibc; elsewhere only collect)."""
    gc.collect()
    if name := ctypes.util.find_library("c"):
        try:
            ctypes.CDLL(name).malloc_trim(0)
        except AttributeError:  # not glibc: no malloc_trim
            pass


def measured(request: Callable[[], Any]) -> tuple[float, float]:
    """(peak, held) MiB above the resident set before `request()`: its peak while it ran, and what stays once its
    result is dropped, the collector has run and malloc has given its free memory back."""
    _trimmed()
    Path("/proc/self/clear_refs").write_text("5")  # the peak resident set starts again from here
    before = _status_kib("VmRSS")
    result = request()
    peak = _status_kib("VmHWM") - before
    del result
    _trimmed()
    return peak / 1024, (_status_kib("VmRSS") - before) / 1024


def distinct_words(chars: int, seed: int = 0, lines: int = 1) -> str:
    """`chars` characters of words that are all different (hex counters): the most rows a word table can get; in
    `lines` lines of about the same length."""
    out, size, i = [], 0, seed * 10**8
    while size < chars:
        word = f"{i:x}q"
        out.append(word)
        size += len(word) + 1
        i += 1
    every = max(-(-len(out) // lines), 1)
    return "\n".join(" ".join(out[at : at + every]) for at in range(0, len(out), every))[:chars]


def typed(name: str, chars: int, seed: int = 0) -> tuple[float, float]:
    """(peak, held) MiB of the page `name` (PAGES: at its largest settings) when its boxes are filled with `chars`
    characters of distinct words each (drawn from `seed`), in AppTest: the larger peak of two such requests in a row,
    two different texts, and what the second keeps while its session lives (what the process loads once for a text
    that long, its kernels and buffers, is the first's; what each new text keeps is the second's)."""
    page, link, boxes, *split = PAGES[name]
    page_seed = list(PAGES).index(name) * 10**4  # each page its own texts: none found in another's caches
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(page)
    for setting, value in link.items():
        at.query_params[setting] = value
    at.run()

    def request(texts: int) -> Callable[[], None]:
        def run() -> None:
            for i, key in enumerate(boxes):
                box = next(w for w in (*at.text_input, *at.text_area) if w.key == key)
                box.set_value(distinct_words(chars, (page_seed + texts) * len(boxes) + i, *split))
            at.run()
            assert not at.exception, at.exception

        return run

    first, _ = measured(request(2 * seed))
    second, held = measured(request(2 * seed + 1))
    return max(first, second), held
