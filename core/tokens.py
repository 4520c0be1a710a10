"""Four ways to cut a text into tokens with ids, and what the vocabulary costs in a model's weights.

    characters   one token per Unicode code point, id = the code point (a vocabulary of 0x110000)
    bytes        one token per UTF-8 byte, id = the byte (256: nothing is ever unknown)
    words        runs of letters and digits, and each other sign, looked up in wordfreq's most frequent words
    WordPiece    BERT's: clean and lowercase the text, split words and punctuation, then each word greedily into
                 the longest pieces of the vocabulary, "##" marking a piece inside a word; [UNK] when it cannot
BPE is core/bpe.py. WordPiece here is written out (Wu et al. 2016; BERT's BasicTokenizer and WordpieceTokenizer),
and tests/core/test_tokens.py checks its pieces and ids against `tokenizers`' for MiniLM's vocabulary.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core import bpe

UNICODE = 0x110000  # code points: the vocabulary a character cut needs
UNK = "[UNK]"
MAX_WORD_CHARS = 100  # BERT's max_input_chars_per_word: a longer word is one [UNK]
WORD = re.compile(r"\w+|[^\w\s]")  # a run of letters and digits, or any one other sign that is not a space


@dataclass(frozen=True)
class Cut:
    """A text cut into tokens: each token's text as shown, its id (None: unknown), and the vocabulary's size."""

    tokens: tuple[str, ...]
    ids: tuple[int | None, ...]
    vocabulary: int

    @property
    def unknown(self) -> int:
        return sum(i is None for i in self.ids)

    def __len__(self) -> int:
        return len(self.tokens)


def shown_bytes(raw: bytes) -> str:
    """A token's bytes as text: the characters they spell, and <XX> for each byte that is part of a character
    cut across tokens (or not UTF-8)."""
    out, i = [], 0
    while i < len(raw):
        for j in range(min(len(raw), i + 4), i, -1):  # the longest run from i that decodes
            try:
                out.append(raw[i:j].decode("utf-8"))
                i = j
                break
            except UnicodeDecodeError:
                continue
        else:
            out.append(f"<{raw[i]:02X}>")
            i += 1
    return "".join(out)


def characters(text: str) -> Cut:
    """One token per code point, its id the code point."""
    return Cut(tuple(text), tuple(ord(c) for c in text), UNICODE)


def utf8_bytes(text: str) -> Cut:
    """One token per UTF-8 byte, its id the byte's value: str.encode("utf-8")."""
    raw = text.encode("utf-8")
    return Cut(tuple(shown_bytes(bytes([b])) for b in raw), tuple(raw), bpe.BYTES)


def words(text: str, vocabulary: Sequence[str]) -> Cut:
    """Words and signs, their id their rank in `vocabulary` (lowercased; None when it lacks them)."""
    rank = {w: i for i, w in enumerate(vocabulary)}
    tokens = tuple(WORD.findall(text))
    return Cut(tokens, tuple(rank.get(w.lower()) for w in tokens), len(vocabulary))


def bpe_cut(text: str, merges: bpe.Merges, upto: int) -> Cut:
    """The byte-level BPE's tokens after its first `upto` merges (core.bpe.encode)."""
    ids = bpe.encode(text, merges, upto)
    table = bpe.token_bytes(merges[:upto])
    return Cut(tuple(shown_bytes(table[i]) for i in ids), tuple(ids), bpe.BYTES + upto)


CUTS = ("characters", "bytes", "words", "wordpiece", "bpe")  # what cut_text cuts by


def cut_text(
    text: str,
    name: str,
    *,
    vocabulary: Sequence[str] = (),
    wordpiece: WordPiece | None = None,
    merges: bpe.Merges = (),
    step: int = 0,
) -> Cut:
    """`text` cut by `name` (one of CUTS): its tokens, ids and vocabulary's size. Words are looked up in
    `vocabulary`, WordPiece's pieces in `wordpiece`, BPE's tokens are those after `step` of `merges`.

    Raises:
        ValueError: a name not in CUTS, or "wordpiece" without its vocabulary.
    """
    if name == "characters":
        return characters(text)
    if name == "bytes":
        return utf8_bytes(text)
    if name == "words":
        return words(text, vocabulary)
    if name == "wordpiece":
        if wordpiece is None:
            raise ValueError("a WordPiece cut needs its vocabulary")
        return wordpiece.cut(text)
    if name == "bpe":
        return bpe_cut(text, merges, step)
    raise ValueError(f"no cut named {name!r}: one of {', '.join(CUTS)}")


def table_ids(cut: Cut, unknown: int) -> tuple[int, ...]:
    """The rows an embedding table reads for a cut's tokens: each token's id, and row `unknown` for a token the
    vocabulary lacks (id None): WordPiece's [UNK], or a row past a word list's (its <unk>)."""
    return tuple(unknown if i is None else i for i in cut.ids)


# --- WordPiece ------------------------------------------------------------------------------------------


def is_control(c: str) -> bool:
    """A character BERT's cleaning drops: Unicode's "other" categories (control, format, unassigned, private,
    surrogate), except tab, newline and return, which are spaces."""
    return c not in "\t\n\r" and unicodedata.category(c).startswith("C")


def is_space(c: str) -> bool:
    """Unicode's White_Space characters (Rust's char::is_whitespace, which tokenizers uses)."""
    return c in "\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" or "\u2000" <= c <= "\u200a"


def is_punctuation(c: str) -> bool:
    """ASCII punctuation or symbols, or a Unicode punctuation mark: a token of its own."""
    return (c.isascii() and not c.isalnum() and c.isprintable() and c != " ") or unicodedata.category(c).startswith("P")


