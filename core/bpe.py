"""Byte-pair encoding (BPE) over UTF-8 bytes, trained on word counts: the readable algorithm, made incremental.

Training (Sennrich et al. 2016, on bytes as in GPT-2):
    every word starts as its UTF-8 bytes: token ids 0..255 are the byte values, so nothing is ever unknown
    repeat: count each adjacent pair of tokens, weighted by the word's count (overlaps count: "aaa" has 2 × (a, a))
            merge the most frequent pair into one new token, in every word, left to right
Tie rule: the highest count, then the smallest (left id, right id). The rule of `tokenizers`' BpeTrainer, so that,
given the same byte alphabet in byte order, its merges are ours (tests/core/test_bpe.py).
A new token's id is the next free one, unless its bytes are already a token (b"a" + b"bc" after b"ab" + b"c",
rare: never met in the tests): then it is that token again, as in `tokenizers`; the vocabulary is a set of bytes.

Words are plain words, with no leading-space marker (GPT-2 writes " the" as "Ġthe"): wordfreq counts words, and
`encode` cuts a text into runs of non-space and of space characters, encoding each run on its own, so no token
spans a space and the tokens' bytes join back to the text's UTF-8 bytes exactly.
"""

from __future__ import annotations

import heapq
import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
LANGS = ("en", "zh")
BYTES = 256  # ids 0..255 are the bytes themselves

Pair = tuple[int, int]
Word = tuple[int, ...]


@dataclass(frozen=True)
class Merge:
    """One training step: `pair` became token `id` (bytes `token`); `count` is the pair's weighted count then."""

    pair: Pair
    count: int
    id: int
    token: bytes
    tokens: int  # all words' tokens after this merge, weighted by count (fertility = tokens / words)


Merges = tuple[Merge, ...]


def word_counts(lang: str, n: int = 50_000) -> list[tuple[str, int]]:
    """The n most frequent words of `lang` ("en" or "zh") with counts per ten million words, from wordfreq.

    The counts were made by scripts/wordfreq_counts.py; most frequent first.
    """
    if lang not in LANGS:
        raise ValueError(f"word counts exist for {', '.join(LANGS)}, not {lang!r}")
    rows = []
    with open(DATA / f"wordfreq_{lang}.tsv", encoding="utf-8") as f:
        for line in itertools.islice(f, n):
            word, count = line.rstrip("\n").split("\t")
            rows.append((word, int(count)))
    return rows


def merge_word(word: Word, pair: Pair, new: int) -> Word:
    """`word` with each occurrence of `pair` replaced by `new`, left to right ("aaa" -> "Aa")."""
    first, second = pair
    out: list[int] = []
    i = 0
    while first in word[i:]:
        j = word.index(first, i)  # the next place the pair may start
        out.extend(word[i:j])
        if j + 1 < len(word) and word[j + 1] == second:
            out.append(new)
            i = j + 2
        else:
            out.append(first)
            i = j + 1
    out.extend(word[i:])
    return tuple(out)


def pair_counts(word: Word) -> dict[Pair, int]:
    """How often each adjacent pair occurs in one word (overlaps count)."""
    counts: dict[Pair, int] = {}
    for pair in itertools.pairwise(word):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def train(
    counts: dict[str, int] | Sequence[tuple[str, int]],
    merges: int,
    *,
    on_step: Callable[[int, int], None] | None = None,
) -> Merges:
    """Learn up to `merges` merges from word counts (fewer when no pair is left to merge).

    Args:
        counts: word -> count (a count of 0 or less leaves the word out); words are not split further.
        merges: how many merges to learn.
        on_step: called as on_step(step, merges) after each merge (the page moves a progress bar with it).
    Returns:
        the merges in the order learnt; token id 256 + k is the k-th new token (unless its bytes existed).
    """
    if merges < 0:
        raise ValueError(f"the number of merges must be 0 or more, not {merges}")
    items = list(counts.items()) if isinstance(counts, dict) else list(counts)
    weighted = Counter[str]()
    for text, n in items:
        if n > 0:
            weighted[text] += n
    words: list[Word] = [tuple(text.encode("utf-8")) for text in weighted]
    weights: list[int] = list(weighted.values())
    vocab: dict[bytes, int] = {bytes([b]): b for b in range(BYTES)}
    total = sum(len(w) * c for w, c in zip(words, weights, strict=True))  # weighted number of tokens

    # Pair counts over all words, and where each pair occurs (the incremental trick: a merge only touches those).
    count: Counter[Pair] = Counter()
    where: defaultdict[Pair, set[int]] = defaultdict(set)
    for i, (word, weight) in enumerate(zip(words, weights, strict=True)):
        for pair, n in pair_counts(word).items():
            count[pair] += n * weight
            where[pair].add(i)
    # The most frequent pair is the heap's top: entries (-count, pair), so the smallest pair wins a tie. A merge
    # only lowers the counts of pairs without the new token, so an entry may be too high: when it comes out on
    # top, it goes back in with the pair's count now. Pairs with the new token, whose counts rise, are pushed.
    heap = [(-n, pair) for pair, n in count.items()]
    heapq.heapify(heap)

    learnt: list[Merge] = []
    id_bytes = {i: b for b, i in vocab.items()}
    while len(learnt) < merges and heap:
        negative, pair = heapq.heappop(heap)
        if -negative != count[pair]:
            if count[pair] > 0:
                heapq.heappush(heap, (-count[pair], pair))
            continue
        token = id_bytes[pair[0]] + id_bytes[pair[1]]
        new = vocab.setdefault(token, len(vocab))
        id_bytes[new] = token
        grown: set[Pair] = set()
        for i in where.pop(pair):
            old, weight = words[i], weights[i]
            words[i] = merged = merge_word(old, pair, new)
            total -= (len(old) - len(merged)) * weight
            before, after = pair_counts(old), pair_counts(merged)
            for p, n in before.items():  # occurrences lost around each merge, the pair's own too
                lost = n - after.get(p, 0)
                if lost > 0:
                    count[p] -= lost * weight
                    if p not in after:
                        where[p].discard(i)
            for p, n in after.items():  # occurrences gained: pairs with the new token
                gained = n - before.get(p, 0)
                if gained > 0:
                    count[p] += gained * weight
                    where[p].add(i)
                    grown.add(p)
        learnt.append(Merge(pair, -negative, new, token, total))
        for p in grown:
            heapq.heappush(heap, (-count[p], p))
        if on_step:
            on_step(len(learnt), merges)
    return tuple(learnt)


