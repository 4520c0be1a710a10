"""The "Inside a real Transformer" page's caches: MiniLM's runs of a sentence and the views each chapter draws.

The weights are loaded once per server process (ui.resources.minilm_model, the input layer's tables shared with
ui.resources.minilm_input); a sentence's runs are kept by reference, so a move that reads one head copies nothing
large; the views (copied to each learner) are the small results each chapter shows (their notices and figures:
lessons.real_transformer.charts). All are ui.cache.cached, keyed by the sentence and the settings they are computed
from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch

from core import cloud, minilm, probes
from core.probes import STAGES, VARIANTS
from core.projection import pca
from core.vectors import WordVectors
from ui.cache import cached
from ui.resources import minilm_model, shipped_profile

# A run holds every head's attention, 6 x 12 x n x n: 81 MB at MiniLM's 512 tokens, and taking the positions away
# four such runs. So that a few long sentences cannot hold gigabytes for the caches' time (issue 40: four 510-token
# sentences held 1.98 GB for 15 minutes), a sentence of more than LONG tokens is kept in caches of one entry, and
# chapter 2 keeps its variants' attention alone, in float16 (a heatmap's colour; the divergences are computed
# before, in float32): 8 short runs and 4 short chapter-2 views (~80 MB), one long of each (~195 MB at 512 tokens).
LONG = 128


def token_count(sentence: str, pair: str) -> int:
    """The WordPiece tokens MiniLM would read, [CLS] and [SEP] included (before any refusal)."""
    tokenizer = minilm_model().tokenizer
    return len((tokenizer.encode(sentence, pair) if pair else tokenizer.encode(sentence)).ids)


def learned_run(sentence: str, pair: str) -> tuple[minilm.Encoded, minilm.Forward]:
    """The sentence (and its pair, "" for none) through MiniLM with its learned positions. Raises Problem."""
    return (_long_run if token_count(sentence, pair) > LONG else _short_run)(sentence, pair)


def _run(sentence: str, pair: str) -> tuple[minilm.Encoded, minilm.Forward]:
    model = minilm_model()
    encoded = minilm.encode(model, sentence, pair or None)
    return encoded, minilm.forward(model, encoded.ids, encoded.type_ids)


# Two functions, not one decorated twice: a cache of one entry for the long sentences.
@cached(max_entries=8, ttl=900)
def _short_run(sentence: str, pair: str) -> tuple[minilm.Encoded, minilm.Forward]:
    return _run(sentence, pair)


@cached(max_entries=1, ttl=900)
def _long_run(sentence: str, pair: str) -> tuple[minilm.Encoded, minilm.Forward]:
    return _run(sentence, pair)


@dataclass(frozen=True, eq=False)
class Taken:
    """What chapter 2 keeps of probes.PositionsTaken: the numbers, and each variant's attention in the sentence's
    order, (6, 12, n, n) float16."""

    attention: dict[str, torch.Tensor]
    moved: dict[str, torch.Tensor]
    cosine: dict[str, torch.Tensor]
    order: torch.Tensor
    equivariance: tuple[float, float]
    dtype: torch.dtype


def positions_taken(sentence: str, pair: str, seed: int) -> Taken:
    """The sentence with learned positions, none, sinusoidal ones, and shuffled. Raises Problem."""
    return (_long_taken if token_count(sentence, pair) > LONG else _short_taken)(sentence, pair, seed)


def _taken(sentence: str, pair: str, seed: int) -> Taken:
    model = minilm_model()
    taken = probes.take_positions_away(model, minilm.encode(model, sentence, pair or None), seed)
    attention = {v: probes.in_sentence_order(taken.runs[v]).half() for v in VARIANTS}
    return Taken(attention, taken.moved, taken.cosine, taken.order, taken.equivariance, taken.dtype)


@cached(max_entries=4, ttl=900)
def _short_taken(sentence: str, pair: str, seed: int) -> Taken:
    return _taken(sentence, pair, seed)


@cached(max_entries=1, ttl=900)
def _long_taken(sentence: str, pair: str, seed: int) -> Taken:
    return _taken(sentence, pair, seed)


# --- The page's views: small results, copied to each learner ------------------------------------------------------


@cached(max_entries=16, copy=True)
def profile_view(sentence: str, pair: str) -> tuple[np.ndarray, dict[tuple[int, int], int], list]:
    """Every head's mean attention by offset over the learner's sentence ("" for the shipped ones), the named heads."""
    if not sentence:
        profile, named = shipped_profile()
    else:
        tensor = probes.offset_profile([learned_run(sentence, pair)])
        profile, named = tensor.numpy(), probes.positional_heads(tensor)
    return profile, {(h.layer, h.head): h.offset for h in named}, [(h.layer, h.head, h.offset, h.weight) for h in named]


@cached(max_entries=32, copy=True)  # 1 MB an entry at 512 tokens
def head_view(sentence: str, pair: str, layer: int, head: int) -> tuple[list[str], np.ndarray]:
    """One head's attention on the sentence (layer and head from 1), with its tokens."""
    encoded, run = learned_run(sentence, pair)
    return list(encoded.tokens), run.attention[layer - 1, head - 1].cpu().numpy()


