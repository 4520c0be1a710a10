"""Training the tiny attention model: loss falls, seeds reproduce, and extrapolation behaves as the seeds say."""

import math
from dataclasses import replace

import pytest
import torch

from core.training import TinyAttention, TrainConfig, accuracy_by_position, make_batch, train

TINY = TrainConfig(steps=60, d_model=32, train_len=8, shift=2, batch=32, lr=1e-2)


def test_targets_are_the_token_k_places_back_or_the_reverse():
    x, y = make_batch(TrainConfig(train_len=6, shift=2), 6, 3, torch.Generator().manual_seed(0))
    assert (y[:, :2] == -100).all() and torch.equal(y[:, 2:], x[:, :4])
    x, y = make_batch(TrainConfig(task="reverse", train_len=6), 6, 3, torch.Generator().manual_seed(0))
    assert torch.equal(y, x.flip(1))


def test_loss_falls_on_a_tiny_config():
    result = train(replace(TINY, position="sinusoidal"))
    assert sum(result.losses[-10:]) / 10 < 0.7 * sum(result.losses[:10]) / 10


def test_same_seed_same_result_and_other_seed_differs():
    a, b = train(TINY), train(TINY)
    assert a.losses == b.losses
    torch.testing.assert_close(a.table, b.table)
    assert train(replace(TINY, seed=1)).losses != a.losses


def test_on_step_reports_every_step():
    seen = []
    train(replace(TINY, steps=5), on_step=lambda step, loss: seen.append((step, loss)))
    assert [s for s, _ in seen] == [1, 2, 3, 4, 5]


def test_learned_table_has_no_rows_past_max_len_and_scores_zero_there():
    model = TinyAttention(TINY)
    acc = accuracy_by_position(model, 16)  # twice the trained length: no IndexError
    assert len(acc) == 16 and all(a == 0.0 for a in acc[8:])
    assert all(math.isnan(a) for a in acc[:2])  # the first k positions have no target


def test_sinusoidal_and_none_run_past_the_trained_length():
    for position in ("sinusoidal", "none"):
        model = TinyAttention(replace(TINY, position=position))
        acc = accuracy_by_position(model, 16)
        assert len(acc) == 16 and not any(math.isnan(a) for a in acc[2:])


def test_tables_are_returned_for_the_learned_encoding_only():
    learned = train(replace(TINY, steps=3))
    assert learned.initial_table is not None and learned.table is not None
    assert learned.initial_table.shape == learned.table.shape == (8, 32)
    assert not torch.equal(learned.initial_table, learned.table)
    assert train(replace(TINY, position="sinusoidal", steps=3)).table is None


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"train_len": 1}, "trained length"),
        ({"steps": 0}, "Steps"),
        ({"lr": 0.0}, "learning rate"),
        ({"lr": -1e-3}, "learning rate"),
        ({"lr": float("nan")}, "learning rate"),
        ({"d_model": 1024}, "d_model"),
        ({"train_len": 1000}, "trained length"),
        ({"shift": 16}, "k must be"),
    ],
)
def test_bad_settings_say_what_to_change(kwargs, says):
    with pytest.raises(ValueError, match=says):
        TrainConfig(**kwargs)
