"""The controls simulated learners move: each one's page, widget key, and the values a benchmark moves it through.

One entry per Locust user class of loadtest/locustfile.py (which adds how a learner moves it), kept here without
Locust so that benchmarks/cpu_per_move.py and the tests can read it: importing Locust monkey-patches the standard
library for gevent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from loadtest.protocol import Element


@dataclass(frozen=True)
class Control:
    """A widget on a page, by its user key.

    bench: the values benchmarks/cpu_per_move.py moves it through, each computed once and then cached: two in a row
        differ, and so do the last and the first.
    """

    page: str
    key: str
    bench: tuple = ()

    @property
    def name(self) -> str:
        return f"{self.page}:{self.key}"

    def bench_values(self, widget: Element) -> list[Any]:
        """The benchmark's values, given the widget as the page opened (`widget`)."""
        return list(self.bench)


class TableWindow(Control):
    """The PE table's window, which the chart component sends as {"window": {start, span}}."""

    def bench_values(self, widget: Element) -> list[Any]:
        """Four windows of the first spans offered, at four first rows."""
        window = json.loads(widget.proto.json)["window"]
        *_, last_row, _last_col = window["extents"][0][0]
        span = [window["spans"][0][0], window["spans"][1][0]]
        starts = dict.fromkeys(last_row * q // 4 for q in range(4))  # 0 first; fewer when the table is short
        return [{"window": {"start": [p0, 0], "span": span}} for p0 in starts]


# Most of these words have their ten neighbours among the embedding-space cloud's 5,000 most frequent words, so the
# cloud stays the same; queen, music and war add theirs to it (core.cloud.cloud_rows), which makes another cloud:
# four clouds in all, within that page's caches (pca_coords keeps 16, kept_counts and trust 8).
FIND_WORDS = ("", "city", "france", "germany", "money", "game", "house", "family", "women", "queen", "music", "war")

CONTROLS = {
    "PEDModel": Control("positional_encoding", "pe_d_model", (120, 128, 136, 144)),
    "PEWindow": TableWindow("positional_encoding", "pe_table_chart"),
    "WordK": Control("word_embeddings", "we_nn_k", (5, 10, 15, 20)),
    "RotaryBase": Control("rotary", "rp_base", ("500000", "1000000", "50000", "10000")),
    "InputSentence": Control(
        "input_layer",
        "il_sentence",
        ("the cat sat on a mat", "king and queen walked to paris", "three small dogs", "the cat sat"),
    ),
    "AttentionSeed": Control("attention", "at_seed", (1, 2, 3, 4)),
    "EmbeddingFind": Control("embedding_space", "es_find", ("city", "queen", "france", "music", "", "war", "house")),
}
# Issue 34's class: one learner in six on each of its six pages' controls
CLASS_MIX = ("PEDModel", "WordK", "RotaryBase", "InputSentence", "AttentionSeed", "EmbeddingFind")
