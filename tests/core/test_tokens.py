"""core/tokens.py against other implementations: WordPiece against `tokenizers` on MiniLM's own tokenizer.json,
bytes against str.encode, the parameter counts against the tensors safetensors loads."""

import unicodedata
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import bpe, pretrained, tokens

if TYPE_CHECKING:
    from tokenizers import Tokenizer

HELD_OUT = [  # sentences no code here was written from
    "The quick brown fox jumps over the lazy dog.",
    "Unbelievably, tokenizers' pieces (##ing, ##s) differ: 3.14 vs. 2,718!",
    "Café naïve résumé coöperate façade",
    "我喜欢机器学习。东京和北京都是大城市！",
    "日本語のテキストと한국어 텍스트",
    "Emoji 🙂👍🏽 and flags 🇫🇷 and math ∑∫√",
    "zero\u200bwidth\u200djoiner\u2060and\u00adsoft hyphen",
    "tabs\tand\nnewlines\r\nand\x07bell\x00nul",
    "ＦＵＬＬＷＩＤＴＨ ｶﾀｶﾅ ǅ İstanbul Straße",
    "supercalifragilisticexpialidocious" * 4,
    "0\U0002b820 0\U0002b920",  # tokenizers' CJK ranges: U+2B820 inside a word, U+2B920 a word of its own
    "",
    "   ",
]
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=60)  # Hypothesis' mix, ASCII-heavy
# Every code point but the surrogates (U+D800-U+DFFF): a str holding one cannot be encoded as UTF-8 for `tokenizers`
# (it raises), and no text from the browser holds one. Most code points are unassigned or private-use.
SURROGATES = range(0xD800, 0xE000)
ANY_POINT = st.integers(0, 0x10FFFF - len(SURROGATES)).map(lambda c: chr(c if c < 0xD800 else c + len(SURROGATES)))
# Where the tokenizer's Unicode and Python's differ or where the normalizer changes a character, drawn far more often
# than their share of code points: where Python's classes and the tokenizer's part, every range data/wordpiece_unicode.tsv names (dropped, spaces, CJK, mapped,
# punctuation), Python's own classes that the lab used to read (unassigned, marks, punctuation, format, upper and
# title case), Greek (lowercasing one character at a time: no final sigma) and characters that lowercase to more.
_TABLE = tokens.UnicodeTable()
_NAMED = [(a, b) for a, b, _ in (*_TABLE.rules, *_TABLE.classes)] + [(c, c) for c in _TABLE.mapped]


def _python_disagrees() -> list[str]:
    """The assigned code points whose class by Python's unicodedata (what the lab read before) is not the
    tokenizer's: punctuation or not, dropped (other, or a mark) or not (unassigned ones are most of ANY_POINT)."""
    punct = {c for a, b, kind in _TABLE.classes if kind == "punct" for c in range(a, b + 1)}
    out = []
    for c in range(0x110000):
        category = unicodedata.category(chr(c))
        if category in ("Cn", "Cs"):
            continue
        python_punct = category[0] == "P" or (c < 128 and category[0] == "S")
        python_drop = category[0] == "C" and chr(c) not in "\t\n\r" or category == "Mn"
        if python_punct != (c in punct) or python_drop != (_TABLE.RULES[_TABLE.changes[c]] == "drop"):
            out.append(chr(c))
    return out


HARD_POINT = st.one_of(
    st.sampled_from(_python_disagrees()),
    st.sampled_from(_NAMED).flatmap(lambda r: st.integers(*r)).map(chr),
    st.characters(categories=("Cn", "M", "P", "Cf", "Co", "Lu", "Lt", "Zs"), exclude_characters=None),
    st.characters(min_codepoint=0x370, max_codepoint=0x3FF),  # Greek and Coptic
    st.sampled_from("ΣσςİIıßẞ\u212a\u0345\ufffd\x00"),
)
TYPED = st.sampled_from(["[MASK]", "[CLS]", "[SEP]", "[PAD]", "[UNK]", "[mask]", "[Mask]", "[MASK", "SEP]", "[[", "]"])
WORD = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzABCÉé"), min_size=1, max_size=12)
ANY_TEXT = st.lists(
    st.one_of(ANY_POINT, HARD_POINT, HARD_POINT, TYPED, WORD, st.sampled_from([" ", " ", "\t", "x" * 101])), max_size=30
).map("".join)


@pytest.fixture(scope="module")
def minilm():
    path = pretrained.minilm_weights_path()
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(str(path.with_name("tokenizer.json")))
    reference.no_padding()
    reference.no_truncation()
    return tokens.WordPiece.from_file(path.with_name("tokenizer.json")), reference


