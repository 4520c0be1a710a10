"""Four ways to cut a text into tokens with ids, and what the vocabulary costs in a model's weights.

    characters   one token per Unicode code point, id = the code point (a vocabulary of 0x110000)
    bytes        one token per UTF-8 byte, id = the byte (256: nothing is ever unknown)
    words        runs of letters and digits, and each other sign, looked up in wordfreq's most frequent words
    WordPiece    BERT's: clean and lowercase the text, split words and punctuation, then each word greedily into
                 the longest pieces of the vocabulary, "##" marking a piece inside a word; [UNK] when it cannot
BPE is core/bpe.py. WordPiece here is written out (Wu et al. 2016; BERT's BasicTokenizer and WordpieceTokenizer) as
`tokenizers` runs it for MiniLM, with that tokenizer's Unicode classes (data/wordpiece_unicode.tsv), and
tests/core/test_tokens.py checks its pieces and ids against `tokenizers`' on every code point and generated text.
"""

from __future__ import annotations

import functools
import json
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


# What cut_text cuts by, each cut named here once (the pages order them from these groups): an alphabet fixed in
# advance, a list of words, a vocabulary learned from text (WordPiece's, MiniLM's; BPE's, trained by the learner).
FIXED = ("characters", "bytes")
LISTED = ("words",)
LEARNED = ("wordpiece", "bpe")
CUTS = FIXED + LISTED + LEARNED


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

UNICODE_TABLE = Path(__file__).resolve().parents[1] / "data" / "wordpiece_unicode.tsv"
MINILM_NORMALIZER = {  # the normalizer the table was read from (MiniLM's tokenizer.json): from_file checks it
    "type": "BertNormalizer",
    "clean_text": True,
    "handle_chinese_chars": True,
    "strip_accents": None,  # None with lowercase: accents stripped
    "lowercase": True,
}


def _char_class(ranges: Sequence[tuple[int, int]]) -> str:
    """The inside of a regular expression's character class of the code point ranges (first, last)."""
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in sorted(ranges))


class UnicodeTable:
    """What `tokenizers` does with each code point for MiniLM, read from data/wordpiece_unicode.tsv (written by
    scripts/wordpiece_unicode.py from `tokenizers` itself, whose Unicode tables are not Python's unicodedata).

    table[code point] is the normalizer's output for that character (dropped, a space, a CJK ideograph between
    spaces, a Hangul syllable's jamo, lowercase without its accents); the character itself when it is kept.

    Attributes:
        rules: (first, last, rule) ranges the normalizer treats alike (RULES); mapped: code point -> any other output;
        classes: (first, last, "punct" or "space") ranges of the pre-tokenizer, the rest are words' characters;
        words: the pre-tokenizer as a regular expression (re's loop in C reads the text).
    """

    RULES = ("keep", "drop", "space", "spaced", "nfd", "mapped")  # a code point's rule, by its number in `changes`

    def __init__(self, path: Path = UNICODE_TABLE) -> None:
        self.rules: list[tuple[int, int, str]] = []
        self.classes: list[tuple[int, int, str]] = []
        self.mapped: dict[int, str] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            kind, *fields = line.split("\t")
            if kind == "N":
                self.rules.append((int(fields[0], 16), int(fields[1], 16), fields[2]))
            elif kind == "M":
                self.mapped[int(fields[0], 16)] = "".join(chr(int(c, 16)) for c in fields[1].split())
            elif kind == "P":
                self.classes.append((int(fields[0], 16), int(fields[1], 16), fields[2]))
        self.changes = bytearray(UNICODE)  # each code point's rule (0: kept), one byte each: 1.1 MB
        for a, b, rule in self.rules:
            self.changes[a : b + 1] = bytes([self.RULES.index(rule)]) * (b + 1 - a)
        for c in self.mapped:
            self.changes[c] = self.RULES.index("mapped")
        self.ascii = {c: self[c] for c in range(128) if self.changes[c]}  # str.translate's table for ASCII text
        punct = _char_class([(a, b) for a, b, kind in self.classes if kind == "punct"])
        space = _char_class([(a, b) for a, b, kind in self.classes if kind == "space"])
        self.words = re.compile(f"[{punct}]|[^{punct}{space}]+")

    def __getitem__(self, c: int) -> str:
        rule = self.RULES[self.changes[c]]
        if rule == "mapped":
            return self.mapped[c]
        if rule == "spaced":
            return f" {chr(c)} "
        if rule == "nfd":
            return unicodedata.normalize("NFD", chr(c))
        return {"keep": chr(c), "drop": "", "space": " "}[rule]


# Not a cached result (ui.cache caches those): a constant of the process, the shipped data file read once, for the
# pages, the tests and the scripts alike, which need no Streamlit.
@functools.cache
def unicode_table() -> UnicodeTable:
    """The table, read once."""
    return UnicodeTable()


def normalize(text: str) -> str:
    """BERT's uncased cleaning (BertNormalizer), one character at a time: control characters (and NUL, U+FFFD)
    dropped, spaces to " ", a space around each CJK ideograph, accents stripped (NFD, then no combining marks), and
    each character lowercased alone (Rust's char::to_lowercase: "ΥΣ" gives "υσ", no final sigma), all by the
    tokenizer's Unicode tables (an unassigned code point is kept, and becomes [UNK])."""
    table = unicode_table()
    if text.isascii():
        return text.translate(table.ascii)
    changes = table.changes
    return "".join([table[ord(c)] if changes[ord(c)] else c for c in text])


