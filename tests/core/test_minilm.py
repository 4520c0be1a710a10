"""MiniLM's forward pass written here against transformers' own BertModel, loaded from the same files."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn import functional as F
from torch.testing import assert_close

from core import minilm
from core.pretrained import minilm_weights_path
from core.problems import Problem

SENTENCES = [
    ("The cat sat on the mat because it was tired.", None),
    ("I sat on the river bank and watched the boats.", "She opened a bank account."),  # a pair: segments A and B
    ("Embeddings are unbelievably useful.", None),  # words split into pieces: em ##bed ##ding ##s
    ("Über café naïve résumé, 银行 and 😀!", None),  # accents stripped, a Chinese character, an [UNK]
    ("a", None),  # the shortest: [CLS] a [SEP]
]


@pytest.fixture(scope="module")
def model() -> minilm.MiniLM:
    return minilm.load_minilm()


@pytest.fixture(scope="module")
def bert():
    """transformers' BertModel in float64 (test-only import), once for the module: eager attention returns the
    weights."""
    from transformers import BertModel

    path = str(minilm_weights_path().parent)
    return BertModel.from_pretrained(path, local_files_only=True, attn_implementation="eager").double().eval()


def bert_outputs(bert, encoded: minilm.Encoded):
    with torch.no_grad():
        return bert(
            input_ids=encoded.ids[None],
            token_type_ids=encoded.type_ids[None],
            output_hidden_states=True,
            output_attentions=True,
        )


@pytest.mark.parametrize("sentence, pair", SENTENCES)
def test_every_layer_and_every_attention_map_equal_bertmodels(model, bert, sentence, pair):
    encoded = minilm.encode(model, sentence, pair)
    ours = minilm.forward(model, encoded.ids, encoded.type_ids, dtype=torch.float64)
    theirs = bert_outputs(bert, encoded)
    assert ours.hidden.shape == (7, len(encoded), 384) and ours.attention.shape == (6, 12, len(encoded), len(encoded))
    assert_close(ours.hidden, torch.stack(theirs.hidden_states)[:, 0], atol=1e-5, rtol=0)
    assert_close(ours.attention, torch.stack(theirs.attentions)[:, 0], atol=1e-5, rtol=0)
    if pair:
        assert set(encoded.type_ids.tolist()) == {0, 1}  # the second segment's vectors went through S[1]


def test_float32_agrees_with_float64(model):
    encoded = minilm.encode(model, *SENTENCES[1])
    single = minilm.forward(model, encoded.ids, encoded.type_ids)
    double = minilm.forward(model, encoded.ids, encoded.type_ids, dtype=torch.float64)
    assert single.hidden.dtype == torch.float32
    assert_close(single.hidden.double(), double.hidden, atol=1e-4, rtol=0)


def test_the_sentence_embedding_is_sentence_transformers_mean_pooling_of_bertmodels_output(model, bert):
    """sentence-transformers' Pooling (mean over the attention mask) then Normalize, on a padded batch of BertModel's
    outputs, written out here as its code does it."""
    encoded = [minilm.encode(model, s, p) for s, p in SENTENCES[:3]]
    longest = max(len(e) for e in encoded)
    ids = torch.stack([F.pad(e.ids, (0, longest - len(e))) for e in encoded])
    types = torch.stack([F.pad(e.type_ids, (0, longest - len(e))) for e in encoded])
    mask = (torch.arange(longest)[None] < torch.tensor([len(e) for e in encoded])[:, None]).long()
    with torch.no_grad():
        tokens = bert(input_ids=ids, token_type_ids=types, attention_mask=mask).last_hidden_state
    expanded = mask.unsqueeze(-1).expand(tokens.size()).to(tokens.dtype)
    pooled = torch.sum(tokens * expanded, 1) / torch.clamp(expanded.sum(1), min=1e-9)
    expected = F.normalize(pooled, p=2, dim=1)
    for e, want in zip(encoded, expected, strict=True):
        got = minilm.sentence_embedding(minilm.forward(model, e.ids, e.type_ids, dtype=torch.float64))
        assert_close(got, want, atol=1e-6, rtol=0)
    assert_close(minilm.mean_pooling(tokens, mask), pooled)


def test_without_positions_shuffling_the_tokens_shuffles_every_output_alike(model):
    encoded = minilm.encode(model, *SENTENCES[1])
    order = minilm.shuffled_order(encoded, seed=3)
    assert order.tolist() != list(range(len(encoded)))
    plain = minilm.forward(model, encoded.ids, encoded.type_ids, positions="none", dtype=torch.float64)
    read = minilm.forward(model, encoded.ids, encoded.type_ids, positions="none", order=order, dtype=torch.float64)
    assert (read.hidden - plain.hidden[:, order]).abs().max() < 1e-6
    assert (read.attention - plain.attention[:, :, order][:, :, :, order]).abs().max() < 1e-6
    learned = minilm.forward(model, encoded.ids, encoded.type_ids, order=order, dtype=torch.float64)
    with_positions = minilm.forward(model, encoded.ids, encoded.type_ids, dtype=torch.float64)
    assert (learned.hidden - with_positions.hidden[:, order]).abs().max() > 0.1  # with positions: order matters


def test_the_position_options_change_only_the_input_layers_position_term(model):
    encoded = minilm.encode(model, "the cat sat")
    n = len(encoded)
    x = model.word[encoded.ids] + model.token_type[encoded.type_ids]
    norm = lambda v: F.layer_norm(v, (384,), model.ln_weight, model.ln_bias, 1e-12)  # noqa: E731
    assert_close(minilm.embed(model, encoded.ids, encoded.type_ids, "none"), norm(x))
    assert_close(minilm.embed(model, encoded.ids, encoded.type_ids, "learned"), norm(x + model.position[:n]))
    sinusoidal = minilm.embed(model, encoded.ids, encoded.type_ids, "sinusoidal")
    assert_close(sinusoidal, norm(x + model.sinusoidal[:n]))
    assert_close(model.sinusoidal[1, :2], torch.tensor([torch.sin(torch.tensor(1.0)), torch.cos(torch.tensor(1.0))]))
    with pytest.raises(ValueError, match="positions must be one of"):
        minilm.embed(model, encoded.ids, encoded.type_ids, "rope")


@pytest.mark.parametrize("words", [1, 253, 254, 255, 600])
def test_a_cut_keeps_what_the_tokenizers_own_truncation_keeps(model, words):
    """encode(cut=256) is sentence-transformers' truncation: the tokenizer's own, max_length 256 with [CLS], [SEP]."""
    from tokenizers import Tokenizer

    truncating = Tokenizer.from_file(str(minilm_weights_path().with_name("tokenizer.json")))
    truncating.no_padding()  # tokenizer.json pads to 128
    truncating.enable_truncation(256)
    text = "emb " * words  # two pieces a word: em ##b
    expected = truncating.encode(text)
    encoded = minilm.encode(model, text, cut=256)
    assert list(encoded.tokens) == expected.tokens and encoded.ids.tolist() == expected.ids
    assert list(encoded.words) == expected.word_ids and encoded.type_ids.tolist() == expected.type_ids
    with pytest.raises(ValueError, match="one sentence"):
        minilm.encode(model, text, "a pair", cut=256)


def test_what_minilm_cannot_read_is_refused_with_what_to_change(model):
    with pytest.raises(Problem, match="no words") as err:
        minilm.encode(model, "   ")
    assert err.value.key == "tf_empty"
    assert minilm.encode(model, "the " * 510).tokens[-1] == "[SEP]"  # 510 words + [CLS] + [SEP]: 512 positions
    with pytest.raises(Problem, match="513 WordPiece tokens") as err:
        minilm.encode(model, "the " * 511)
    assert err.value.key == "tf_too_long"
    with pytest.raises(Problem) as err:
        minilm.encode(model, "😀 ☃ 🚀")
    assert err.value.key == "tf_unknown"
    with pytest.raises(Problem) as err:
        minilm.encode(model, "", "only the second")
    assert err.value.key == "tf_empty"


@settings(max_examples=40, deadline=None)
@given(text=st.text(max_size=60), pair=st.one_of(st.none(), st.text(max_size=30)), seed=st.integers(0, 2**31 - 1))
def test_any_text_is_read_or_refused_and_a_shuffle_keeps_words_and_special_tokens(model, text, pair, seed):
    try:
        encoded = minilm.encode(model, text, pair)
    except Problem as err:
        assert err.key in ("tf_empty", "tf_unknown")
        return
    order = minilm.shuffled_order(encoded, seed).tolist()
    assert sorted(order) == list(range(len(encoded)))
    for i, j in enumerate(order):
        if encoded.words[i] is None or encoded.words[j] is None:
            assert i == j  # [CLS] and [SEP] stay
        else:
            assert encoded.segments[i] == encoded.segments[j]  # a word stays in its segment
        if encoded.tokens[j].startswith("##"):
            assert i > 0 and order[i - 1] == j - 1  # a piece follows the piece before it


@pytest.mark.parametrize("positions", minilm.POSITIONS)
def test_sentences_a_batch_at_a_time_are_each_sentences_own_vector(model, positions):
    """minilm.sentence_embeddings (the warm-up's shipped collection, issue 50) pads a batch and masks the padding:
    each sentence's vector is the one it has alone, whatever the others' lengths, in the order given."""
    texts = ["a", "The cat sat on the mat.", "你好，世界", "word " * 40, "Are you OK ?", "a b c d e f g"]
    encoded = [minilm.encode(model, text) for text in texts]
    alone = torch.stack(
        [minilm.sentence_embedding(minilm.forward(model, e.ids, e.type_ids, positions=positions)) for e in encoded]
    )
    done = []
    batched = minilm.sentence_embeddings(
        model, encoded, positions=positions, batch_size=4, on_batch=lambda *a: done.append(a)
    )
    torch.testing.assert_close(batched, alone, atol=1e-6, rtol=0)
    assert done == [(4, 6), (6, 6)]
