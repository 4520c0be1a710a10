"""The input layer: seed 003's numbers, padding, LayerNorm, and MiniLM's real input layer."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn
from torch.testing import assert_close

from core.embeddings import (
    ARE_YOU_OK,
    InputLayer,
    LayerConfig,
    TokenEmbedding,
    build_input_layer,
    glove_rows,
    glove_vocabulary,
    ids_and_segments,
    input_stages,
    norms_against_d_model,
    pad_batch,
    padding_gradients,
    parameter_counts,
    random_rows,
    split_words,
    table_stages,
)
from core.glove import load_glove
from core.positional import sinusoidal_encoding
from tests.fixtures import FIXTURES


def test_are_you_ok_reproduces_seed_003():
    """Seed 003: PE for embed_dim 4, max_pos 5, added to its 4 x 4 word matrix; checked against numpy by hand."""
    pos = np.arange(5)[:, None]
    div = np.exp(np.arange(0, 4, 2) * (-math.log(10000.0) / 4))  # [1, 0.01]
    pe = np.zeros((5, 4))
    pe[:, 0::2], pe[:, 1::2] = np.sin(pos * div), np.cos(pos * div)
    ours = sinusoidal_encoding(5, 4)
    assert_close(ours.double().numpy(), pe, atol=1e-7, rtol=0)
    total = ARE_YOU_OK + ours[:4]
    assert_close(
        total[1], torch.tensor([0.3413 + 0.8415, 0.9284 + 0.5403, 0.9349 + 0.0100, 0.8958 + 0.99995]), atol=1e-4, rtol=0
    )


def test_token_embedding_scales_by_sqrt_d_model():
    torch.manual_seed(0)
    emb = TokenEmbedding(10, 16, scale=True)
    ids = torch.tensor([[1, 2]])
    assert_close(emb(ids), emb.lut(ids) * 4.0)
    emb.scale = False
    assert_close(emb(ids), emb.lut(ids))


def test_padded_rows_are_zero_and_get_zero_gradient():
    batch = pad_batch([[1, 2, 3], [4, 5]])
    assert batch.tolist() == [[1, 2, 3], [4, 5, 0]]
    vectors, grad = padding_gradients(batch, vocab_size=10, d_model=3)
    assert_close(vectors[1, 2], torch.zeros(3))
    assert_close(grad[0], torch.zeros(3))
    assert grad[1].abs().sum() > 0


def test_layernorm_output_has_mean_0_and_variance_1_per_token():
    torch.manual_seed(0)
    layer = InputLayer(20, 32, max_len=8).eval()
    stages = layer(torch.randint(1, 20, (2, 8)), torch.zeros(2, 8, dtype=torch.long), stages=True)
    out = stages["LayerNorm"]
    assert_close(out.mean(-1), torch.zeros(2, 8), atol=1e-5, rtol=0)
    assert_close(out.var(-1, unbiased=False), torch.ones(2, 8), atol=1e-3, rtol=0)
    assert_close(stages["dropout"], out)  # eval: dropout is the identity
    assert_close(stages["+ position"], stages["scaled"] + sinusoidal_encoding(8, 32))


def test_dropout_in_training_zeroes_and_rescales():
    torch.manual_seed(0)
    layer = InputLayer(20, 64, max_len=8, dropout=0.5).train()
    stages = layer(torch.randint(1, 20, (4, 8)), stages=True)
    kept = stages["dropout"] != 0
    assert 0.3 < kept.float().mean() < 0.7
    assert_close(stages["dropout"][kept], 2 * stages["LayerNorm"][kept])


def test_too_long_input_is_refused():
    with pytest.raises(ValueError, match="max_len"):
        InputLayer(20, 8, max_len=4)(torch.ones(1, 5, dtype=torch.long))


def test_glove_vocabulary_maps_unknown_words_to_unk():
    wv = load_glove((FIXTURES / "tiny_glove.4d.txt").read_bytes(), name="tiny")
    assert split_words("Are you OK?") == ["are", "you", "ok", "?"]
    itos, vectors, (first,) = glove_vocabulary(wv, ["The king, the QUEEN and a unicorn"])
    assert itos[:2] == ["<pad>", "<unk>"] and first.unknown == [",", "and", "a", "unicorn"]
    assert first.ids == [2, 3, 1, 2, 4, 1, 1, 1]
    assert_close(vectors[3], wv.get_vecs_by_tokens("king")) and vectors[:2].abs().sum() == 0


TINY = load_glove((FIXTURES / "tiny_glove.4d.txt").read_bytes(), name="tiny")
KNOWN = ["the", "man", "woman", "king", "queen", "cat", "dog"]  # in the tiny GloVe fixture
sentence_words = st.lists(st.sampled_from([*KNOWN, "and", "unicorn", "?", ","]), min_size=1, max_size=12)


def first_seen(words: list[str]) -> list[str]:
    """The distinct words in the order they first appear (the rule a vocabulary's ids follow)."""
    return list(dict.fromkeys(words))


@settings(max_examples=60, deadline=None)
@given(first=sentence_words, second=st.one_of(st.none(), sentence_words))
def test_every_distinct_word_gets_one_id_consecutive_in_order_of_first_use(first, second):
    """Issue 41, item 3: with the random table, a word repeated within a sentence got a second id ("the cat and the
    dog": the = 5, id 2 unused); GloVe's table gave the = 2. Both now give each word one id, in order of first use."""
    sentences = [" ".join(first)] + ([] if second is None else [" ".join(second)])
    words = [w for s in sentences for w in split_words(s)]
    _, random_itos, random_toks = build_input_layer(sentences, None, LayerConfig(d_model=4))
    glove_itos, vectors, glove_toks = glove_vocabulary(TINY, sentences)
    for itos, toks, known in ((random_itos, random_toks, None), (glove_itos, glove_toks, TINY.stoi)):
        order = [w for w in first_seen(words) if known is None or w in known]
        assert itos == ["<pad>", "<unk>", *order]  # each distinct word once: ids 2, 3, ... with no gap
        for sentence, tok in zip(sentences, toks, strict=True):
            expected = [itos.index(w) if w in itos else 1 for w in split_words(sentence)]
            assert tok.ids == expected  # a repeated word, in one sentence or across the pair, has one id
        assert set(i for tok in toks for i in tok.ids) - {1} == set(range(2, len(itos)))
    assert vectors.shape == (len(glove_itos), TINY.dim)
    known_only = [w for w in first_seen(words) if w in TINY.stoi]
    assert glove_itos[2:] == known_only == [w for w in random_itos[2:] if w in TINY.stoi]  # the same order rule


def test_the_cat_and_the_dog_has_one_id_per_word():
    _, itos, (tok,) = build_input_layer(["the cat and the dog"], None, LayerConfig(d_model=4))
    assert itos == ["<pad>", "<unk>", "the", "cat", "and", "dog"] and tok.ids == [2, 3, 4, 2, 5]
    assert glove_vocabulary(TINY, ["the cat and the dog"])[2][0].ids == [2, 3, 1, 2, 4]


def test_tied_weights_count_one_table():
    counts = parameter_counts(37_000, 512)
    assert counts["untied"]["total"] == 3 * 37_000 * 512 and counts["tied"]["total"] == 37_000 * 512


def test_norms_follow_sqrt_d():
    out = norms_against_d_model([16, 256])
    assert out["PE row"] == pytest.approx([math.sqrt(8), math.sqrt(128)], rel=1e-4)
    assert out["token"][1] == pytest.approx(16, rel=0.05)  # N(0, 1): |e| ~ sqrt(d)
    xavier = norms_against_d_model([256], "xavier")
    assert xavier["token"][0] < 1 < xavier["token x sqrt(d_model)"][0]


def test_minilm_input_layer_equals_transformers_bert_embeddings():
    """Independent computation from the same weights: transformers' own BertModel embeddings (test-only import)."""
    from transformers import BertModel

    from core.pretrained import MiniLMInput, minilm_weights_path

    layer = MiniLMInput()
    tokens, ids, types = layer.encode("Are you OK?", "I am fine.")
    assert tokens[:5] == ["[CLS]", "are", "you", "ok", "?"] and tokens[-1] == "[SEP]" and types[-1] == 1
    model = BertModel.from_pretrained(str(minilm_weights_path().parent), local_files_only=True).eval()
    with torch.no_grad():
        expected = model.embeddings(input_ids=ids[None], token_type_ids=types[None])[0]
    assert_close(layer.stages(ids, types)["LayerNorm"], expected, atol=1e-5, rtol=1e-5)


def numpy_pe(length: int, d_model: int) -> np.ndarray:
    """The paper's table written out in numpy: sin on even columns, cos on odd ones."""
    pos = np.arange(length)[:, None]
    div = np.exp(np.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    pe = np.zeros((length, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(pos * div), np.cos(pos * div)
    return pe


@pytest.mark.parametrize("position", ["sinusoidal", "learned"])
@pytest.mark.parametrize("scale", [True, False])
def test_input_stages_equal_a_token_by_token_computation(position, scale):
    """Tables drawn as the layer draws them (token, position when learned, segment, for the seed), then each token
    summed and normalised by hand: no InputLayer."""
    cfg = LayerConfig(d_model=8, max_len=4, position=position, scale=scale, seed=3)
    tokens, stages = input_stages(["the cat sat", "the dog"], None, cfg)
    assert [tok.tokens for tok in tokens] == [["the", "cat", "sat"], ["the", "dog"]]
    ids, segments = [2, 3, 4, 2], [0, 0, 0, 1]  # "the cat sat | the": cut at max_len, "dog" left out
    torch.manual_seed(3)
    token = nn.Embedding(6, 8, padding_idx=0).weight.detach().double().numpy()  # <pad> <unk> the cat sat dog
    learned = nn.Embedding(4, 8).weight.detach().double().numpy() if position == "learned" else None
    segment = nn.Embedding(2, 8).weight.detach().double().numpy()
    pe = numpy_pe(4, 8) if learned is None else learned
    expected: dict[str, list[np.ndarray]] = {name: [] for name in stages}
    for m, (i, s) in enumerate(zip(ids, segments, strict=True)):
        scaled = token[i] * (math.sqrt(8) if scale else 1.0)
        summed = scaled + pe[m] + segment[s]
        normed = (summed - summed.mean()) / math.sqrt(summed.var() + 1e-5)
        for name, row in zip(stages, (token[i], scaled, scaled + pe[m], summed, normed, normed), strict=True):
            expected[name].append(row)
    assert list(stages) == ["token", "scaled", "+ position", "+ segment", "LayerNorm", "dropout"]
    for name, values in stages.items():
        assert values.shape == (4, 8)
        assert_close(values.double().numpy(), np.stack(expected[name]), atol=1e-5, rtol=0)


def test_input_stages_read_glove_rows_at_glove_width():
    (tok,), stages = input_stages(["the king and the queen"], TINY, LayerConfig(d_model=64, max_len=32))
    assert tok.unknown == ["and"] and stages["token"].shape == (5, TINY.dim)
    rows = [TINY.get_vecs_by_tokens(w) if w in TINY.stoi else torch.zeros(TINY.dim) for w in tok.tokens]
    assert_close(stages["token"], torch.stack(rows))
    assert_close(stages["scaled"], stages["token"] * 2.0)  # sqrt(4)
    assert_close(stages["+ position"] - stages["scaled"], torch.from_numpy(numpy_pe(5, 4)).float(), atol=1e-6, rtol=0)


def test_input_stages_in_training_drop_and_rescale_and_are_the_same_before_dropout():
    sentences = ["the cat sat on the mat", "and the dog"]
    _, eval_stages = input_stages(sentences, None, LayerConfig(d_model=64, dropout=0.5))
    _, train_stages = input_stages(sentences, None, LayerConfig(d_model=64, dropout=0.5), training=True, device="cpu")
    assert_close(train_stages["LayerNorm"], eval_stages["LayerNorm"])
    assert_close(eval_stages["dropout"], eval_stages["LayerNorm"])
    kept = train_stages["dropout"] != 0
    assert 0.25 < kept.float().mean() < 0.75
    assert_close(train_stages["dropout"][kept], 2 * train_stages["LayerNorm"][kept])


def test_ids_and_segments_run_the_sentences_one_after_another_cut_at_max_len():
    _, _, tokens = build_input_layer(["a b c", "d e"], None, LayerConfig(d_model=4))
    assert ids_and_segments(tokens, 32) == ([2, 3, 4, 5, 6], [0, 0, 0, 1, 1])
    assert ids_and_segments(tokens, 4) == ([2, 3, 4, 5], [0, 0, 0, 1])


def test_random_rows_are_each_ids_own_draw_whatever_the_table_size():
    """Row i is torch.randn from a generator seeded with i (seed 0) alone: the same in any sentence, in any order."""
    rows = random_rows([5, 0x10FFFF, 5], 6)
    for k, i in enumerate([5, 0x10FFFF, 5]):
        assert_close(rows[k], torch.randn(6, generator=torch.Generator().manual_seed(i)))
    assert_close(random_rows([7], 6, seed=1)[0], torch.randn(6, generator=torch.Generator().manual_seed(2**21 + 7)))
    assert not torch.equal(random_rows([7], 6)[0], random_rows([7], 6, seed=1)[0])


@pytest.mark.parametrize("position", ["sinusoidal", "learned"])
def test_table_stages_read_each_ids_row_and_equal_a_token_by_token_computation(position):
    """Byte ids (a vocabulary of 256) through the layer, against each token summed and normalised by hand."""
    ids, segments = list("héé".encode()), [0, 0, 0, 1, 1]  # h, é (2 bytes), é (2 bytes): 5 ids, 3 distinct
    stages = table_stages(ids, segments, 256, LayerConfig(d_model=8, max_len=6, position=position, seed=0))
    token = random_rows(ids, 8).double().numpy()
    torch.manual_seed(0)  # the layer's other tables, drawn as table_stages draws them (a table of 3 rows first)
    nn.Embedding(3, 8)
    learned = nn.Embedding(6, 8).weight.detach().double().numpy() if position == "learned" else numpy_pe(6, 8)
    segment = nn.Embedding(2, 8).weight.detach().double().numpy()
    for m, s in enumerate(segments):
        scaled = token[m] * math.sqrt(8)
        summed = scaled + learned[m] + segment[s]
        normed = (summed - summed.mean()) / math.sqrt(summed.var() + 1e-5)
        for name, row in zip(stages, (token[m], scaled, scaled + learned[m], summed, normed, normed), strict=True):
            assert_close(stages[name][m].double().numpy(), row, atol=1e-5, rtol=0)
    assert_close(stages["token"][1], stages["token"][3])  # é's first byte, twice: one row


def test_table_stages_take_glove_rows_and_refuse_an_id_outside_the_table():
    ids, rows, unknown = glove_rows(TINY, ["The", "zyzzyva", "king"])
    assert unknown == ["zyzzyva"] and ids == [TINY.stoi["the"], len(TINY), TINY.stoi["king"]]
    stages = table_stages(ids, [0, 0, 0], len(TINY) + 1, LayerConfig(max_len=4), rows=rows)
    assert_close(stages["token"], torch.stack([TINY.vectors[ids[0]], torch.zeros(TINY.dim), TINY.vectors[ids[2]]]))
    with pytest.raises(ValueError, match="not rows of a table of 256"):
        table_stages([3, 256], [0, 0], 256)
    with pytest.raises(ValueError, match="max_len"):
        table_stages([1, 2, 3], [0, 0, 0], 256, LayerConfig(max_len=2))
