"""One attention head under every position scheme, against numpy transcriptions and transformers' T5 bucketing."""

import math

import numpy as np
import pytest
import torch
from torch.testing import assert_close
from transformers.models.t5.modeling_t5 import T5Attention

from core.attention import (
    DEFAULT_SENTENCE,
    MAX_TOKENS,
    SCHEMES,
    TERMS,
    AttentionConfig,
    attention_view,
    beyond,
    compare,
    make_head,
    score_by_distance,
    scores,
    shift_check,
    t5_bucket,
)
from core.glove import load_glove
from core.pretrained import minilm_position_table as minilm_table
from core.problems import Problem
from core.rotary import alibi_bias
from core.vectors import WordVectors

RANDOM = AttentionConfig(content="random", n_tokens=12, d_model=32, head_dim=8, seed=3)


def numpy_pe(positions: np.ndarray, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The paper's table, written out again: sin on even columns, cos on odd ones."""
    angle = positions[:, None] / base ** (np.arange(0, d_model, 2) / d_model)[None, :]
    pe = np.zeros((len(positions), d_model))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return pe


def numpy_added_logits(head, positions: np.ndarray, pe: np.ndarray) -> np.ndarray:
    x, wq, wk = head.x.numpy(), head.w_q.numpy(), head.w_k.numpy()
    h = x + pe
    return (h @ wq) @ (h @ wk).T / math.sqrt(wq.shape[1])


def test_the_four_terms_sum_to_the_full_logits():
    head = make_head(RANDOM)
    positions = torch.arange(len(head.x))
    full, terms, _ = scores(head, RANDOM, "sinusoidal", head.x, positions, head.x, positions)
    assert list(terms) == list(TERMS)
    assert_close(sum(terms.values()), full, atol=1e-5, rtol=0)
    expected = numpy_added_logits(head, positions.numpy(), numpy_pe(positions.numpy().astype(float), 32))
    assert_close(full.numpy(), expected, atol=1e-5, rtol=0)


def test_the_four_terms_are_masked_with_the_logits():
    cfg = AttentionConfig(content="random", n_tokens=6, d_model=16, head_dim=4, causal=True)
    result = {r.label: r for r in compare(make_head(cfg), cfg)}["sinusoidal"]
    hidden = torch.ones(6, 6, dtype=torch.bool).triu(1)
    for term in result.terms.values():
        assert torch.isinf(term[hidden]).all() and torch.isfinite(term[~hidden]).all()
    assert_close(sum(t[~hidden] for t in result.terms.values()), result.logits[~hidden], atol=1e-5, rtol=0)


def test_the_four_terms_of_a_learned_table_sum_too():
    head = make_head(RANDOM)
    table = torch.randn(40, 32, generator=torch.Generator().manual_seed(1))
    result = {r.label: r for r in compare(head, RANDOM, {"mine": table})}["learned: mine"]
    assert_close(sum(result.terms.values()), result.logits, atol=1e-5, rtol=0)
    pe = table.double().numpy()[: len(head.x)]
    assert_close(result.logits.numpy(), numpy_added_logits(head, None, pe), atol=1e-5, rtol=0)


@pytest.mark.parametrize("scheme", ["none", "rope", "alibi", "t5"])
@pytest.mark.parametrize("causal", [False, True])
def test_relative_schemes_are_shift_invariant(scheme, causal):
    for shift in (1, 7, 1000):
        cfg = AttentionConfig(content="random", n_tokens=12, d_model=32, head_dim=8, shift=shift, causal=causal)
        assert shift_check(make_head(cfg), cfg, scheme).max_diff < 1e-5


def test_added_sinusoidal_is_not_shift_invariant_and_by_how_much():
    head = make_head(RANDOM)
    check = shift_check(head, RANDOM, "sinusoidal")
    positions = np.arange(len(head.x), dtype=float)
    here = numpy_added_logits(head, positions, numpy_pe(positions, 32))
    there = numpy_added_logits(head, positions, numpy_pe(positions + RANDOM.shift, 32))
    assert check.max_diff == pytest.approx(np.abs(there - here).max(), abs=1e-9)
    print(f"added sinusoidal, shift {RANDOM.shift}: logits move by up to {check.max_diff:.3f}")
    assert check.max_diff > 0.1  # logits of order 1 move by a visible amount


def test_rope_logits_equal_rotated_q_and_k():
    head = make_head(RANDOM)
    positions = torch.arange(len(head.x))
    logits, _, _ = scores(head, RANDOM, "rope", head.x, positions, head.x, positions)
    q, k = (head.x @ head.w_q).numpy(), (head.x @ head.w_k).numpy()
    theta = 1.0 / 10000.0 ** (np.arange(0, 8, 2) / 8)
    angle = positions.numpy()[:, None] * theta[None, :]

    def rotate(v):  # rotate-half layout: pair (i, i + d/2)
        a, b = v[:, :4], v[:, 4:]
        return np.concatenate([a * np.cos(angle) - b * np.sin(angle), a * np.sin(angle) + b * np.cos(angle)], 1)

    assert_close(logits.numpy(), rotate(q) @ rotate(k).T / math.sqrt(8), atol=1e-10, rtol=0)


def test_alibi_bias_is_core_rotarys_where_the_mask_lets_keys_through():
    cfg = AttentionConfig(content="random", n_tokens=9, d_model=16, head_dim=4, causal=True, alibi_heads=4)
    result = {r.scheme: r for r in compare(make_head(cfg), cfg)}["alibi"]
    reference = alibi_bias(cfg.alibi_slope, 9).double()
    lower = torch.isfinite(reference)
    assert_close(result.bias[lower], reference[lower])
    assert torch.isinf(result.logits[~lower]).all() and (result.weights[~lower] == 0).all()


def test_softmax_rows_sum_to_one_under_every_scheme():
    for result in compare(make_head(RANDOM), RANDOM, {"t": torch.randn(30, 20)}):
        assert_close(result.weights.sum(1), torch.ones(12, dtype=torch.float64))
    assert [r.scheme for r in compare(make_head(RANDOM), RANDOM)] == [s for s in SCHEMES if s != "learned"]


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), [(32, 128), (8, 20), (64, 1000), (4, 3)])
def test_t5_buckets_equal_transformers(bidirectional, num_buckets, max_distance):
    relative = torch.arange(-3000, 3001)
    ours = t5_bucket(relative, bidirectional, num_buckets, max_distance)
    theirs = T5Attention._relative_position_bucket(relative, bidirectional, num_buckets, max_distance)
    assert torch.equal(ours, theirs)