def same(minilm: tuple[tokens.WordPiece, "Tokenizer"], text: str) -> None:
    """Our WordPiece cuts `text` as MiniLM's own tokenizer does (the fixture `minilm`: ours, theirs)."""
    ours, reference = minilm
    enc = reference.encode(text)
    assert ours.encode(text) == enc.ids
    assert [
        "[CLS]",
        *(tokens.UNK if i is None else p for p, i in zip(*_cut(ours, text), strict=True)),
        "[SEP]",
    ] == enc.tokens


def _cut(ours, text):
    cut = ours.cut(text)
    return cut.tokens, cut.ids


@pytest.mark.parametrize("text", HELD_OUT)
def test_wordpiece_pieces_and_ids_are_minilms_on_held_out_sentences(minilm, text):
    same(minilm, text)


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_wordpiece_pieces_and_ids_are_minilms_on_any_text(minilm, text):
    same(minilm, text)


@settings(max_examples=100, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["un", "believ", "able", "token", "izer", "s", "ing", "東", "京", "!", "é"]), max_size=8
    )
)
def test_wordpiece_on_glued_pieces_is_minilms(minilm, words):
    same(minilm, "".join(words) + " " + " ".join(words))


def test_wordpiece_cuts_unbelievable_words_into_pieces_with_continuations(minilm):
    cut = minilm[0].cut("Tokenizers")
    assert cut.tokens == ("token", "##izer", "##s") and cut.unknown == 0 and cut.vocabulary == 30_522


@settings(max_examples=200)
@given(text=st.text(max_size=40))
def test_bytes_are_str_encode_and_characters_are_code_points(text):
    assert list(tokens.utf8_bytes(text).ids) == list(text.encode("utf-8"))
    assert "".join(tokens.characters(text).tokens) == text
    assert tokens.characters(text).ids == tuple(map(ord, text))


@settings(max_examples=200)
@given(raw=st.binary(max_size=12))
def test_shown_bytes_spell_every_character_and_name_every_other_byte(raw):
    shown = tokens.shown_bytes(raw)
    if raw.isascii():
        assert shown == raw.decode()
    try:
        assert shown == raw.decode("utf-8")
    except UnicodeDecodeError:
        assert "<" in shown


def test_a_word_cut_looks_words_up_and_counts_the_unknown():
    cut = tokens.words("The cat, the CAT and the zyzzyva", ["the", "cat", ","])
    assert cut.tokens == ("The", "cat", ",", "the", "CAT", "and", "the", "zyzzyva")
    assert cut.ids == (0, 1, 2, 0, 1, None, 0, None) and cut.unknown == 2 and cut.vocabulary == 3


def test_a_bpe_cut_at_step_k_is_bpes_encoding_after_k_merges():
    merges = bpe.train([("lower", 5), ("low", 7), ("newest", 6)], 10)
    for k in range(len(merges) + 1):
        cut = tokens.bpe_cut("lowest newer", merges, k)
        assert cut.ids == tuple(bpe.encode("lowest newer", merges, k)) and cut.vocabulary == 256 + k
        assert "".join(cut.tokens) == "lowest newer"


def test_invisible_characters_are_named_where_they_are():
    assert tokens.invisible("a\u200bb\tc\x07") == [(1, "ZERO WIDTH SPACE"), (5, "U+0007")]
    assert tokens.wordpiece_drops("a\u200bb\tc\x07", [1, 5]) == 2 and tokens.wordpiece_drops("\u0890", [0]) == 0


def test_minilms_parameter_counts_are_the_sum_over_its_safetensors():
    from safetensors.torch import load_file

    path = pretrained.minilm_weights_path()
    weights = load_file(str(path))
    counts = tokens.parameter_counts(path)
    assert counts == {name: w.numel() for name, w in weights.items()}
    price = tokens.price_from_file(path)
    table = weights["embeddings.word_embeddings.weight"]
    assert (price.vocabulary, price.d_model) == tuple(table.shape) == (30_522, 384)
    assert price.table == table.numel() and price.total == sum(w.numel() for w in weights.values())
    assert price.with_output(tied=True) == price.total
    assert price.with_output(tied=False) - price.total == table.numel()


