"""The large read-only tables every learner shares, loaded once per server process (ui.cache.cached: the one idiom,
the object itself shared, never changed); `preload` loads them all.

GloVe's loader is ui.vectors.bundled_vectors (every vectors picker uses it); the MiniLM tables are here. `preload` runs
before the server serves (scripts/warm_up.py), so that no learner's first page waits for a load.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from collections.abc import Callable

import numpy as np
import streamlit as st

import core
import figures
from core import minilm, pretrained, probes, sentences
from core.glove import VectorsError
from ui.cache import cached
from ui.device import device, device_choice
from ui.sessions import freeze_heap
from ui.vectors import _bundled_vectors


@cached()  # a 90 MB read, once per server
def minilm_input() -> pretrained.MiniLMInput:
    """all-MiniLM-L6-v2's input layer (word, position and token-type tables, LayerNorm, tokenizer).

    Raises PretrainedMissing when its package is not installed.
    """
    return pretrained.MiniLMInput(device=device())


@cached()  # a 0.8 MB read
def minilm_positions() -> np.ndarray:
    """all-MiniLM-L6-v2's learned position table, (512, 384). Raises PretrainedMissing without its package."""
    return pretrained.minilm_position_table().numpy()


@cached()  # the encoder's 43 MB beside the input layer's tables
def minilm_model() -> minilm.MiniLM:
    """all-MiniLM-L6-v2's encoder on the server's device. Raises PretrainedMissing without its package."""
    return minilm.load_minilm(device=device(), input_layer=minilm_input())


@cached()
def shipped_profile() -> tuple[np.ndarray, list[probes.NamedHead]]:
    """Every head's mean attention by offset over the shipped sentences, and the heads the rule names."""
    profile = probes.offset_profile(probes.run_sentences(minilm_model(), probes.read_sentences()))
    return profile.numpy(), probes.positional_heads(profile)


@cached()
def sentence_collection() -> sentences.Collection:
    """The shipped sentences (data/sentences.tsv) as MiniLM sentence embeddings and GloVe means, computed once per
    server and shared by every learner of the "Sentence vectors" page (about 0.6 MB of vectors).

    Raises PretrainedMissing or VectorsError when MiniLM's or GloVe's package is not installed.
    """
    return sentences.embed_collection(minilm_model(), _bundled_vectors())


@cached()
def shipped_order_cosines() -> tuple[tuple[sentences.OrderPair, dict[str, float]], ...]:
    """Each shipped word-order pair (data/sentence_pairs.tsv) and its cosine under each of core.sentences.METHODS,
    once per server. Raises PretrainedMissing or VectorsError as sentence_collection does."""
    pairs = sentences.read_pairs()
    cosines = sentences.order_cosines_of(minilm_model(), _bundled_vectors(), [(p.first, p.second) for p in pairs])
    return tuple(zip(pairs, cosines, strict=True))


# Not ui.cache.cached: no result, a side effect made once per process, which every other caller waits for.
@st.cache_resource(show_spinner=False)
def import_libraries() -> None:
    """Import pandas, plotly, torch, core and figures once, in one session's thread, while the others wait.

    Each session runs its page in a thread of its own. Two first visits at once would import pandas in two threads,
    and Python's import lock may then hand one of them the half-imported module ("partially initialized module
    'pandas' has no attribute 'Series'", tests/loadtest/test_locust.py). A cached resource is made once: every other
    caller waits for it. app.py calls this before any page runs.
    """
    import pandas  # noqa: F401
    import plotly.graph_objects  # noqa: F401

    for package in (core, figures):
        for module in _modules(package):
            importlib.import_module(module.name)


def preload(report: Callable[[str, float], None] | None = None) -> None:
    """Import every module the pages use and fill the caches above and GloVe's (with its unit rows and word index),
    the shipped sentences' vectors included;
    skip a table whose package is missing.

    Args:
        report: called as report(what, seconds) after each step.
    """
    steps: list[tuple[str, Callable[[], object]]] = [
        ("imports", import_libraries),
        ("device", device_choice),
        ("GloVe", _glove),
        ("MiniLM input layer", minilm_input),
        ("MiniLM positions", minilm_positions),
        ("MiniLM encoder and its positional heads", shipped_profile),
        ("the shipped sentences' vectors", sentence_collection),
        ("the word-order pairs' cosines", shipped_order_cosines),
    ]
    for what, load in steps:
        start = time.perf_counter()
        try:
            load()
        except (VectorsError, pretrained.PretrainedMissing) as err:  # the page says what to install
            what = f"{what} skipped ({err})"
        if report:
            report(what, time.perf_counter() - start)
    freeze_heap()  # all of it loaded for good: out of the collector's way (ui.sessions.settle_heap)


def _glove() -> object:
    wv = _bundled_vectors()
    return wv.unit, wv.stoi  # each built on its first use: cosine searches, word lookups


def _modules(package) -> list[pkgutil.ModuleInfo]:
    return list(pkgutil.iter_modules(package.__path__, package.__name__ + "."))