def fertility(counts: dict[str, int] | Sequence[tuple[str, int]], merges: Merges) -> list[float]:
    """Tokens per word, weighted by count, at steps 0..len(merges) of the training on `counts` that made `merges`."""
    items = list(counts.items()) if isinstance(counts, dict) else list(counts)
    words = sum(n for _, n in items if n > 0)
    start = sum(len(w.encode("utf-8")) * n for w, n in items if n > 0)
    return [t / words for t in (start, *(m.tokens for m in merges))]


def token_bytes(merges: Merges) -> dict[int, bytes]:
    """Every token id's bytes: the 256 bytes and the merges' tokens."""
    table = {b: bytes([b]) for b in range(BYTES)}
    table.update((m.id, m.token) for m in merges)
    return table


def pair_bytes(merges: Merges, step: int) -> tuple[bytes, bytes]:
    """The bytes of the two tokens that merge `step` (from 1) joined: the left token's, then the rest of its token.

    A token id above the bytes was made by the first merge with that id, which is never earlier than merge id - 255:
    the ids are given in turn, one per new token (a later merge with the same id made the same bytes again).
    """
    merge = merges[step - 1]
    left = merge.pair[0]
    if left < BYTES:
        first = bytes([left])
    else:
        first = next(merges[i].token for i in range(left - BYTES, step - 1) if merges[i].id == left)
    return first, merge.token[len(first) :]


def vocabulary(merges: Merges, upto: int | None = None) -> dict[int, bytes]:
    """The vocabulary after the first `upto` merges (all when None): id -> bytes, 256 + distinct new tokens."""
    return token_bytes(merges[:upto])


def merge_ranks(merges: Merges, upto: int | None = None) -> dict[Pair, list[int]]:
    """Each pair's steps among the first `upto` merges (a pair is merged again if its tokens come back)."""
    if upto is not None and upto < 0:
        raise ValueError(f"the merge step must be 0 or more, not {upto}")
    ranks: defaultdict[Pair, list[int]] = defaultdict(list)
    for r, m in enumerate(merges[:upto]):
        ranks[m.pair].append(r)
    return dict(ranks)


def encode_word(word: bytes, merges: Merges, ranks: dict[Pair, list[int]]) -> list[int]:
    """One chunk's token ids, the merges in `ranks` replayed in training order.

    Each step takes the earliest merge after the last one applied whose pair is present, and merges it
    everywhere, left to right: the same as applying merge 1, 2, ... k in turn, in the time of the pairs present.
    """
    ids: Word = tuple(word)
    last = -1
    while len(ids) > 1:
        later = [r for p in set(itertools.pairwise(ids)) if p in ranks for r in ranks[p] if r > last]
        if not later:
            break
        last = min(later)
        m = merges[last]
        ids = merge_word(ids, m.pair, m.id)
    return list(ids)


CHUNK = re.compile(r"\s+|\S+")  # runs of space, runs of anything else


def encode(text: str, merges: Merges, upto: int | None = None) -> list[int]:
    """The token ids of `text` after the first `upto` merges (all when None; 0: its UTF-8 bytes)."""
    ranks = merge_ranks(merges, upto)
    return [i for chunk in CHUNK.findall(text) for i in encode_word(chunk.encode("utf-8"), merges, ranks)]


def decode(ids: Iterable[int], merges: Merges) -> bytes:
    """The bytes that token ids stand for (a UTF-8 text's bytes when they came from `encode`)."""
    table = token_bytes(merges)
    return b"".join(table[i] for i in ids)
