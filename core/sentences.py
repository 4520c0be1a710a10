"""One vector per sentence: the mean of its GloVe word vectors, or all-MiniLM-L6-v2's sentence embedding.

    glove(s)  = (1/|W|) sum_{w in W} G[w]                  W: the sentence's words GloVe knows (punctuation left out)
    minilm(s) = mean_i h_6[i] / ||mean_i h_6[i]||           sentence-transformers' Pooling (mean), then Normalize
    cos(u, v) = u . v / (||u|| ||v||)

A mean of word vectors does not depend on the words' order, and neither does MiniLM's mean pooling once the positions
are taken away (its encoder is then permutation-equivariant): both give a sentence and any reordering of its words
cosine 1. MiniLM with positions (its own, or sinusoidal ones in their place) can tell them apart.

A text longer than MAX_PIECES WordPiece tokens is cut there, as sentence-transformers cuts it by default (the model's
sentence_bert_config.json: max_seq_length 256, [CLS] and [SEP] included), although MiniLM has 512 positions: the
vector of a long text is sentence-transformers' (tests/core/test_sentences.py, at 255, 256, 257 and 512 tokens).
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import Tensor
from torch.nn import functional as F

from core import minilm
from core.minilm import MiniLM
from core.vectors import WordVectors

MAX_SENTENCES = 20  # the learner's list: a 20 x 20 matrix stays readable
MAX_PIECES = (
    256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2: its tokens read, [CLS] and [SEP] included
)
DATA = Path(__file__).resolve().parents[1] / "data"
COLLECTION = DATA / "sentences.tsv"
PAIRS = DATA / "sentence_pairs.tsv"
METHODS = ("glove", "none", "sinusoidal", "learned")  # the word-order comparison: GloVe mean, then MiniLM's positions
SPACES = ("minilm", "glove")
# GloVe 6B's tokens: lowercased, "don't" as "do" + "n't", "it's" as "it" + "'s", punctuation on its own.
_GLOVE_TOKEN = re.compile(r"\w+(?=n't)|n't|'\w+|\w+|[^\w\s]")


class Refused(ValueError):
    """A sentence a method cannot read; `key` names why (the page's text sv.refused_<key>), `values` fill it in."""

    def __init__(self, key: str, **values) -> None:
        self.key = key
        self.values = values
        super().__init__(f"{key}: {values}")


@dataclass(frozen=True)
class Lines:
    """The learner's list, one sentence a line.

    sentences: the non-empty lines, stripped, at most `most`; empty: how many empty lines were skipped;
    left_out: the sentences past the first `most`.
    """

    sentences: tuple[str, ...]
    empty: int
    left_out: tuple[str, ...]


def read_lines(text: str, most: int = MAX_SENTENCES) -> Lines:
    """The sentences of a text box: one a line, empty lines skipped, the first `most` kept."""
    lines = [line.strip() for line in text.splitlines()]
    full = tuple(line for line in lines if line)
    return Lines(full[:most], len(lines) - len(full), full[most:])


def glove_tokens(sentence: str) -> list[str]:
    """The sentence as GloVe 6B's tokens: lowercased words, clitics split off as its tokenizer did; no punctuation."""
    return [w for w in _GLOVE_TOKEN.findall(sentence.lower()) if any(c.isalnum() for c in w)]


def glove_words(wv: WordVectors, sentence: str) -> tuple[list[str], list[str]]:
    """(the tokens GloVe knows, the tokens it does not), in the sentence's order."""
    tokens = glove_tokens(sentence)
    return [w for w in tokens if w in wv.stoi], [w for w in tokens if w not in wv.stoi]


def glove_mean(wv: WordVectors, sentence: str) -> Tensor:
    """The mean of the vectors of the sentence's words GloVe knows.

    Returns:
        (dim,) float32 on wv's device.
    Raises:
        Refused("no_words") when the sentence has no word; Refused("glove_unknown") when GloVe knows none of them.
    """
    known, unknown = glove_words(wv, sentence)
    if not known:
        raise Refused("glove_unknown", words=", ".join(unknown)) if unknown else Refused("no_words")
    rows = torch.tensor([wv.stoi[w] for w in known], device=wv.vectors.device)
    return wv.vectors[rows].float().mean(dim=0)  # (dim,)


def minilm_vector(model: MiniLM, sentence: str, positions: str = "learned", *, dtype=torch.float32) -> Tensor:
    """all-MiniLM-L6-v2's sentence embedding, with its own positions, none, or sinusoidal ones in their place.

    Returns:
        (384,) of length 1, on the model's device.
    A text of more than MAX_PIECES tokens is cut there, as sentence-transformers cuts it (pieces_left_out says how
    many pieces it leaves out).

    Raises:
        core.problems.Problem (minilm.encode): no piece, or every piece read [UNK].
    """
    encoded = minilm.encode(model, sentence, cut=MAX_PIECES)
    return minilm.sentence_embedding(
        minilm.forward(model, encoded.ids, encoded.type_ids, positions=positions, dtype=dtype)
    )


def token_count(model: MiniLM, sentence: str) -> int:
    """The WordPiece tokens of the whole text, [CLS] and [SEP] included."""
    return len(model.tokenizer.encode(sentence).ids)


def pieces_left_out(model: MiniLM, sentence: str) -> int:
    """How many of the text's pieces minilm_vector leaves out: those past MAX_PIECES tokens."""
    return max(token_count(model, sentence) - MAX_PIECES, 0)


def cosine_matrix(x: Tensor) -> Tensor:
    """Every pair's cosine similarity.

    Args:
        x: (n, dim)
    Returns:
        (n, n), 1 on the diagonal (up to rounding).
    """
    unit = F.normalize(x.float(), dim=-1)  # (n, dim)
    return unit @ unit.T


def cosine(u: Tensor, v: Tensor) -> float:
    """cos(u, v), computed in float64 so that the check against 1 is limited by the vectors, not by this."""
    return float(F.cosine_similarity(u.double(), v.double(), dim=0))


@dataclass(frozen=True)
class Ranked:
    """A pair of sentences ranked by two methods: rank 1 is each method's most similar pair."""

    pair: tuple[int, int]
    cosine_a: float
    rank_a: int
    cosine_b: float
    rank_b: int

    @property
    def moved(self) -> int:
        return abs(self.rank_a - self.rank_b)


def pair_ranks(a: np.ndarray, b: np.ndarray) -> list[Ranked]:
    """Every pair i < j ranked under two similarity matrices, most re-ranked first (then by the first's rank).

    Args:
        a, b: (n, n) cosine matrices of the same sentences.
    """
    i, j = np.triu_indices(len(a), k=1)
    va, vb = a[i, j], b[i, j]
    rank_a = np.empty(len(va), int)
    rank_a[np.argsort(-va, kind="stable")] = np.arange(1, len(va) + 1)
    rank_b = np.empty(len(vb), int)
    rank_b[np.argsort(-vb, kind="stable")] = np.arange(1, len(vb) + 1)
    rows = [
        Ranked((int(p), int(q)), float(x), int(ra), float(y), int(rb))
        for p, q, x, ra, y, rb in zip(i, j, va, rank_a, vb, rank_b, strict=True)
    ]
    return sorted(rows, key=lambda r: (-r.moved, r.rank_a))


def rank_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's correlation of the two matrices' pair similarities (1: the same order of pairs)."""
    from scipy.stats import spearmanr

    i, j = np.triu_indices(len(a), k=1)
    if len(i) < 2:
        return float("nan")
    return float(spearmanr(a[i, j], b[i, j]).statistic)


@dataclass(frozen=True)
class OrderPair:
    """Two sentences with the same words in another order; kind: roles, negation, comparative, or yours."""

    kind: str
    first: str
    second: str


def read_pairs(path: Path = PAIRS) -> tuple[OrderPair, ...]:
    """The shipped word-order pairs (data/sentence_pairs.tsv)."""
    with open(path, encoding="utf-8", newline="") as f:
        return tuple(OrderPair(r["kind"], r["first"], r["second"]) for r in csv.DictReader(f, delimiter="\t"))


def same_words(first: str, second: str) -> bool:
    """Whether the two sentences hold the same words the same number of times (GloVe's tokens, punctuation left out)."""
    return Counter(glove_tokens(first)) == Counter(glove_tokens(second))


def same_pieces(model: MiniLM, first: str, second: str) -> bool:
    """Whether MiniLM's tokenizer reads the two as the same WordPiece tokens the same number of times."""
    return Counter(model.tokenizer.encode(first).tokens) == Counter(model.tokenizer.encode(second).tokens)


def order_cosines(model: MiniLM, wv: WordVectors, first: str, second: str) -> dict[str, float]:
    """cos(first, second) under each of METHODS: GloVe mean, MiniLM without positions, with sinusoidal ones, as trained.

    Raises:
        Refused (GloVe) or Problem (MiniLM) for a sentence a method cannot read.
    """
    out = {"glove": cosine(glove_mean(wv, first), glove_mean(wv, second))}
    for positions in METHODS[1:]:
        out[positions] = cosine(minilm_vector(model, first, positions), minilm_vector(model, second, positions))
    return out


def order_cosines_of(model: MiniLM, wv: WordVectors, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
    """order_cosines of each pair (up to float rounding), MiniLM's sentences a batch at a time.

    Raises:
        Refused (GloVe) or Problem (MiniLM) for a sentence a method cannot read.
    """
    out = [{"glove": cosine(glove_mean(wv, first), glove_mean(wv, second))} for first, second in pairs]
    encoded = [minilm.encode(model, s, cut=MAX_PIECES) for pair in pairs for s in pair]  # first, second, first, ...
    for positions in METHODS[1:]:
        vectors = minilm.sentence_embeddings(model, encoded, positions=positions)  # (2 * len(pairs), 384)
        for i, cosines in enumerate(out):
            cosines[positions] = cosine(vectors[2 * i], vectors[2 * i + 1])
    return out


@dataclass(frozen=True, eq=False)
class Collection:
    """The shipped sentences (data/sentences.tsv) and their vectors, computed once per server and never written to.

    Attributes:
        sentences, topics: (n,) each; minilm: (n, 384) of length 1; glove: (n, 50) GloVe means (not normalised).
    """

    sentences: tuple[str, ...]
    topics: tuple[str, ...]
    minilm: Tensor
    glove: Tensor

    def vectors(self, space: str) -> Tensor:
        """(n, dim) in `space` ("minilm" or "glove")."""
        return self.minilm if space == "minilm" else self.glove

    @property
    def nbytes(self) -> int:
        """The vectors' memory (the texts are a few kilobytes more)."""
        return sum(t.element_size() * t.nelement() for t in (self.minilm, self.glove))


def read_collection(path: Path = COLLECTION) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(sentences, topics) of the shipped collection."""
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return tuple(r["sentence"] for r in rows), tuple(r["topic"] for r in rows)


def embed_collection(
    model: MiniLM, wv: WordVectors, path: Path = COLLECTION, on_step: Callable[[int, int], None] | None = None
) -> Collection:
    """The shipped sentences through both methods, MiniLM a batch at a time (minilm.sentence_embeddings: each
    sentence's vector as minilm_vector gives it, up to float rounding).

    Args:
        on_step: called as on_step(done, n) after each batch of sentences.
    """
    sentences, topics = read_collection(path)
    encoded = [minilm.encode(model, s, cut=MAX_PIECES) for s in sentences]  # as minilm_vector reads each
    mini = minilm.sentence_embeddings(model, encoded, on_batch=on_step)
    glove = torch.stack([glove_mean(wv, sentence) for sentence in sentences])  # (n, 50)
    return Collection(sentences, topics, mini, glove)  # (n, 384), (n, 50)


def search(matrix: Tensor, query: Tensor, k: int) -> list[tuple[int, float]]:
    """The k rows most similar to the query by cosine, most similar first (the lower index first on a tie).

    Args:
        matrix: (n, dim); query: (dim,) on the same device.
    Returns:
        [(row, cosine)], k of them at most.
    """
    sims = F.normalize(matrix.float(), dim=-1) @ F.normalize(query.float(), dim=0)  # (n,)
    values, order = sims.sort(descending=True, stable=True)  # stable: ties by index
    return list(zip(order[:k].tolist(), values[:k].tolist(), strict=True))


def only_in(a: Sequence[tuple[int, float]], b: Sequence[tuple[int, float]]) -> tuple[list[int], list[int]]:
    """(rows in hits a and not in b, rows in b and not in a), each in its list's order."""
    rows_a, rows_b = {i for i, _ in a}, {i for i, _ in b}
    return [i for i, _ in a if i not in rows_b], [i for i, _ in b if i not in rows_a]


def place_by_neighbours(coords: np.ndarray, sims: np.ndarray, k: int = 5) -> np.ndarray:
    """A new point's place on a t-SNE or UMAP map, which has no formula for one: the mean place of its k most similar
    points (by cosine in the original space).

    Args:
        coords: (n, 2); sims: (n,) the new point's cosine to each.
    Returns:
        (2,)
    """
    nearest = np.argsort(-sims, kind="stable")[:k]
    return coords[nearest].mean(axis=0)
