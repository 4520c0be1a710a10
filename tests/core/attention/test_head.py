"""core.attention.head: the settings refuse what no head takes, and the content read from GloVe or drawn."""

import pytest
import torch
from torch.testing import assert_close

from core.attention.head import MAX_TOKENS, AttentionConfig, make_head
from core.problems import Problem
from core.vectors import WordVectors


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