def test_past_the_trained_length_as_data():
    cfg = AttentionConfig(content="random", head_dim=16, trained_len=16, t5_max_distance=128)
    assert beyond(cfg, "none", 64).kind == "no_positions"
    assert beyond(cfg, "sinusoidal", 64).values == {"new_rows": 48}
    assert beyond(cfg, "learned", 64, table_rows=16).values == {"rows": 16, "missing": 48}
    rope = beyond(cfg, "rope", 64).values
    theta = 1.0 / 10000.0 ** (np.arange(0, 16, 2) / 16)
    assert rope == {"pairs": 8, "unseen_pairs": int((15 * theta < 2 * np.pi).sum())}
    alibi = beyond(cfg, "alibi", 64).values
    assert alibi["at_length"] == pytest.approx(-0.5 * 63) and alibi["at_trained"] == pytest.approx(-0.5 * 15)
    t5 = beyond(cfg, "t5", 1000).values
    buckets = T5Attention._relative_position_bucket(-torch.arange(1000), True, 32, 128)
    assert t5["last_bucket"] == 15 == t5["bucket_at_length"] and t5["bucket_at_trained"] == int(buckets[15])
    assert t5["clips_from"] == int((buckets == 15).nonzero()[0]) <= 128


def test_positions_past_a_learned_table_are_clamped_and_counted():
    cfg = AttentionConfig(content="random", n_tokens=10, d_model=16, head_dim=4, shift=8)
    table = torch.randn(16, 16)
    assert shift_check(make_head(cfg), cfg, "learned", table).clamped == 2  # positions 16 and 17


