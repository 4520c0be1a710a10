"""ui.cache, the one cache idiom: a result is keyed by everything it is computed from, so that no caller can leave an
input out; equal inputs hit the cache; Streamlit's "Clear cache" empties every cache, figure texts included."""

from __future__ import annotations

import copy
import dataclasses
import functools
from typing import Any

import numpy as np
import plotly.graph_objects as go
import pytest
import streamlit as st
import torch
from hypothesis import given
from hypothesis import strategies as st_
from streamlit.testing.v1 import AppTest

from core.attention.head import AttentionConfig
from core.cloud import CloudConfig
from core.positional import PEConfig
from core.rotary import RopeConfig
from core.training import TrainConfig
from core.vectors import WordVectors
from ui import live_chart
from ui.cache import cached
from ui.cache_keys import identity

# The settings dataclasses the pages' cached views and figures are keyed by (TrainConfig: the training jobs').
SETTINGS = (PEConfig, RopeConfig, AttentionConfig, CloudConfig, TrainConfig)
RUNS: list[object] = []  # what each cached function below was called with, each time its body ran


@cached(max_entries=512)
def shared(cfg, *rest):
    RUNS.append((cfg, *rest))
    return (cfg, *rest)


@cached(max_entries=512, copy=True)
def copied(cfg, *rest):
    RUNS.append((cfg, *rest))
    return (cfg, *rest)


def other_value(value, data):
    """A value of the same type as `value` that differs from it, drawn by Hypothesis."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + data.draw(st_.integers(-(2**40), 2**40).filter(bool), label="shift")
    if isinstance(value, float):
        return data.draw(st_.floats(allow_nan=False).filter(lambda x: x != value), label="float")
    if isinstance(value, str):
        return data.draw(st_.text(max_size=30).filter(lambda x: x != value), label="text")
    raise AssertionError(f"a settings field of type {type(value).__name__}: teach this test to change it")


def changed(cfg, name: str, value):
    """cfg with one field set to `value`, without its checks: the key must not depend on a value being valid."""
    out = copy.copy(cfg)
    object.__setattr__(out, name, value)
    return out


@pytest.mark.parametrize("cached_fn", [shared, copied], ids=["shared", "copied"])
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda c: c.__name__)
@given(data=st_.data())
def test_changing_any_one_field_runs_the_body_again_and_equal_settings_hit_the_cache(settings, cached_fn, data):
    base = settings()
    field = data.draw(st_.sampled_from([f.name for f in dataclasses.fields(base)]), label="field")
    other = changed(base, field, other_value(getattr(base, field), data))
    RUNS.clear()
    cached_fn(base, "figure")
    cached_fn(copy.copy(base), "figure")  # equal settings, another object: a hit
    assert RUNS in ([], [(base, "figure")])  # [] when an earlier example already asked for it
    RUNS.clear()
    assert cached_fn(other, "figure")[0] == other or field in _fields_not_compared(settings)
    assert len(RUNS) <= 1
    assert identity((other, "figure")) != identity((base, "figure"))
    cached_fn(changed(base, field, getattr(other, field)), "figure")  # equal to `other`: a hit
    assert len(RUNS) <= 1


def _fields_not_compared(settings) -> set[str]:
    return {f.name for f in dataclasses.fields(settings) if not f.compare}


@given(st_.sampled_from(SETTINGS), st_.data())
def test_a_figure_is_built_again_for_a_setting_changed_and_not_for_equal_settings(settings, data):
    """live_chart's figure text (every chart the pages draw) for functools.partial(builder, settings)."""

    def settings_figure(cfg) -> go.Figure:
        BUILT.append(cfg)
        return go.Figure(layout=dict(title=repr(cfg)))

    base = settings()
    field = data.draw(st_.sampled_from([f.name for f in dataclasses.fields(base)]))
    other = changed(base, field, other_value(getattr(base, field), data))
    first = live_chart.figure_text(functools.partial(settings_figure, base))
    assert live_chart.figure_text(functools.partial(settings_figure, copy.copy(base))) == first
    second = live_chart.figure_text(functools.partial(settings_figure, other))
    assert second != first and BUILT[-1] is other


BUILT: list[object] = []  # the settings each figure below was built for