@cached(max_entries=32, copy=True)
def positions_view(sentence: str, pair: str, seed: int) -> dict:
    """Chapter 2's numbers: JS divergence per head, cosine per layer, the order, the equivariance check, norms."""
    taken = positions_taken(sentence, pair, seed)
    tokens = list(learned_run(sentence, pair)[0].tokens)
    return dict(
        tokens=tokens,
        moved={v: taken.moved[v].numpy() for v in VARIANTS},
        cosine={v: taken.cosine[v].numpy() for v in VARIANTS},
        order=taken.order.tolist(),
        equivariance=taken.equivariance,
        dtype=str(taken.dtype).removeprefix("torch."),
        norms=probes.position_norms(minilm_model(), len(tokens)),
    )


@cached(max_entries=16, copy=True)  # 4 MB an entry at 512 tokens
def variant_heads(sentence: str, pair: str, seed: int, layer: int, head: int) -> dict[str, np.ndarray]:
    """One head's attention under learned positions and each variant, in the sentence's order."""
    taken = positions_taken(sentence, pair, seed)
    maps = {"learned": learned_run(sentence, pair)[1].attention[layer - 1, head - 1]}
    maps |= {v: attention[layer - 1, head - 1].float() for v, attention in taken.attention.items()}
    return {name: m.cpu().numpy() for name, m in maps.items()}


@cached(max_entries=32, copy=True)
def context_view(word: str, uses: tuple[str, ...]) -> dict:
    """Chapter 3's numbers: the word's pieces, its uses, their cosines stage by stage, and a PCA of their vectors."""
    found = probes.word_uses(minilm_model(), word, list(uses))
    out: dict[str, Any] = dict(pieces=found.pieces, uses=found.uses, missing=found.missing, coords=None)
    out["found"] = found.found
    out["refused"] = [(s, err.key, err.values) for s, err in found.refused]  # a Problem does not pickle
    out["cosines"] = {pair: c.numpy() for pair, c in probes.use_cosines(found.vectors).items()}
    if found.uses:  # the input and the six layers of every use; the static rows live in another space
        flat = found.vectors[:, 1:].reshape(-1, found.vectors.size(-1)).double().numpy()
        out["coords"] = pca(flat, 2).coords.reshape(len(found.uses), len(STAGES) - 1, 2)
    return out


@cached(max_entries=32, copy=True)
def neighbour_view(word: str, k: int, wv: WordVectors | None) -> tuple[pd.DataFrame, bool]:
    """MiniLM's nearest tokens in its static table beside GloVe's nearest words (`wv`; None: none), and whether
    GloVe has the word."""
    ours = probes.token_neighbours(minilm_model(), probes.word_pieces(minilm_model(), word), k)
    lower = word.strip().lower()
    theirs: list[tuple[str, float | None]] = [*cloud.neighbours(wv, lower, k)] if wv and lower in wv.stoi else []
    theirs += [("", None)] * (len(ours) - len(theirs))
    words = lambda pairs: [w for w, _ in pairs]  # noqa: E731
    cosines = lambda pairs: [None if c is None else round(c, 3) for _, c in pairs]  # noqa: E731
    frame = pd.DataFrame(
        dict(minilm=words(ours), minilm_cosine=cosines(ours), glove=words(theirs), glove_cosine=cosines(theirs)),
        index=pd.RangeIndex(1, len(ours) + 1),  # the nearest first, as a learner counts: 1, 2, ...
    )
    return frame, theirs[0][1] is not None
