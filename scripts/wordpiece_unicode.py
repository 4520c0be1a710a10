"""Write data/wordpiece_unicode.tsv: what MiniLM's tokenizer does with each code point, read from `tokenizers` itself.

core.tokens' WordPiece must cut any text as `tokenizers` (0.23.3) cuts it with MiniLM's tokenizer.json, whose Rust
crate classifies characters by its own Unicode tables (unicode-normalization-alignments, unicode_categories, Rust's
char::to_lowercase and char::is_whitespace), not Python's unicodedata (Unicode 14 in Python 3.11): they differ on
unassigned code points, on marks and punctuation added since, and on lowercasing. So each code point is put through
the tokenizer's own normalizer and pre-tokenizer, once, and the answers written down:

    N <TAB> first <TAB> last <TAB> rule     the normalizer's output for each code point of the range, by rule:
                                            drop (nothing), space (" "), spaced (" c ": a CJK ideograph alone),
                                            nfd (unicodedata's NFD, letters only: Hangul syllables' jamo)
    M <TAB> code point <TAB> output         any other output that is not the character itself (lowercase, accents
                                            stripped, NFD), as code points separated by spaces
    P <TAB> first <TAB> last <TAB> kind     the pre-tokenizer's classes: punct (a word of its own), space (a split)

Every code point not named in N or M is its own output; every one not named in P is a word's character. Surrogates
(U+D800-U+DFFF) are not probed: a Python string holding one cannot be encoded as UTF-8 for Rust, so no text the lab
receives from the browser holds one. The normalizer works one character at a time (NFD's reordering moves only
combining marks, which it strips; its lowercasing is char::to_lowercase), which tests/core/test_tokens.py checks
on whole strings. Run after upgrading tokenizers:

    .venv/bin/python scripts/wordpiece_unicode.py
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import tokenizers
from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.pretrained import minilm_weights_path  # noqa: E402
from core.tokens import UNICODE_TABLE  # noqa: E402

SURROGATES = range(0xD800, 0xE000)


def rule(c: int, out: str) -> str:
    """The normalizer's output for chr(c) as a rule name, or "" when it is neither kept, nor one of the rules."""
    ch = chr(c)
    if out != ch and out == unicodedata.normalize("NFD", ch) and out.isalpha():  # Hangul syllables: their jamo
        return "nfd"
    return {ch: "keep", "": "drop", " ": "space", f" {ch} ": "spaced"}.get(out, "")


def ranges(kinds: dict[int, str]) -> list[tuple[int, int, str]]:
    """Runs of consecutive code points of one kind: (first, last, kind)."""
    out: list[tuple[int, int, str]] = []
    for c in sorted(kinds):
        if out and out[-1][1] == c - 1 and out[-1][2] == kinds[c]:
            out[-1] = (out[-1][0], c, kinds[c])
        else:
            out.append((c, c, kinds[c]))
    return out


def main() -> None:
    tokenizer = Tokenizer.from_file(str(minilm_weights_path().with_name("tokenizer.json")))
    normalizer, pre = tokenizer.normalizer, tokenizer.pre_tokenizer
    rules: dict[int, str] = {}
    mapped: dict[int, str] = {}
    classes: dict[int, str] = {}
    for c in range(0x110000):
        if c in SURROGATES:
            continue
        out = normalizer.normalize_str(chr(c))
        kind = rule(c, out)
        if not kind:
            mapped[c] = out
        elif kind != "keep":
            rules[c] = kind
        words = len(pre.pre_tokenize_str(f"a{chr(c)}a"))  # 1: a word's character, 2: a space, 3: punctuation
        if words != 1:
            classes[c] = {2: "space", 3: "punct"}[words]
    lines = [
        f"# Written by scripts/wordpiece_unicode.py from tokenizers {tokenizers.__version__} (MiniLM's tokenizer.json)"
    ]
    lines += [f"N\t{a:X}\t{b:X}\t{kind}" for a, b, kind in ranges(rules)]
    lines += [f"M\t{c:X}\t{' '.join(f'{ord(o):X}' for o in out)}" for c, out in sorted(mapped.items())]
    lines += [f"P\t{a:X}\t{b:X}\t{kind}" for a, b, kind in ranges(classes)]
    UNICODE_TABLE.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{UNICODE_TABLE.name}: {len(rules)} code points by rule, {len(mapped)} mapped, {len(classes)} split")


if __name__ == "__main__":
    main()