def is_cjk(c: str) -> bool:
    """A CJK ideograph (BERT's ranges, as `tokenizers` has them: its extension E starts at U+2B920, not BERT's
    U+2B820): a word of its own, since Chinese puts no spaces between words."""
    o = ord(c)
    return (
        0x4E00 <= o <= 0x9FFF
        or 0x3400 <= o <= 0x4DBF
        or 0x20000 <= o <= 0x2A6DF
        or 0x2A700 <= o <= 0x2B73F
        or 0x2B740 <= o <= 0x2B81F
        or 0x2B920 <= o <= 0x2CEAF
        or 0xF900 <= o <= 0xFAFF
        or 0x2F800 <= o <= 0x2FA1F
    )


def normalize(text: str) -> str:
    """BERT's uncased cleaning: drop control characters (and NUL, U+FFFD), spaces to " ", a space around each CJK
    ideograph, accents stripped (NFD, then no combining marks), lowercase."""
    text = "".join(" " if is_space(c) else c for c in text if c not in "\x00\ufffd" and not is_control(c))
    text = "".join(f" {c} " if is_cjk(c) else c for c in text)
    text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    return text.lower()


def pre_tokenize(text: str) -> list[str]:
    """Words: split at spaces (dropped) and around each punctuation mark (kept, alone)."""
    out: list[str] = []
    for chunk in text.split(" "):
        word = ""
        for c in chunk:
            if is_punctuation(c):
                out.extend([word, c] if word else [c])
                word = ""
            elif is_space(c):
                if word:
                    out.append(word)
                word = ""
            else:
                word += c
        if word:
            out.append(word)
    return out


class WordPiece:
    """A WordPiece vocabulary (BERT's vocab.txt: one piece per line, its id the line's number)."""

    def __init__(self, pieces: Sequence[str]) -> None:
        self.pieces = list(pieces)
        self.ids = {p: i for i, p in enumerate(self.pieces)}
        self.unk = self.ids[UNK]

    @classmethod
    def from_file(cls, path: Path) -> WordPiece:
        return cls(path.read_text(encoding="utf-8").splitlines())

    def __len__(self) -> int:
        return len(self.pieces)

    def word(self, word: str) -> list[str]:
        """One word's pieces: from the left, the longest piece in the vocabulary ("##" inside a word); [UNK] for
        the whole word when some part of it is no piece."""
        if len(word) > MAX_WORD_CHARS:
            return [UNK]
        out, start = [], 0
        while start < len(word):
            for end in range(len(word), start, -1):
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.ids:
                    out.append(piece)
                    start = end
                    break
            else:
                return [UNK]
        return out

    def cut(self, text: str) -> Cut:
        """The text's pieces and ids, without [CLS] and [SEP]; an [UNK] is unknown (id None)."""
        tokens = tuple(p for w in pre_tokenize(normalize(text)) for p in self.word(w))
        return Cut(tokens, tuple(None if p == UNK else self.ids[p] for p in tokens), len(self))

    def encode(self, text: str) -> list[int]:
        """The ids the model reads: [CLS], the pieces (an unknown one as [UNK]'s id), [SEP]."""
        ids = [self.unk if i is None else i for i in self.cut(text).ids]
        return [self.ids["[CLS]"], *ids, self.ids["[SEP]"]]


def wordpiece_fertility(counts: Sequence[tuple[str, int]], wordpiece: WordPiece) -> float:
    """WordPiece's pieces per word, weighted by the words' counts."""
    total = sum(n for _, n in counts)
    return sum(len(wordpiece.cut(w)) * n for w, n in counts) / total


# --- What the text asks of the page ------------------------------------------------------------------------


def invisible(text: str) -> list[tuple[int, str]]:
    """Each character a reader cannot see (control and format characters: zero-width spaces, joiners, direction
    marks), apart from tab and newline: (its place in the text, its Unicode name or code point)."""
    return [
        (i, unicodedata.name(c, f"U+{ord(c):04X}"))
        for i, c in enumerate(text)
        if c not in "\t\n" and unicodedata.category(c) in ("Cc", "Cf")
    ]


# --- What the vocabulary costs -------------------------------------------------------------------------------


def parameter_counts(path: Path) -> dict[str, int]:
    """Every tensor of a .safetensors file and its number of values, read from the file's header (no weights)."""
    from safetensors import safe_open

    out = {}
    with safe_open(str(path), framework="pt") as f:
        for name in f.keys():  # noqa: SIM118 (safe_open is no dict)
            n = 1
            for size in f.get_slice(name).get_shape():
                n *= size
            out[name] = n
    return out


@dataclass(frozen=True)
class Price:
    """The embedding table's share of a model: vocabulary x d_model values among all of the model's."""

    vocabulary: int
    d_model: int
    total: int

    @property
    def table(self) -> int:
        return self.vocabulary * self.d_model

    @property
    def share(self) -> float:
        return self.table / self.total

    def with_output(self, tied: bool) -> int:
        """The model with an output layer back to the vocabulary: nothing more when it is the table itself
        (weight tying), another vocabulary x d_model when it is its own."""
        return self.total + (0 if tied else self.table)


def price_from_file(path: Path, table: str = "embeddings.word_embeddings.weight") -> Price:
    """embedding_price for a .safetensors file: the table's shape and every tensor's size read from its header."""
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as f:
        vocabulary, d_model = f.get_slice(table).get_shape()
    return Price(vocabulary, d_model, sum(parameter_counts(path).values()))