@settings(max_examples=100, deadline=None)
@given(text=TEXT)
def test_cut_text_by_each_name_is_that_cut_computed_another_way(minilm, text):
    """The cut the input layer is handed: bytes are str.encode's, characters their code points, BPE bpe.encode's,
    WordPiece `tokenizers`' ids for MiniLM, words their rank in the word list."""
    wordpiece, reference = minilm
    merges = bpe.train([("lower", 5), ("low", 7), ("newest", 6)], 8)
    assert tokens.cut_text(text, "bytes").ids == tuple(text.encode("utf-8"))
    assert tokens.cut_text(text, "bytes").vocabulary == 256
    assert tokens.cut_text(text, "characters").ids == tuple(ord(c) for c in text)
    assert tokens.cut_text(text, "bpe", merges=merges, step=5).ids == tuple(bpe.encode(text, merges, 5))
    assert tokens.cut_text(text, "bpe", merges=merges, step=5).vocabulary == 256 + 5
    piece = tokens.cut_text(text, "wordpiece", wordpiece=wordpiece)
    assert tokens.table_ids(piece, wordpiece.unk) == tuple(reference.encode(text).ids[1:-1])  # no [CLS], [SEP]
    listed = ["the", "low", "er"]
    said = tokens.cut_text(text, "words", vocabulary=listed)
    assert said.ids == tuple(
        listed.index(w.lower()) if w.lower() in listed else None for w in tokens.WORD.findall(text)
    )


def test_cut_text_refuses_a_name_it_does_not_know_and_wordpiece_without_its_vocabulary():
    with pytest.raises(ValueError, match="no cut named 'sentencepiece'"):
        tokens.cut_text("a", "sentencepiece")
    with pytest.raises(ValueError, match="needs its vocabulary"):
        tokens.cut_text("a", "wordpiece")


def test_table_ids_give_an_unknown_token_the_unknown_row():
    cut = tokens.words("the zyzzyva cat", ["the", "cat"])
    assert tokens.table_ids(cut, unknown=2) == (0, 2, 1)
    assert tokens.table_ids(tokens.utf8_bytes("é"), unknown=256) == (0xC3, 0xA9)


# The four ways the lab's WordPiece differed from `tokenizers` (issue 52), each at its smallest.


def test_greek_is_lowercased_one_character_at_a_time_without_a_final_sigma(minilm):
    ours, reference = minilm
    assert ours.cut("ΥΣ").tokens == ("υ", "##σ") and ours.cut("ΥΣ").ids == (1175, 29733)
    for text in ("ΥΣ", "ΟΔΥΣΣΕΥΣ ΚΑΙ Ο ΚΥΚΛΩΨ", "Σ", "ΑΣ. ΣΑ"):
        same((ours, reference), text)


@pytest.mark.parametrize("text", ["\ufffe", "\u0378", "\U0002b73e", "a\u0378b c\U000e01f0"])
def test_an_unassigned_code_point_is_unknown_not_dropped(minilm, text):
    ours, reference = minilm
    assert tokens.UNK in ours.cut(text).tokens
    same((ours, reference), text)


def test_punctuation_is_the_tokenizers_unicode_not_pythons(minilm):
    ours, reference = minilm
    assert ours.cut("\u2e53y").tokens == (tokens.UNK,)  # U+2E53 (Unicode 14) is no punctuation to the tokenizer
    for text in ("\u2e53y", "x\u2e5dy", "\u166dz"):
        same((ours, reference), text)


@pytest.mark.parametrize(
    "text", ["[MASK]", "[CLS] a [SEP] b [SEP]", "x[MASK]y", "[mask] [Mask]", "[[UNK]]", "[PAD][PAD]", "[MASK"]
)
def test_special_tokens_typed_in_the_text_are_the_tokenizers_added_tokens(minilm, text):
    ours, reference = minilm
    same((ours, reference), text)


def test_a_typed_mask_is_one_token_and_a_lowercase_one_is_not(minilm):
    ours, _ = minilm
    assert ours.cut("[MASK]").tokens == ("[MASK]",) and ours.cut("[MASK]").ids == (103,)
    assert ours.cut("[mask]").tokens == ("[", "mask", "]")  # added tokens are matched before normalizing


@settings(max_examples=5 * settings().max_examples)  # 500 in CI, 10,000 in the long profile
@given(text=ANY_TEXT)
def test_wordpiece_is_the_tokenizers_on_any_code_point_and_typed_special_tokens(minilm, text):
    same(minilm, text)


def test_every_code_point_inside_a_word_is_the_tokenizers(minilm):
    """All 1,112,064 code points but the surrogates, each inside a word ("xcx"), 2,000 words a text: the normalized
    text is the tokenizer's normalizer's, the pieces and ids its own (pre_tokenize_str, slower, adds nothing)."""
    ours, reference = minilm
    points = [chr(c) for c in range(0x110000) if c not in SURROGATES]
    for i in range(0, len(points), 2000):
        text = " ".join(f"x{c}x" for c in points[i : i + 2000])
        normalized = tokens.normalize(text)
        assert normalized == reference.normalizer.normalize_str(text), f"from U+{ord(points[i]):04X}"
        enc, cut = reference.encode(text), ours.cut(text)
        assert list(cut.tokens) == enc.tokens[1:-1] and tokens.table_ids(cut, ours.unk) == tuple(enc.ids[1:-1])
