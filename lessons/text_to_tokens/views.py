"""The text-to-tokens page's cached results: the four cuts of a text, the text's BPE tokens at a merge step, fertility
as the vocabulary grows, MiniLM's parameters. (A merge step's own merge, the last merges and the merges chart are read
off the training's merges, which the page holds.)"""

from __future__ import annotations

import math

import numpy as np

from core import bpe, pretrained, tokens
from core.bpe import BYTES
from ui import tokens as shared
from ui.cache import cached

FOUR = tuple(c for c in tokens.CUTS if c != "bpe")  # section 1's cuts, in core's order: BPE is section 2's
REFUSED = "tt_refused"  # this session's last training the queue refused (ui.jobs.refusal_notice)
CURVE_VOCABULARY = 50_000  # fertility is drawn up to this vocabulary: 49,744 merges on 50,000 words
CURVE_WORDS = 50_000
CURVE_MERGES = CURVE_VOCABULARY - BYTES
MINILM_VOCABULARY = 30_522  # BPE's fertility is read at WordPiece's size (tests/core/test_tokens.py: len(vocab.txt))
SIZES = sorted({int(round(v)) for v in np.geomspace(BYTES, CURVE_VOCABULARY, 60)})  # the curve's points


@cached(max_entries=64, copy=True)
def four_cuts(text: str, lang: str) -> dict[str, tokens.Cut]:
    """The text cut into characters, UTF-8 bytes, words (of `lang`) and MiniLM's WordPiece pieces (left out when
    MiniLM's package is missing)."""
    out = {}
    for name in FOUR:
        try:
            out[name] = shared.cut(text, name, lang)
        except pretrained.PretrainedMissing:
            continue
    return out


@cached(max_entries=64, copy=True)
def bpe_at(text: str, training: tuple, step: int) -> tokens.Cut:
    """The text's BPE tokens after `step` merges of the training `training` (its key, ui.tokens.training_key: the
    merges are that training's result, ui.tokens.merges). Keyed by the training, not its merges: 60,000 merges would
    be read on every step to make the key."""
    return tokens.bpe_cut(text, shared.merges(training), step)


@cached(max_entries=4)
def fertility_curve(lang: str) -> list[float]:
    """Tokens per word for `lang`'s 50,000 most frequent words at each merge step, from bytes (step 0) to 50,000
    tokens (the training of CURVE_MERGES merges on them)."""
    training = shared.training_key(lang, CURVE_WORDS, CURVE_MERGES)
    return bpe.fertility(shared.word_counts(lang, CURVE_WORDS), shared.merges(training))


@cached(max_entries=2)
def wordpiece_fertility(lang: str) -> float:
    """MiniLM's WordPiece pieces per word over the same words and counts. Raises PretrainedMissing."""
    return tokens.wordpiece_fertility(shared.word_counts(lang, CURVE_WORDS), shared.wordpiece())


@cached()
def minilm_price() -> tokens.Price:
    """MiniLM's embedding table and all its parameters, from its model.safetensors. Raises PretrainedMissing."""
    return tokens.price_from_file(pretrained.minilm_weights_path())


def millions(n: int) -> str:
    return f"{n / 1e6:.1f} M"


def ratio(a: float, b: float) -> str:
    """a / b to two decimals (three significant digits past 10)."""
    return (f"{a / b:.3g}" if a / b >= 10 else f"{a / b:.2f}") if b and math.isfinite(a / b) else "–"
