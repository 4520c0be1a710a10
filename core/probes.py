"""What the "Inside a real Transformer" page measures on MiniLM (core.minilm): positional heads, what happens when
the positions are taken away, and how a word's vector turns from static to contextual.

    profile[l, h, d] = mean over queries i of A_lh[i, i + d],  d = -8..+8 (word pieces only: [CLS], [SEP] left out)
    JS(p, q) = 1/2 KL(p || m) + 1/2 KL(q || m),  m = (p + q) / 2,  in bits (0: the same, 1: nothing in common)
    cos(u, v) = u . v / (|u| |v|)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor
from torch.nn import functional as F

from core.device import float64_ok
from core.minilm import (
    HEADS,
    LAYERS,
    UNKNOWN,
    Encoded,
    Forward,
    MiniLM,
    encode,
    forward,
    mean_pooling,
    shuffled_order,
)
from core.problems import Problem

SENTENCES = Path(__file__).resolve().parents[1] / "data" / "minilm_sentences.txt"
MAX_OFFSET = 8
NAMED_AT = 0.25  # a previous/next-token head: offset -1 (+1) is its largest mean weight, and at least this much
VARIANTS = ("none", "sinusoidal", "shuffled")  # what the learned positions are compared with
STAGES = ("token", "input", *(f"layer {i}" for i in range(1, LAYERS + 1)))  # a word's vectors, static to contextual
MAX_USES = 8  # sentences for one word
MAX_FOUND = 12  # uses of the word compared: 66 pairs of curves (a sentence of one word 510 times had 130,000)
MAX_K = 50  # neighbours listed
MAX_SEED = 2**31 - 1
SPECIAL_TOKEN = re.compile(r"^\[[A-Za-z0-9_]+\]$")  # [PAD], [unused12], [CLS]: never a neighbour


@dataclass(frozen=True)
class ProbeConfig:
    """The page's settings. Layers and heads count from 1, as the page names them ("layer 1, head 3").

    sentence, pair: what chapters 1 and 2 read (pair: segment B, "" for none); yours: chapter 1 averages over the
    sentence instead of the shipped ones; layer, head: the head shown; seed: the shuffle's; word, uses: chapter 3's
    word and its sentences, one per line; k: neighbours listed. Raises Problem with what to change.
    """

    sentence: str = "The cat sat on the mat because it was tired."
    pair: str = ""
    yours: bool = False
    layer: int = 1
    head: int = 3
    seed: int = 0
    word: str = "bank"
    uses: str = (
        "We had a picnic on the bank of the river.\nShe paid the money into her bank account.\n"
        "The bank raised its interest rates.\nFish swam near the muddy bank."
    )
    k: int = 10

    def __post_init__(self) -> None:
        if not 1 <= self.layer <= LAYERS:
            raise Problem("tf_layer", most=LAYERS, value=self.layer)
        if not 1 <= self.head <= HEADS:
            raise Problem("tf_head", most=HEADS, value=self.head)
        if not 0 <= self.seed <= MAX_SEED:
            raise Problem("tf_seed", most=MAX_SEED, value=self.seed)
        if not 1 <= self.k <= MAX_K:
            raise Problem("tf_k", most=MAX_K, value=self.k)

    @property
    def use_list(self) -> list[str]:
        """chapter 3's sentences: the non-blank lines."""
        return [line.strip() for line in self.uses.splitlines() if line.strip()]


