"""core/tokens.py against other implementations: WordPiece against `tokenizers` on MiniLM's own tokenizer.json,
bytes against str.encode, the parameter counts against the tensors safetensors loads."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import bpe, pretrained, tokens

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
# Assigned characters: Python 3.11's Unicode and the Rust crate tokenizers uses may differ on what is assigned.
TEXT = st.text(st.characters(exclude_categories=("Cn", "Cs")), max_size=60)


@pytest.fixture(scope="module")
def minilm():
    path = pretrained.minilm_weights_path()
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(str(path.with_name("tokenizer.json")))
    reference.no_padding()
    reference.no_truncation()
    return tokens.WordPiece.from_file(path.with_name("vocab.txt")), reference


def same(ours: tokens.WordPiece, reference, text: str) -> None:
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
    same(*minilm, text)


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_wordpiece_pieces_and_ids_are_minilms_on_any_text(minilm, text):
    same(*minilm, text)


@settings(max_examples=100, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["un", "believ", "able", "token", "izer", "s", "ing", "東", "京", "!", "é"]), max_size=8
    )
)
def test_wordpiece_on_glued_pieces_is_minilms(minilm, words):
    same(*minilm, "".join(words) + " " + " ".join(words))


def test_wordpiece_cuts_unbelievable_words_into_pieces_with_continuations(minilm):
    cut = minilm[0].cut("Tokenizers")
    assert cut.tokens == ("token", "##izer", "##s") and cut.unknown == 0 and cut.vocabulary == 30_522


@settings(max_examples=200)
@given(text=st.text(max_size=40))
def test_bytes_are_str_encode_and_characters_are_code_points(text):
    assert bytes(tokens.utf8_bytes(text).ids) == text.encode("utf-8")
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
