"""core.attention.view: every scheme on one head side by side, the score against distance, the page's one call."""

import pytest
import torch
from torch.testing import assert_close

from core.attention.head import DEFAULT_SENTENCE, AttentionConfig, make_head
from core.attention.scores import SCHEMES, TERMS
from core.attention.view import attention_view, compare, score_by_distance
from core.glove import load_glove
from core.pretrained import minilm_position_table as minilm_table
from core.rotary import alibi_bias
from tests.core.attention.numpy_reference import RANDOM, numpy_added_logits


def test_the_four_terms_are_masked_with_the_logits():
    cfg = AttentionConfig(content="random", n_tokens=6, d_model=16, head_dim=4, causal=True)
    result = {r.label: r for r in compare(make_head(cfg), cfg)}["sinusoidal"]
    hidden = torch.ones(6, 6, dtype=torch.bool).triu(1)
    assert result.terms is not None  # an added table's terms
    for term in result.terms.values():
        assert torch.isinf(term[hidden]).all() and torch.isfinite(term[~hidden]).all()
    assert_close(
        torch.stack([t[~hidden] for t in result.terms.values()]).sum(0), result.logits[~hidden], atol=1e-5, rtol=0
    )


def test_the_four_terms_of_a_learned_table_sum_too():
    head = make_head(RANDOM)
    table = torch.randn(40, 32, generator=torch.Generator().manual_seed(1))
    result = {r.label: r for r in compare(head, RANDOM, {"mine": table})}["learned: mine"]
    assert result.terms is not None
    assert_close(torch.stack(list(result.terms.values())).sum(0), result.logits, atol=1e-5, rtol=0)
    pe = table.double().numpy()[: len(head.x)]
    assert_close(result.logits.numpy(), numpy_added_logits(head, pe), atol=1e-5, rtol=0)


def test_alibi_bias_is_core_rotarys_where_the_mask_lets_keys_through():
    cfg = AttentionConfig(content="random", n_tokens=9, d_model=16, head_dim=4, causal=True, alibi_heads=4)
    result = {r.scheme: r for r in compare(make_head(cfg), cfg)}["alibi"]
    reference = alibi_bias(cfg.alibi_slope, 9).double()
    lower = torch.isfinite(reference)
    assert result.bias is not None  # ALiBi's
    assert_close(result.bias[lower], reference[lower])
    assert torch.isinf(result.logits[~lower]).all() and (result.weights[~lower] == 0).all()


def test_softmax_rows_sum_to_one_under_every_scheme():
    for result in compare(make_head(RANDOM), RANDOM, {"t": torch.randn(30, 20)}):
        assert_close(result.weights.sum(1), torch.ones(12, dtype=torch.float64))
    assert [r.scheme for r in compare(make_head(RANDOM), RANDOM)] == [s for s in SCHEMES if s != "learned"]


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


def test_the_four_terms_of_a_scheme_that_adds_nothing_are_refused_by_name():
    """Found by mypy: terms("rope") failed with AttributeError on None instead of saying which schemes have terms."""
    view = attention_view(RANDOM)
    with pytest.raises(ValueError, match="'rope' has none"):
        view.terms("rope")
    assert list(view.terms("sinusoidal")) == list(TERMS)