def test_score_by_distance_slides_for_added_positions_only():
    cfg = AttentionConfig(content="random", n_tokens=4, d_model=32, head_dim=8)
    head = make_head(cfg)
    table = torch.randn(20, 32)
    d1, at_10 = score_by_distance(head, cfg, {"t": table}, query_pos=10, max_distance=5)
    d2, at_14 = score_by_distance(head, cfg, {"t": table}, query_pos=14, max_distance=5)
    assert torch.equal(d1, torch.arange(5, -6, -1)) and torch.equal(d1, d2)
    for label in ("none", "rope", "alibi", "t5"):
        assert_close(at_10[label], at_14[label], atol=1e-10, rtol=0)
    assert (at_10["sinusoidal"] - at_14["sinusoidal"]).abs().max() > 0.01
    assert torch.isnan(at_14["learned: t"][d2 < 14 - 19]).all()  # keys past row 19 have no row
    assert not torch.isnan(at_10["learned: t"]).any()
    causal = AttentionConfig(content="random", n_tokens=4, d_model=32, head_dim=8, causal=True)
    distances, _ = score_by_distance(make_head(causal), causal, query_pos=3, max_distance=5)
    assert torch.equal(distances, torch.tensor([3, 2, 1, 0]))


def test_glove_content_reads_the_sentence_and_zeroes_unknown_words():
    wv = WordVectors(["the", "cat", "sat"], torch.randn(3, 6, generator=torch.Generator().manual_seed(0)), "tiny")
    same = make_head(AttentionConfig(sentence="The cat sat", d_model=6, head_dim=4), wv)
    assert same.tokens == ["the", "cat", "sat"] and same.unknown == []
    assert_close(same.x, wv.vectors.double())  # d_model equal to the vectors' width: the rows as they are
    head = make_head(AttentionConfig(sentence="the zebra sat", d_model=8, head_dim=4), wv)
    assert head.unknown == ["zebra"] and (head.x[1] == 0).all() and head.x.shape == (3, 8)
    random = make_head(AttentionConfig(content="random", d_model=8, head_dim=4))
    assert torch.equal(random.w_q, head.w_q)  # the content changes, the head does not


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"head_dim": 7}, "rope_head_dim"),
        ({"head_dim": 0}, "rope_head_dim"),
        ({"sentence": " ".join(["word"] * (MAX_TOKENS + 1))}, "attn_too_long"),
        ({"sentence": "   "}, "attn_empty"),
        ({"content": "random", "n_tokens": 0}, "attn_tokens"),
        ({"d_model": 0}, "attn_d_model"),
        ({"base": 1.0}, "rope_base"),
        ({"base": float("nan")}, "rope_base"),
        ({"alibi_heads": 4, "alibi_head": 4}, "attn_alibi_head"),
        ({"alibi_heads": 0}, "alibi_heads"),
        ({"t5_buckets": 33}, "attn_t5_buckets"),
        ({"t5_buckets": 32, "t5_max_distance": 8}, "attn_t5_max_distance"),
        ({"shift": 0}, "attn_shift"),
        ({"trained_len": 0}, "attn_trained_len"),
        ({"seed": -1}, "attn_seed"),
    ],
)
def test_bad_settings_say_what_to_change(kwargs, key):
    with pytest.raises(Problem) as raised:
        AttentionConfig(**kwargs)
    assert raised.value.key == key


def test_the_longest_sentence_is_accepted():
    assert AttentionConfig(sentence=" ".join(["word"] * MAX_TOKENS))


def test_the_view_on_real_glove_and_minilms_table():
    """The page's one call: the bundled GloVe sentence, a trained-size table and MiniLM's 512 x 384 table."""
    wv = load_glove()
    cfg = AttentionConfig(shift=600)  # past MiniLM's 512 rows, so its check reads clamped rows
    tables = {"trained": torch.randn(16, 64, generator=torch.Generator().manual_seed(0)), "MiniLM": minilm_table()}
    view = attention_view(cfg, wv, tables)
    assert view.head.tokens == DEFAULT_SENTENCE.split() and view.head.unknown == []
    labels = ["none", "sinusoidal", "learned: trained", "learned: MiniLM", "rope", "alibi", "t5"]
    assert list(view.matrices()) == labels and list(view.matrices("weights")) == labels
    assert all(m.shape == (10, 10) for m in view.matrices().values())
    assert_close(sum(view.terms("learned: MiniLM").values()), view.matrices()["learned: MiniLM"], atol=1e-5, rtol=0)
    minilm = view.result("learned: MiniLM")
    assert minilm.shift.clamped == 10 and minilm.beyond.values == {"rows": 512, "missing": 512}  # at 2 x 512
    assert view.result("rope").beyond.length == 2 * cfg.trained_len
    moved = {r.label: r.shift.max_diff for r in view.results}
    assert {label for label, diff in moved.items() if diff > 1e-6} == {
        "sinusoidal",
        "learned: trained",
        "learned: MiniLM",
    }
