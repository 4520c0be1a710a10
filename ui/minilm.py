"""The "Inside a real Transformer" page's caches: MiniLM's encoder and its runs, the views the page draws, its figures.

The weights are loaded once per server process (the input layer's tables shared with ui.resources.minilm_input);
a sentence's runs are kept by reference, so a move that reads one head copies nothing large; the views (copied to
each learner) are the small results each chapter shows, and the notices under them are read from those results
(core.claims). All are ui.cache.cached, keyed by the sentence and the settings they are computed from. The figures a
head move draws are kept too (`draw`, `kept_figure`): building a plotly figure (its validation) was most of a move's
server CPU (benchmarks/minilm.py), and a class moves through the same few heads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
import torch

from core import claims, cloud, minilm, probes
from core.minilm import HEADS, LAYERS
from core.probes import STAGES, VARIANTS
from core.projection import pca
from core.vectors import WordVectors
from ui import live_chart
from ui.cache import cached
from ui.i18n import Message, t
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


# --- Their notices: what the figures show, in words (core.claims) --------------------------------------------------


def heads_claim(listed: list[tuple[int, int, int, float]], source: str) -> str:
    """The grid's named heads in words: how many, in which layers, and the strongest (listed strongest first)."""
    if not listed:
        return t("tf.heads_none", source=source)
    layer, head, offset, weight = listed[0]
    numbers = sorted({la + 1 for la, *_ in listed})
    layers = t("tf.heads_layers", n=len(numbers), layers=t("tf.sep").join(map(str, numbers)))
    side = t("tf.heads_prev" if offset < 0 else "tf.heads_next")
    return t(
        "tf.heads_named", n=len(listed), source=source, layers=layers, layer=layer + 1, head=head + 1,
        weight=f"{weight:.0%}", side=side,
    )  # fmt: skip


def moved_claim(moved: dict[str, np.ndarray], labels: dict[str, str]) -> str:
    """The divergence grid in words: per variant, the head that moved most and the mean over every head."""
    said = []
    for variant, grid in moved.items():
        (layer, head), bits = claims.highest(
            {(la, h): float(grid[la, h]) for la in range(LAYERS) for h in range(HEADS)}
        )
        name = t("tf.head_name", layer=layer + 1, head=head + 1)
        said.append(
            t("tf.moved_most", variant=labels[variant], head=name, bits=f"{bits:.2f}", mean=f"{grid.mean():.2f}")
        )
    return t("tf.moved_claim", each=Message(t("tf.moved_sep").join(said)))


def uses_claims(cosines: dict[tuple[int, int], np.ndarray], names: list[str], last: str) -> str:
    """The uses' plot in words (core.claims): their cosines' range at the input and after the last layer, and which
    two uses end closest and which farthest apart."""
    at = {
        stage: {pair: float(c[STAGES.index(stage)]) for pair, c in cosines.items()} for stage in ("input", STAGES[-1])
    }
    ranges = {stage: (min(v.values()), max(v.values())) for stage, v in at.items()}
    (lo, hi), (lo_last, hi_last) = (tuple(f"{x:.2f}" for x in r) for r in ranges.values())
    text = t("tf.uses_ranges", lo=lo, hi=hi, lo_last=lo_last, hi_last=hi_last, last=last)
    if len(cosines) == 1:
        return text
    ends = claims.extremes(at[STAGES[-1]])
    (a, b), (c, d) = ends.closest, ends.farthest
    return text + t(
        "tf.uses_ends", a=names[a], b=names[b], closest=f"{ends.closest_value:.2f}", c=names[c], d=names[d],
        farthest=f"{ends.farthest_value:.2f}", last=last,
    )  # fmt: skip


def paths_claim(cosines: dict[tuple[int, int], np.ndarray], last: str) -> str:
    """Whether the uses' paths move apart or together from the input to the last layer: their mean cosine's trend."""
    mean = claims.mean_by_stage(cosines)[STAGES.index("input") :]
    seen = claims.trend(dict(enumerate(mean)))
    return t(f"tf.paths_{seen.direction}", first=f"{seen.first:.2f}", last=f"{seen.last:.2f}", stage=last)


# --- Its figures ----------------------------------------------------------------------------------------------------


KEPT_CELLS = 4 * 64 * 64  # a figure with more values than this (a long sentence's heatmaps) is not kept


def draw(key: str, build: Callable[[], go.Figure], *, cells: int = 0) -> None:
    """ui.live_chart.cached_chart(key, build): the figure `build()` makes (a functools.partial of its builder and
    every input), built once per server; a figure of more than KEPT_CELLS values is built and sent each time."""
    if cells > KEPT_CELLS:
        live_chart.chart(build(), key)
    else:
        live_chart.cached_chart(key, build)


def kept_figure(build: Callable[[], go.Figure]) -> go.Figure:
    """The figure `build()` makes (a functools.partial of its builder and every input), made once per server and the
    language, and shared: never changed after. For a figure drawn by st.plotly_chart (the grid, which is clicked)."""
    return _kept(build)


@cached(max_entries=256, ttl=3600)
def _kept(build: Callable[[], go.Figure]) -> go.Figure:  # keyed by the language build's code reads (ui.cache_keys)
    return build()
