"""What the "Inside a real Transformer" page measures, against the same quantities computed another way."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon
from torch.testing import assert_close

from core import minilm, probes
from core.problems import Problem


@pytest.fixture(scope="module")
def model() -> minilm.MiniLM:
    return minilm.load_minilm()


def test_the_shipped_sentences_are_all_read_and_cover_every_offset(model):
    sentences = probes.read_sentences()
    assert len(sentences) == 40 and not any(s.startswith("#") for s in sentences)
    lengths = [len(minilm.encode(model, s)) for s in sentences]
    assert min(lengths) - 2 > probes.MAX_OFFSET  # pieces i and i + 8 in every sentence, [CLS] and [SEP] aside


def test_the_offset_profile_is_a_mean_over_word_piece_pairs_computed_by_loops(model):
    runs = probes.run_sentences(model, ["The cat sat on the mat.", "I sat on the river bank.", "😀 ☃"])
    assert len(runs) == 2  # the sentence of [UNK]s alone is refused and left out
    profile = probes.offset_profile(runs, max_offset=3)
    expected = np.zeros((6, 12, 7))
    count = np.zeros(7)
    for encoded, run in runs:
        attention = run.attention.double().numpy()
        n = len(encoded)
        for i in range(n):
            for d in range(-3, 4):
                j = i + d
                if 0 <= j < n and encoded.words[i] is not None and encoded.words[j] is not None:
                    expected[..., d + 3] += attention[..., i, j]
                    count[d + 3] += 1
    assert_close(profile, torch.from_numpy(expected / count))


@given(n=st.integers(1, 2 * probes.MAX_OFFSET + 2), seed=st.integers(0, 2**16))
@settings(max_examples=20)
def test_the_offset_profile_of_a_sentence_shorter_than_the_offsets_has_zeros_past_its_end(model, n, seed):
    # issue 40: a sentence of five word pieces or fewer ("I love you") raised in torch.arange
    generator = torch.Generator().manual_seed(seed)
    attention = torch.rand(6, 12, n, n, generator=generator).softmax(-1)
    words = tuple(None if i in (0, n - 1) else i for i in range(n))
    encoded = minilm.Encoded(
        ("x",) * n, torch.zeros(n, dtype=torch.long), torch.zeros(n, dtype=torch.long), words, words
    )
    profile = probes.offset_profile([(encoded, minilm.Forward(torch.zeros(7, n, 384), attention))])
    expected, count = np.zeros((6, 12, 2 * probes.MAX_OFFSET + 1)), np.zeros(2 * probes.MAX_OFFSET + 1)
    for i in range(n):
        for j in range(n):
            d = j - i
            if abs(d) <= probes.MAX_OFFSET and words[i] is not None and words[j] is not None:
                expected[..., d + probes.MAX_OFFSET] += attention[..., i, j].double().numpy()
                count[d + probes.MAX_OFFSET] += 1
    assert_close(profile, torch.from_numpy(expected / np.maximum(count, 1)))


def test_your_sentence_of_three_pieces_has_a_profile(model):
    runs = probes.run_sentences(model, ["I love you"])
    profile = probes.offset_profile(runs)
    assert profile.shape == (6, 12, 2 * probes.MAX_OFFSET + 1) and torch.isfinite(profile).all()
    assert (profile[..., probes.MAX_OFFSET + 3 :] == 0).all()  # no piece three or more places away from another


def test_the_rule_names_the_heads_whose_largest_weight_is_the_next_or_previous_token():
    profile = torch.full((6, 12, 17), 0.05, dtype=torch.float64)
    profile[0, 2, 7] = 0.9  # offset -1: previous-token
    profile[1, 8, 9] = 0.3  # offset +1: next-token
    profile[2, 0, 7] = 0.2  # below the threshold
    profile[3, 1, 7], profile[3, 1, 8] = 0.3, 0.4  # -1 is high but 0 is higher
    named = probes.positional_heads(profile)
    assert named == [probes.NamedHead(0, 2, -1, 0.9), probes.NamedHead(1, 8, 1, 0.3)]


def test_minilm_has_a_previous_token_head_and_a_next_token_head_on_the_shipped_sentences(model):
    named = probes.positional_heads(probes.offset_profile(probes.run_sentences(model, probes.read_sentences())))
    assert {h.offset for h in named} == {-1, 1}
    assert named[0].weight > 0.9 and all(h.weight >= probes.NAMED_AT for h in named)


def test_jensen_shannon_is_scipys_squared_distance_in_bits():
    rng = np.random.default_rng(0)
    p, q = rng.dirichlet(np.ones(9), size=4), rng.dirichlet(np.ones(9), size=4)
    q[0] = p[0]
    p[1, :3] = 0
    p[1] /= p[1].sum()
    got = probes.js_divergence(torch.from_numpy(p), torch.from_numpy(q)).numpy()
    assert np.allclose(got, jensenshannon(p, q, base=2, axis=1) ** 2, atol=1e-12) and got[0] == 0
    one_hot = torch.eye(3, dtype=torch.float64)
    assert probes.js_divergence(one_hot[0], one_hot[1]) == pytest.approx(1.0)  # nothing in common: 1 bit


def test_taking_the_positions_away_compares_each_variant_with_the_learned_run(model):
    encoded = minilm.encode(model, "The cat sat on the mat because it was tired.", "It slept.")
    taken = probes.take_positions_away(model, encoded, seed=2)
    assert set(taken.moved) == set(taken.cosine) == set(probes.VARIANTS)
    assert all(m.shape == (6, 12) and 0 <= m.min() and m.max() <= 1 for m in taken.moved.values())
    assert max(taken.equivariance) < 1e-6 and taken.dtype == torch.float64
    # the shuffled run, put back in the sentence's order, against the learned run, one head by hand
    back = torch.argsort(taken.order)
    shuffled = taken.runs["shuffled"].attention[2, 5].double()
    aligned = shuffled[back][:, back]
    expected = probes.js_divergence(aligned, taken.runs["learned"].attention[2, 5].double()).mean()
    assert taken.moved["shuffled"][2, 5].item() == pytest.approx(expected.item(), abs=1e-6)
    reference = minilm.sentence_embedding(taken.runs["learned"])
    for variant in probes.VARIANTS:
        other = minilm.sentence_embedding(taken.runs[variant])
        assert taken.cosine[variant][-1].item() == pytest.approx(float(other @ reference), abs=1e-6)
        assert taken.cosine[variant].shape == (7,)


def test_a_word_is_found_whole_and_its_vectors_are_its_pieces_mean(model):
    sentences = ["He sat on the river bank.", "The banks and banking.", "She went to the bank, then the bank again."]
    uses = probes.word_uses(model, "bank", sentences)
    assert uses.pieces == ("bank",) and uses.missing == [1]  # "banks" and "banking" are other words
    assert [s for s, _ in uses.uses] == [0, 2, 2] and uses.vectors.shape == (3, len(probes.STAGES), 384)
    cosines = probes.use_cosines(uses.vectors)
    assert set(cosines) == {(0, 1), (0, 2), (1, 2)}
    assert all(c[0].item() == pytest.approx(1.0) for c in cosines.values())  # the static row is the same row
    encoded = minilm.encode(model, sentences[0])
    run = minilm.forward(model, encoded.ids, encoded.type_ids)
    assert_close(uses.vectors[0, 1:], run.hidden[:, encoded.tokens.index("bank")])

    pieces = probes.word_pieces(model, "embeddings")
    assert pieces == ("em", "##bed", "##ding", "##s")
    uses = probes.word_uses(model, "embeddings", ["Word embeddings are vectors.", "Embedding is not embeddings."])
    encoded = minilm.encode(model, "Word embeddings are vectors.")
    run = minilm.forward(model, encoded.ids, encoded.type_ids)
    assert_close(uses.vectors[0, -1], run.hidden[-1, 2:6].mean(0))  # the mean of its four pieces
    assert len(uses.uses) == 2 and uses.missing == []


def test_a_word_that_cannot_be_followed_is_refused(model):
    for word, key in (("  ", "tf_word_empty"), ("river bank", "tf_word_one"), ("😀", "tf_word_unknown")):
        with pytest.raises(Problem) as err:
            probes.word_pieces(model, word)
        assert err.value.key == key, word
    uses = probes.word_uses(model, "bank", ["", "the bank"])
    assert [s for s, _ in uses.refused] == [0] and len(uses.uses) == 1


def test_the_static_neighbours_are_the_nearest_rows_by_cosine_without_special_tokens(model):
    found = probes.token_neighbours(model, ("bank",), k=5)
    table = model.word.double().numpy()
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    vocab = model.tokenizer.get_vocab()
    scores = unit @ unit[vocab["bank"]]
    itos = {i: t for t, i in vocab.items()}
    ranked = [itos[i] for i in np.argsort(-scores) if itos[i] != "bank" and not itos[i].startswith("[")][:5]
    assert [w for w, _ in found] == ranked
    assert found[0][1] == pytest.approx(scores[vocab[ranked[0]]], abs=1e-5)


def test_a_sentence_of_one_word_many_times_compares_the_first_uses_and_counts_them_all(model):
    # issue 40: "bank " 510 times was 510 uses, 130,000 pairs to compare and plot, and a thread held for minutes
    found = probes.word_uses(model, "bank", [" ".join(["bank"] * 510), "The bank of the river."])
    assert found.found == 511 and len(found.uses) == probes.MAX_FOUND == found.vectors.size(0)
    assert found.uses == [(0, i) for i in range(1, probes.MAX_FOUND + 1)]  # the first ones, in order
    assert len(probes.use_cosines(found.vectors)) == probes.MAX_FOUND * (probes.MAX_FOUND - 1) // 2
