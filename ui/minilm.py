"""The "Inside a real Transformer" page's caches: MiniLM's encoder and its runs, the views the page draws, its figures.

The weights are loaded once per server process (the input layer's tables shared with ui.resources.minilm_input);
a sentence's runs are kept by reference, so a move that reads one head copies nothing large; the views (st.cache_data)
are the small results each chapter shows. The figures a head move draws are kept too: building a plotly figure (its validation) was most of a move's server CPU (benchmarks/minilm.py),
and a class moves through the same few heads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core import cloud, minilm, probes
from core.probes import STAGES, VARIANTS
from core.projection import pca
from ui.i18n import t
from ui.resources import minilm_model, shipped_profile


def unknown_notice(tokenizer, sentence: str, pair: str = "", *, where=st, line: int | None = None) -> None:
    """A warning when MiniLM's tokenizer reads part of the text as [UNK]: that its vocabulary is English, how many of
    the text's pieces were unknown, and which characters they were (the tokenizer's offsets into the text typed).

    Args:
        tokenizer: the model's tokenizers.Tokenizer; line: the text's number in a list of sentences, if any.
    """
    enc = tokenizer.encode(sentence, pair) if pair else tokenizer.encode(sentence)
    texts = (sentence, pair)
    inner = [
        (tok, at, seq)
        for tok, at, seq in zip(enc.tokens, enc.offsets, enc.sequence_ids, strict=True)
        if seq is not None
    ]
    unknown = [texts[seq][a:b] for tok, (a, b), seq in inner if tok == minilm.UNKNOWN]
    if unknown:
        text = ", ".join(f"“{piece}”" for piece in unknown)
        where_ = t("tf.unknown_use", n=line) if line is not None else ""
        where.warning(t("tf.unknown_pieces", where=where_, n=len(unknown), total=len(inner), text=text))


# A run holds every head's attention, 6 x 12 x n x n: kept for a few sentences, for a while.
@st.cache_resource(max_entries=8, ttl=900, show_spinner=False)
def learned_run(sentence: str, pair: str) -> tuple[minilm.Encoded, minilm.Forward]:
    """The sentence (and its pair, "" for none) through MiniLM with its learned positions. Raises Problem."""
    model = minilm_model()
    encoded = minilm.encode(model, sentence, pair or None)
    return encoded, minilm.forward(model, encoded.ids, encoded.type_ids)


@st.cache_resource(max_entries=4, ttl=900, show_spinner=False)
def positions_taken(sentence: str, pair: str, seed: int) -> probes.PositionsTaken:
    """The sentence with learned positions, none, sinusoidal ones, and shuffled. Raises Problem."""
    model = minilm_model()
    return probes.take_positions_away(model, minilm.encode(model, sentence, pair or None), seed)


# --- The page's views: small results, copied to each learner ------------------------------------------------------


@st.cache_data(max_entries=16, show_spinner=False)
def profile_view(sentence: str, pair: str) -> tuple[np.ndarray, dict[tuple[int, int], int], list]:
    """Every head's mean attention by offset over the learner's sentence ("" for the shipped ones), the named heads."""
    if not sentence:
        profile, named = shipped_profile()
    else:
        tensor = probes.offset_profile([learned_run(sentence, pair)])
        profile, named = tensor.numpy(), probes.positional_heads(tensor)
    return profile, {(h.layer, h.head): h.offset for h in named}, [(h.layer, h.head, h.offset, h.weight) for h in named]


@st.cache_data(max_entries=64, show_spinner=False)
def head_view(sentence: str, pair: str, layer: int, head: int) -> tuple[list[str], np.ndarray]:
    """One head's attention on the sentence (layer and head from 1), with its tokens."""
    encoded, run = learned_run(sentence, pair)
    return list(encoded.tokens), run.attention[layer - 1, head - 1].cpu().numpy()


@st.cache_data(max_entries=32, show_spinner=False)
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


@st.cache_data(max_entries=64, show_spinner=False)
def variant_heads(sentence: str, pair: str, seed: int, layer: int, head: int) -> dict[str, np.ndarray]:
    """One head's attention under learned positions and each variant, in the sentence's order."""
    taken = positions_taken(sentence, pair, seed)
    return {name: probes.in_sentence_order(run)[layer - 1, head - 1].cpu().numpy() for name, run in taken.runs.items()}


@st.cache_data(max_entries=32, show_spinner=False)
def context_view(word: str, uses: tuple[str, ...]) -> dict:
    """Chapter 3's numbers: the word's pieces, its uses, their cosines stage by stage, and a PCA of their vectors."""
    found = probes.word_uses(minilm_model(), word, list(uses))
    out: dict[str, Any] = dict(pieces=found.pieces, uses=found.uses, missing=found.missing, coords=None)
    out["refused"] = [(s, err.key, err.values) for s, err in found.refused]  # a Problem does not pickle
    out["cosines"] = {pair: c.numpy() for pair, c in probes.use_cosines(found.vectors).items()}
    if found.uses:  # the input and the six layers of every use; the static rows live in another space
        flat = found.vectors[:, 1:].reshape(-1, found.vectors.size(-1)).double().numpy()
        out["coords"] = pca(flat, 2).coords.reshape(len(found.uses), len(STAGES) - 1, 2)
    return out


@st.cache_data(max_entries=32, show_spinner=False)
def neighbour_view(word: str, k: int, glove: bool, _wv) -> tuple[pd.DataFrame, bool]:
    """MiniLM's nearest tokens in its static table beside GloVe's nearest words (_wv, when `glove`), and whether
    GloVe has the word."""
    ours = probes.token_neighbours(minilm_model(), probes.word_pieces(minilm_model(), word), k)
    lower = word.strip().lower()
    theirs: list[tuple[str, float | None]] = [*cloud.neighbours(_wv, lower, k)] if glove and lower in _wv.stoi else []
    theirs += [("", None)] * (len(ours) - len(theirs))
    words = lambda pairs: [w for w, _ in pairs]  # noqa: E731
    cosines = lambda pairs: [None if c is None else round(c, 3) for _, c in pairs]  # noqa: E731
    frame = pd.DataFrame(
        dict(minilm=words(ours), minilm_cosine=cosines(ours), glove=words(theirs), glove_cosine=cosines(theirs)),
        index=pd.RangeIndex(1, len(ours) + 1),  # the nearest first, as a learner counts: 1, 2, ...
    )
    return frame, theirs[0][1] is not None


# --- Its figures ----------------------------------------------------------------------------------------------------


KEPT_CELLS = 4 * 64 * 64  # a figure with more values than this (a long sentence's heatmaps) is not kept


def kept_figure(kind: str, key: tuple, texts: tuple, build: Callable[[], go.Figure], *, cells: int = 0) -> go.Figure:
    """The figure `build()` makes, made once per (kind, key, texts) and shared, never changed after: `key` must name
    everything its data depends on (the settings), `texts` every word it shows (the reader's language). A figure of
    more than KEPT_CELLS values is built each time."""
    return build() if cells > KEPT_CELLS else _kept(kind, key, texts, build)


@st.cache_resource(max_entries=256, ttl=3600, show_spinner=False)
def _kept(kind: str, key: tuple, texts: tuple, _build: Callable[[], go.Figure]) -> go.Figure:
    return _build()