def pre_tokenize(text: str) -> list[str]:
    """Words (BertPreTokenizer): split at spaces (dropped) and around each punctuation mark (kept, alone)."""
    return unicode_table().words.findall(text)


class WordPiece:
    """A WordPiece tokenizer as `tokenizers` runs MiniLM's tokenizer.json: its vocabulary (a piece's id its line in
    vocab.txt) and its added tokens ([PAD], [UNK], [CLS], [SEP], [MASK]).

    An added token typed in the text is that token, matched in the text as typed before normalizing ("[MASK]" is
    [MASK], id 103; "[mask]" is "[", "mask", "]"). This is the fast tokenizer (`tokenizers`, MiniLM's tokenizer.json).
    Where transformers' slow one (BertTokenizerLegacy, Python's unicodedata and str.lower) differs, this follows the
    fast one: "ΥΣ" is υ ##σ here, υ ##ς there (final sigma); U+0378 (unassigned) is [UNK] here, dropped there;
    "⹓y" is one [UNK] here, [UNK] y there (U+2E53 is punctuation to Python's Unicode 14 only). Both read typed
    special tokens alike.
    """

    def __init__(
        self, pieces: Sequence[str], special: Sequence[str] = (), max_word_chars: int = MAX_WORD_CHARS
    ) -> None:
        self.pieces = list(pieces)
        self.ids = {p: i for i, p in enumerate(self.pieces)}
        self.unk = self.ids[UNK]
        self.special = tuple(special)
        self.max_word_chars = max_word_chars
        longest_first = sorted(self.special, key=len, reverse=True)  # leftmost, then longest, as aho-corasick's
        self._special = re.compile("|".join(map(re.escape, longest_first))) if special else None

    @classmethod
    def from_file(cls, path: Path) -> WordPiece:
        """A tokenizer.json's WordPiece model and added tokens.

        Raises:
            ValueError: a tokenizer.json this class does not run as `tokenizers` would: another normalizer or
                pre-tokenizer than MiniLM's (UnicodeTable is read from MiniLM's), another model, or an added token
                with lstrip, rstrip, single_word or normalized set.
        """
        spec = json.loads(path.read_text(encoding="utf-8"))
        model = spec["model"]
        if model["type"] != "WordPiece" or model.get("continuing_subword_prefix", "##") != "##":
            raise ValueError(f"{path.name}: a WordPiece model with ## is needed, not {model['type']}")
        if spec["normalizer"] != MINILM_NORMALIZER or spec["pre_tokenizer"] != {"type": "BertPreTokenizer"}:
            raise ValueError(f"{path.name}: the Unicode table is MiniLM's normalizer and pre-tokenizer, not these")
        added = spec.get("added_tokens", [])
        odd = [t["content"] for t in added if any(t.get(k) for k in ("lstrip", "rstrip", "single_word", "normalized"))]
        if odd:
            raise ValueError(f"{path.name}: added tokens matched otherwise than as typed: {', '.join(odd)}")
        vocab = model["vocab"]
        pieces = sorted(vocab, key=vocab.__getitem__)
        if [vocab[p] for p in pieces] != list(range(len(pieces))) or model["unk_token"] != UNK:
            raise ValueError(f"{path.name}: ids must be 0..n-1 and the unknown piece {UNK}")
        if any(vocab.get(t["content"]) != t["id"] for t in added):
            raise ValueError(f"{path.name}: an added token outside the vocabulary")
        return cls(pieces, [t["content"] for t in added], model.get("max_input_chars_per_word", MAX_WORD_CHARS))

    def __len__(self) -> int:
        return len(self.pieces)

    def word(self, word: str) -> list[str]:
        """One word's pieces: from the left, the longest piece in the vocabulary ("##" inside a word); [UNK] for
        the whole word when some part of it is no piece."""
        if len(word) > self.max_word_chars:
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

    def segments(self, text: str) -> list[tuple[str, bool]]:
        """The text split at the added tokens typed in it: (a part, whether it is an added token), in order."""
        if self._special is None:
            return [(text, False)]
        out, at = [], 0
        for m in self._special.finditer(text):
            if m.start() > at:
                out.append((text[at : m.start()], False))
            out.append((m.group(), True))
            at = m.end()
        if at < len(text):
            out.append((text[at:], False))
        return out

    def cut(self, text: str) -> Cut:
        """The text's pieces and ids, without the [CLS] and [SEP] the model adds; an [UNK] the vocabulary lacked is
        unknown (id None), an [UNK] typed in the text is the added token (its id)."""
        pieces: list[str] = []
        ids: list[int | None] = []
        for part, added in self.segments(text):
            if added:
                pieces.append(part)
                ids.append(self.ids[part])
                continue
            for w in pre_tokenize(normalize(part)):
                for p in self.word(w):
                    pieces.append(p)
                    ids.append(None if p == UNK else self.ids[p])
        return Cut(tuple(pieces), tuple(ids), len(self))

    def encode(self, text: str) -> list[int]:
        """The ids the model reads: [CLS], the pieces (an unknown one as [UNK]'s id), [SEP]."""
        return [self.ids["[CLS]"], *table_ids(self.cut(text), self.unk), self.ids["[SEP]"]]


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


def wordpiece_drops(text: str, places: Sequence[int]) -> int:
    """How many of the characters at `places` MiniLM's WordPiece drops (normalize: to nothing). Not all that
    unicodedata calls control or format: the tokenizer's Unicode tables are older for some (U+0890 is kept)."""
    return sum(normalize(text[i]) == "" for i in places)


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