def read_sentences(path: Path = SENTENCES) -> list[str]:
    """One sentence per line; blank lines and lines starting with # left out."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


# --- 1. Positional heads ----------------------------------------------------------------------------------------


def offset_profile(runs: Iterable[tuple[Encoded, Forward]], max_offset: int = MAX_OFFSET) -> Tensor:
    """Every head's mean attention from a word piece to the piece d places away, d = -max_offset..max_offset.

    Returns:
        (6, 12, 2 * max_offset + 1); an offset no sentence has is 0.
    """
    offsets = range(-max_offset, max_offset + 1)
    total, count = None, torch.zeros(len(offsets))
    for encoded, run in runs:
        n = len(encoded)
        word = torch.tensor([w is not None for w in encoded.words], device=run.attention.device)  # (n,)
        sums = []
        for j, d in enumerate(offsets):
            diagonal = torch.diagonal(run.attention, offset=d, dim1=-2, dim2=-1)  # (6, 12, n - |d|): A[i, i + d]
            first, end = max(0, -d), min(n, n - d)  # the queries i with a key i + d; none when |d| >= n
            queries = torch.arange(first, max(first, end), device=word.device)
            keep = word[queries] & word[queries + d] if len(queries) else queries.bool()
            sums.append(diagonal[..., keep].sum(-1))
            count[j] += int(keep.sum())
        stacked = torch.stack(sums, dim=-1).double().cpu()  # (6, 12, offsets)
        total = stacked if total is None else total + stacked
    if total is None:
        raise ValueError("offset_profile needs at least one sentence.")
    return total / count.clamp(min=1)


@dataclass(frozen=True)
class NamedHead:
    """A head the rule names: layer and head from 0, the offset it prefers (-1 or +1) and its mean weight there."""

    layer: int
    head: int
    offset: int
    weight: float


def positional_heads(profile: Tensor, threshold: float = NAMED_AT) -> list[NamedHead]:
    """Previous-token (offset -1) and next-token (+1) heads: that offset holds the head's largest mean weight of all
    offsets, and at least `threshold`. Strongest first.

    Args:
        profile: (6, 12, 2 * max_offset + 1) from offset_profile.
    """
    middle = profile.size(-1) // 2
    best = profile.argmax(dim=-1) - middle  # (6, 12) the offset of each head's largest weight
    named = []
    for offset in (-1, 1):
        weight = profile[..., middle + offset]
        for layer, head in ((best == offset) & (weight >= threshold)).nonzero().tolist():
            named.append(NamedHead(layer, head, offset, float(weight[layer, head])))
    return sorted(named, key=lambda h: -h.weight)


def run_sentences(model: MiniLM, sentences: list[str]) -> list[tuple[Encoded, Forward]]:
    """Each sentence through MiniLM with its learned positions; sentences MiniLM refuses are left out."""
    runs = []
    for sentence in sentences:
        try:
            encoded = encode(model, sentence)
        except Problem:
            continue
        runs.append((encoded, forward(model, encoded.ids, encoded.type_ids)))
    return runs


# --- 2. Take the positions away ------------------------------------------------------------------------------------


def js_divergence(p: Tensor, q: Tensor) -> Tensor:
    """Jensen-Shannon divergence in bits between distributions along the last dimension (0 log 0 = 0).

    Returns:
        p's shape without its last dimension, values in [0, 1].
    """
    m = (p + q) / 2
    kl = lambda a: torch.where(a > 0, a * torch.log2(a / m), torch.zeros_like(a)).sum(-1)  # noqa: E731
    return (kl(p) + kl(q)) / 2


def in_sentence_order(run: Forward) -> Tensor:
    """A run's attention with rows and columns put back in the sentence's own order (undoes `order`).

    Returns:
        (6, 12, n, n)
    """
    if run.order is None:
        return run.attention
    back = torch.argsort(run.order)  # the read position of the sentence's token i
    return run.attention[..., back, :][..., back]


@dataclass(frozen=True, eq=False)
class PositionsTaken:
    """The sentence with its learned positions and each variant (VARIANTS) side by side.

    Attributes:
        runs: "learned" and each variant's Forward.
        moved: per variant, (6, 12) each head's JS divergence from its learned attention, averaged over queries.
        cosine: per variant, (7,) the cosine of its mean token vector to the learned run's, at the input and after
            each layer; the last is the sentence embeddings' cosine (normalising changes no cosine).
        order: the shuffled reading order.
        equivariance: the largest |difference| of hidden states and of attention weights between the no-positions
            run of the shuffled tokens and the no-positions run with its rows (and columns) shuffled alike;
        dtype: what that check computed in (float64 where the device has it).
    """

    runs: dict[str, Forward]
    moved: dict[str, Tensor]
    cosine: dict[str, Tensor]
    order: Tensor
    equivariance: tuple[float, float]
    dtype: torch.dtype


def take_positions_away(model: MiniLM, encoded: Encoded, seed: int = 0) -> PositionsTaken:
    """The sentence with learned positions, none, the sinusoidal table, and its words shuffled (learned positions)."""
    order = shuffled_order(encoded, seed)
    ids, types = encoded.ids, encoded.type_ids
    runs = {"learned": forward(model, ids, types)}
    runs["none"] = forward(model, ids, types, positions="none")
    runs["sinusoidal"] = forward(model, ids, types, positions="sinusoidal")
    runs["shuffled"] = forward(model, ids, types, order=order)
    base = runs["learned"]
    moved = {v: js_divergence(in_sentence_order(runs[v]), base.attention).mean(-1).cpu() for v in VARIANTS}
    pooled = mean_pooling(base.hidden)  # (7, 384)
    cosine = {v: F.cosine_similarity(mean_pooling(runs[v].hidden), pooled, dim=-1).cpu() for v in VARIANTS}
    dtype = torch.float64 if float64_ok(model.device) else torch.float32
    return PositionsTaken(runs, moved, cosine, order, shuffle_equivariance(model, encoded, order, dtype), dtype)


def position_norms(model: MiniLM, n: int) -> tuple[float, float]:
    """The mean length of the position vectors added to the first n tokens: the learned rows, the sinusoidal ones."""
    return float(model.position[:n].norm(dim=1).mean()), float(model.sinusoidal[:n].norm(dim=1).mean())


def shuffle_equivariance(model: MiniLM, encoded: Encoded, order: Tensor, dtype=torch.float64) -> tuple[float, float]:
    """Without positions the encoder cannot tell the order: reading the tokens in `order` gives the same vectors
    and weights, shuffled alike. The largest |difference| of each (0 up to rounding).

    Returns:
        (hidden states, attention weights)
    """
    plain = forward(model, encoded.ids, encoded.type_ids, positions="none", dtype=dtype)
    read = forward(model, encoded.ids, encoded.type_ids, positions="none", order=order, dtype=dtype)
    hidden = (read.hidden - plain.hidden[:, order]).abs().max()
    attention = (read.attention - plain.attention[..., order, :][..., order]).abs().max()
    return float(hidden), float(attention)


# --- 3. From static to contextual ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class WordUses:
    """A word's pieces and its vectors in each sentence that has it.

    Attributes:
        pieces: the word as WordPiece splits it ("em", "##bed", ...).
        uses: (sentence index, first piece's token index) for each occurrence, the first MAX_FOUND of them.
        vectors: (uses, len(STAGES), 384): the static row E[id], the input layer's output, then each layer's
            (the mean over the word's pieces when it has several).
        found: every occurrence in the sentences read, kept or not.
        missing: the indices of the sentences without the word; refused: (index, Problem) of those MiniLM refused.
    """

    pieces: tuple[str, ...]
    uses: list[tuple[int, int]]
    vectors: Tensor
    missing: list[int]
    refused: list[tuple[int, Problem]]
    found: int = 0


def word_pieces(model: MiniLM, word: str) -> tuple[str, ...]:
    """The word as WordPiece splits it, without [CLS] and [SEP].

    Raises:
        Problem: no word (empty); every piece [UNK]; more than one word.
    """
    encoded = model.tokenizer.encode(word.strip(), add_special_tokens=False)
    if not encoded.tokens:
        raise Problem("tf_word_empty")
    if len(set(w for w in encoded.word_ids if w is not None)) > 1:
        raise Problem("tf_word_one", word=word.strip(), pieces=" ".join(encoded.tokens))
    if all(t == UNKNOWN for t in encoded.tokens):
        raise Problem("tf_word_unknown", word=word.strip())
    return tuple(encoded.tokens)


def find_word(encoded: Encoded, pieces: tuple[str, ...]) -> list[int]:
    """Where the word starts in a sentence: the pieces in a row that make one whole word (none of a longer one)."""
    tokens, k = encoded.tokens, len(pieces)
    starts = []
    for i in range(len(tokens) - k + 1):
        whole = encoded.words[i] is not None and (i == 0 or encoded.words[i - 1] != encoded.words[i])
        ends = i + k == len(tokens) or encoded.words[i + k] != encoded.words[i]
        if tokens[i : i + k] == pieces and whole and ends:
            starts.append(i)
    return starts


def word_uses(model: MiniLM, word: str, sentences: list[str]) -> WordUses:
    """The word's vector at every stage in every sentence that has it: at most MAX_USES sentences are read, the
    first MAX_FOUND uses kept (the others are counted)."""
    pieces = word_pieces(model, word)
    rows = model.word[model.tokenizer.encode(word.strip(), add_special_tokens=False).ids].mean(0)  # (384,)
    uses: list[tuple[int, int]] = []
    vectors, missing, refused, found = [], [], [], 0
    for s, sentence in enumerate(sentences[:MAX_USES]):
        try:
            encoded = encode(model, sentence)
        except Problem as err:
            refused.append((s, err))
            continue
        starts = find_word(encoded, pieces)
        if not starts:
            missing.append(s)
            continue
        found += len(starts)
        starts = starts[: MAX_FOUND - len(uses)]
        if not starts:
            continue
        run = forward(model, encoded.ids, encoded.type_ids)
        for start in starts:
            layers = run.hidden[:, start : start + len(pieces)].mean(1)  # (7, 384)
            uses.append((s, start))
            vectors.append(torch.cat([rows[None], layers]))  # (8, 384)
    stacked = torch.stack(vectors) if vectors else torch.zeros(0, len(STAGES), rows.numel())
    return WordUses(pieces, uses, stacked.cpu(), missing, refused, found)


def use_cosines(vectors: Tensor) -> dict[tuple[int, int], Tensor]:
    """The cosine between every two uses at every stage.

    Args:
        vectors: (uses, stages, 384).
    Returns:
        {(a, b): (stages,)} for a < b.
    """
    n = vectors.size(0)
    return {(a, b): F.cosine_similarity(vectors[a], vectors[b], dim=-1) for a in range(n) for b in range(a + 1, n)}


def token_neighbours(model: MiniLM, pieces: tuple[str, ...], k: int = 10) -> list[tuple[str, float]]:
    """The k tokens of MiniLM's static table nearest (cosine) to the word's row (its pieces' mean), the word's own
    pieces and the special tokens left out."""
    vocab = model.tokenizer.get_vocab()
    ids = [vocab[p] for p in pieces]
    query = model.word[ids].mean(0)  # (384,)
    scores = F.cosine_similarity(model.word, query[None], dim=1)  # (30522,)
    scores[ids] = -torch.inf
    itos = {i: t for t, i in vocab.items()}
    out = []
    for i in torch.argsort(scores, descending=True).tolist():
        if not SPECIAL_TOKEN.match(itos[i]):
            out.append((itos[i], float(scores[i])))
        if len(out) == k:
            break
    return out