def test_the_function_its_code_and_each_argument_are_in_the_key():
    def a(x):
        return x

    def b(x):
        return x

    assert identity(functools.partial(a, 1)) != identity(functools.partial(b, 1))
    assert identity(functools.partial(a, 1)) != identity(functools.partial(a, 2))
    assert identity(functools.partial(a, x=1)) != identity(functools.partial(a, 1))
    assert identity([1, 2]) != identity((1, 2)) and identity(1) != identity(1.0) and identity("1") != identity(1)
    assert identity(["a\x00b", "c"] * 10) != identity(["a", "b\x00c"] * 10)  # long lists of words, read at once
    assert identity(list(range(100))) != identity(list(range(1, 101)))


def test_arrays_and_tensors_are_known_by_their_content_and_a_tensor_changed_in_place_is_another_key():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert identity(x) == identity(x.copy()) != identity(x.T) != identity(x.astype(np.float64))
    y = x.copy()
    y[2, 3] = -1
    assert identity(y) != identity(x)
    t = torch.arange(6.0)
    before = identity({"table": t})
    assert identity({"table": t}) == before == identity({"table": t.clone()})
    t[0] = 5.0  # its version counter moves: read again
    assert identity({"table": t}) != before


def test_word_vectors_are_known_by_their_own_token_not_by_their_name():
    one = WordVectors(["a", "b"], torch.zeros(2, 3), "upload.txt")
    two = WordVectors(["a", "b"], torch.ones(2, 3), "upload.txt")  # another learner's file of the same name
    assert identity(one) == identity(one) != identity(two)
    RUNS.clear()
    shared(one, "nearest")
    shared(two, "nearest")
    shared(one, "nearest")
    assert RUNS == [(one, "nearest"), (two, "nearest")]


def test_a_builder_closing_over_a_value_or_reading_a_page_variable_is_refused():
    shown = 3

    def closing() -> int:
        return shown

    with pytest.raises(TypeError, match="closes over shown"):
        identity(closing)
    with pytest.raises(TypeError, match="closes over shown"):
        cached()(closing)
    page = {"functools": functools}
    exec("cfg = 5\nLIMIT = 2\ndef chart():\n    return cfg + LIMIT\n", page)  # noqa: S102 (as a page script)
    with pytest.raises(TypeError, match="reads the variable cfg"):
        identity(page["chart"])
    with pytest.raises(TypeError, match="no cache identity"):
        identity(object())


def test_a_function_a_page_defines_on_every_run_is_decorated_once_and_caches_by_its_arguments():
    code = compile("def shifted(x):\n    RUNS.append(x)\n    return x + 1\n", __file__ + ".page", "exec")

    def run_page():
        page: dict[str, Any] = {"RUNS": RUNS}  # the script's globals
        exec(code, page)  # noqa: S102 (a fixed text, as Streamlit runs a page script)
        return cached(max_entries=4)(page["shifted"])

    RUNS.clear()
    assert run_page()(2) == 3 and run_page()(2) == 3 and run_page()(5) == 6
    assert RUNS == [2, 5]


def test_max_entries_bounds_a_cache():
    @cached(max_entries=2)
    def square(x: int) -> int:
        RUNS.append(x)
        return x * x

    RUNS.clear()
    for x in (1, 2, 3, 1):
        square(x)
    assert RUNS == [1, 2, 3, 1]  # 1 was pushed out by 3


def titled(title: str) -> go.Figure:
    """A figure builder that notes each build."""
    BUILT.append(title)
    return go.Figure(layout=dict(title=title))


def clear_cache_page():
    import functools

    from tests.app.test_caching import titled
    from ui import live_chart

    live_chart.cached_chart("chart", functools.partial(titled, "kept until the cache is cleared"))


def test_clear_cache_empties_the_figure_texts():
    """What Streamlit's "Clear cache" calls (AppSession._handle_clear_cache_request) empties the figures' texts."""
    at = AppTest.from_function(clear_cache_page, default_timeout=60).run()
    BUILT.clear()
    at.run()
    assert BUILT == [] and not at.exception  # kept
    st.cache_data.clear()
    st.cache_resource.clear()
    at.run()
    assert BUILT == ["kept until the cache is cleared"]
