"""The hand-off from the text-to-tokens page to the input layer ("Use these tokens"), declared once: both pages read it.

The hand-off is the input layer's link, three of its declared settings (lessons.input_layer.settings): the sentence
(`SENTENCE`), the table its tokens are looked up in (`TABLE`) and the cut handed on (`CUT`, in `Handed.text`'s form:
"wordpiece", "characters", "bytes", "words-<lang>", or "bpe-<lang>-<words>-<merges>-<step>"). The cuts are
core.tokens.CUTS. A trained table reads one cut alone (`TABLE_FOR`: MiniLM's its WordPiece pieces, GloVe's words),
every other cut a random table as large as its vocabulary. A BPE training handed on is at most what the text-to-tokens
page's own controls can ask for (`MOST_WORDS`, `MOST_MERGES`: its declaration's bounds). The text-to-tokens page writes
the link (`link`), the input layer reads it (`read`).
"""

from __future__ import annotations

from dataclasses import dataclass

from core import bpe, tokens
from lessons.input_layer.settings import SETTINGS as INPUT_LAYER
from lessons.text_to_tokens.settings import SETTINGS as TEXT_TO_TOKENS

SENTENCE, TABLE, CUT = INPUT_LAYER["il_sentence"], INPUT_LAYER["il_mode"], INPUT_LAYER["il_from"]
TABLE_FOR = {"wordpiece": "minilm", "words": "glove"}  # the one cut each trained table reads
OTHER_TABLE = "random"  # the table every other cut reads
MOST_WORDS = max(TEXT_TO_TOKENS["tt_words"].options)  # 50,000 words
MOST_MERGES = int(TEXT_TO_TOKENS["tt_merges"].high or 0)  # 60,000 merges
DIGITS = 6  # a link's number has at most this many (a bound on int()'s work; the bounds above say the rest)


def table_for(name: str) -> str:
    """The input layer's table for the tokens of cut `name` (core.tokens.CUTS)."""
    return TABLE_FOR.get(name, OTHER_TABLE)


@dataclass(frozen=True)
class Handed:
    """A cut handed on to the input layer: its name (core.tokens.CUTS), the words' language, and for BPE its
    training (language, words, merges) and the merge step."""

    name: str
    lang: str = "en"
    words: int = 0
    merges: int = 0
    step: int = 0

    @property
    def text(self) -> str:
        """The link's form: "bytes", "words-zh", "bpe-en-10000-2000-50"."""
        if self.name == "bpe":
            return f"bpe-{self.lang}-{self.words}-{self.merges}-{self.step}"
        return f"words-{self.lang}" if self.name == "words" else self.name


def link(sentence: str, name: str, lang: str, words: int, merges: int, step: int) -> dict[str, str]:
    """The input layer's link parameters for `sentence` cut by `name` (words: their language; BPE: its language,
    words, merges, step)."""
    handed = Handed(name, lang, words, merges, step) if name == "bpe" else Handed(name, lang)
    return {SENTENCE.key: sentence, TABLE.key: table_for(name), CUT.key: handed.text}


def read(text: str | None) -> Handed | None:
    """A hand-off's cut from the link (Handed.text; "words" alone is English's); None when malformed or past the
    text-to-tokens page's bounds."""
    if text is None:
        return None
    if text in tokens.CUTS and text != "bpe":
        return Handed(text)
    parts = text.split("-")
    if len(parts) == 2 and parts[0] == "words" and parts[1] in bpe.LANGS:
        return Handed("words", parts[1])
    numbers = all(p.isascii() and p.isdigit() and len(p) <= DIGITS for p in parts[2:])
    if len(parts) == 5 and parts[0] == "bpe" and parts[1] in bpe.LANGS and numbers:
        words, merges, step = map(int, parts[2:])
        if 0 < words <= MOST_WORDS and step <= merges <= MOST_MERGES:
            return Handed("bpe", parts[1], words, merges, step)
    return None
