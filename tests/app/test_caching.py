"""ui.cache, the one cache idiom: a result is keyed by everything it is computed from (the language a function reads
included), so that no caller can leave an input out; equal inputs hit the cache; every config of core is a key,
found by walking core; Streamlit's "Clear cache" empties every cache, figure texts included; every other cache of
the tree is named with why it is not ui.cache.cached."""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import importlib
import pkgutil
import threading
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
import pytest
import streamlit as st
import torch
from hypothesis import given, settings
from hypothesis import strategies as st_
from streamlit.testing.v1 import AppTest

import core
from core.vectors import WordVectors
from ui import live_chart
from ui.cache import cached
from ui.cache_keys import identity
from ui.i18n import LANG_KEY, t

ROOT = Path(__file__).resolve().parents[2]


def core_configs() -> tuple[type, ...]:
    """Every settings dataclass of core, found by walking its modules: frozen, and a default for every field (what
    a page builds from its widgets and caches its views and figures by)."""
    found = set()
    for info in pkgutil.walk_packages(core.__path__, "core."):
        module = importlib.import_module(info.name)
        for kind in vars(module).values():
            if (
                isinstance(kind, type)
                and dataclasses.is_dataclass(kind)
                and kind.__module__ == module.__name__
                and kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
                and all(_default(f) is not dataclasses.MISSING for f in dataclasses.fields(kind))
            ):
                found.add(kind)
    return tuple(sorted(found, key=lambda k: f"{k.__module__}.{k.__qualname__}"))


def _default(field: dataclasses.Field) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


SETTINGS = core_configs()
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


def test_every_config_of_core_is_found_by_walking_it():
    names = {kind.__name__ for kind in SETTINGS}
    assert {"PEConfig", "RopeConfig", "AttentionConfig", "CloudConfig", "TrainConfig"} <= names
    assert {"LayerConfig", "ProbeConfig"} <= names  # the input layer's and the real Transformer's, left out before


VALUES = {
    bool: st_.booleans(),
    int: st_.integers(-(2**62), 2**62),
    float: st_.floats(allow_nan=False),
    str: st_.text(max_size=40),  # every code point, surrogates and unassigned ones included
}


def drawn(kind: type, data) -> Any:
    """A `kind` with every field drawn by Hypothesis from its default's type, without its checks: a key must not
    depend on a value being valid."""
    out: Any = object.__new__(kind)
    for f in dataclasses.fields(kind):
        strategy = VALUES.get(type(_default(f)))
        assert strategy is not None, f"{kind.__name__}.{f.name}: teach this test to draw a {type(_default(f))}"
        object.__setattr__(out, f.name, data.draw(strategy, label=f.name))
    return out


@pytest.mark.parametrize("kind", SETTINGS, ids=lambda c: c.__name__)
@settings(max_examples=40)
@given(data=st_.data())
def test_a_configs_key_differs_when_any_field_differs_and_agrees_when_all_are_equal(kind, data):
    base = drawn(kind, data)
    twin = object.__new__(kind)  # equal: another object, its fields set one by one
    for f in dataclasses.fields(kind):
        object.__setattr__(twin, f.name, getattr(base, f.name))
    assert identity(base) == identity(twin)
    field = data.draw(st_.sampled_from([f.name for f in dataclasses.fields(kind)]), label="field")
    other = changed(base, field, other_value(getattr(base, field), data))
    assert identity(other) != identity(base)
    assert identity(changed(base, field, getattr(other, field))) == identity(other)


@pytest.mark.parametrize("cached_fn", [shared, copied], ids=["shared", "copied"])
@pytest.mark.parametrize("config", SETTINGS, ids=lambda c: c.__name__)
@settings(max_examples=25)
@given(data=st_.data())
def test_changing_any_one_field_runs_the_body_again_and_equal_settings_hit_the_cache(config, cached_fn, data):
    base = config()
    field = data.draw(st_.sampled_from([f.name for f in dataclasses.fields(base)]), label="field")
    other = changed(base, field, other_value(getattr(base, field), data))
    RUNS.clear()
    cached_fn(base, "figure")
    cached_fn(copy.copy(base), "figure")  # equal settings, another object: a hit
    assert RUNS in ([], [(base, "figure")])  # [] when an earlier example already asked for it
    RUNS.clear()
    assert cached_fn(other, "figure")[0] == other or field in _fields_not_compared(config)
    assert len(RUNS) <= 1
    assert identity((other, "figure")) != identity((base, "figure"))
    cached_fn(changed(base, field, getattr(other, field)), "figure")  # equal to `other`: a hit
    assert len(RUNS) <= 1


def _fields_not_compared(settings) -> set[str]:
    return {f.name for f in dataclasses.fields(settings) if not f.compare}


@settings(max_examples=40)
@given(st_.sampled_from(SETTINGS), st_.data())
def test_a_figure_is_built_again_for_a_setting_changed_and_not_for_equal_settings(config, data):
    """live_chart's figure text (every chart the pages draw) for functools.partial(builder, settings)."""

    def settings_figure(cfg) -> go.Figure:
        BUILT.append(cfg)
        return go.Figure(layout=dict(title=repr(cfg)))

    base = config()
    field = data.draw(st_.sampled_from([f.name for f in dataclasses.fields(base)]))
    other = changed(base, field, other_value(getattr(base, field), data))
    first = live_chart._figure_text(functools.partial(settings_figure, base))
    assert live_chart._figure_text(functools.partial(settings_figure, copy.copy(base))) == first
    second = live_chart._figure_text(functools.partial(settings_figure, other))
    assert second != first and second == live_chart.figure_json(settings_figure(other))  # built now, or for an equal


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


titled.__module__ = "figures.counted"  # ui.live_chart draws figures/ builders alone: this one is a test's, counted


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


# --- What a function reads beyond its arguments ------------------------------------------------------------------------


@cached(max_entries=8)
def translated(key: str) -> str:
    """A cached text that reads the reader's language through ui.i18n.t, which it is not given."""
    RUNS.append(key)
    return t(key)


def language_page():
    import streamlit as st

    from tests.app.test_caching import translated
    from ui.i18n import LANG_KEY

    st.session_state[LANG_KEY] = st.session_state.get("asked", "en")
    st.write(translated("pe.title"))


def test_a_cached_function_that_reads_a_text_is_keyed_by_the_language_without_taking_it():
    at = AppTest.from_function(language_page, default_timeout=60).run()
    english = at.markdown[0].value
    at.session_state["asked"] = "zh"
    at.run()
    chinese = at.markdown[0].value
    assert chinese != english and at.session_state[LANG_KEY] == "zh"
    at.session_state["asked"] = "en"
    RUNS.clear()
    at.run()
    assert at.markdown[0].value == english and RUNS == []  # English again: a hit


class Counter:
    """A callable object: what it returns is its own state, which no key would see."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> int:
        return self.n


counter = Counter()


def reads_a_callable_object(x: int) -> int:
    return counter() + x


def reads_the_session(x: int) -> int:
    return st.session_state.get("shown", 0) + x


def calls_one_that_reads_the_session(x: int) -> int:
    return reads_the_session(x) + 1


def test_a_callable_object_read_as_a_global_is_refused():
    with pytest.raises(TypeError, match="reads the variable counter"):
        identity(functools.partial(reads_a_callable_object, 1))


def test_a_read_of_the_session_is_refused_however_deep_in_the_functions_called():
    for func in (reads_the_session, calls_one_that_reads_the_session):
        with pytest.raises(TypeError, match="reads st.session_state"):
            identity(functools.partial(func, 1))
        with pytest.raises(TypeError, match="reads st.session_state"):
            cached(max_entries=1)(func)


# --- One idiom ---------------------------------------------------------------------------------------------------------

# The caches that are not ui.cache.cached, each with the comment that says why: a shared store (under its own lock
# and bound), a process's one object or side effect, a constant of the process, code.
NOT_CACHED = {
    ("ui/cache.py", "_fronts"),  # the idiom's own store
    ("ui/jobs.py", "job_runner"),  # a shared store: JobRunner's lock and QUEUES' bounds
    ("ui/sessions.py", "start_reaper"),  # the process's one thread
    ("ui/resources.py", "import_libraries"),  # a side effect made once, which other callers wait for
    ("lessons/embedding_space/projections.py", "layouts"),  # a shared store: Layouts' lock and bound
    ("core/classroom.py", "process_store"),  # the process's one store, read outside Streamlit (serve.py)
    ("core/tokens.py", "unicode_table"),  # a data file read once
    ("core/problems.py", "english"),  # a locale file read once
    ("core/trustworthiness.py", "_count_kernel"),  # compiled code
    ("core/exercises.py", "minilm_answers"),  # constants of the shipped weights
    ("core/exercises.py", "sentence_answers"),
    ("figures/plain.py", "colorscale"),  # plotly's constants
    ("ui/i18n.py", "_read"),  # the locale files, read once
    ("ui/i18n.py", "catalog"),
    ("ui/i18n.py", "plurals"),
    ("ui/i18n.py", "_locale"),
    ("ui/explain.py", "source"),  # a function's source
    ("lessons/__init__.py", "every_declared"),  # the lessons' declarations
}
CACHES = ("st.cache_resource", "st.cache_data", "functools.cache", "functools.lru_cache", "cache", "lru_cache")


def test_every_cache_is_ui_cache_cached_or_named_with_why_not():
    found = set()
    for folder in ("core", "figures", "ui", "lessons"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            source = path.read_text()
            lines = source.splitlines()
            for node in ast.walk(ast.parse(source)):
                if not isinstance(node, ast.FunctionDef):
                    continue
                for decorator in node.decorator_list:
                    call = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if ast.unparse(call) in CACHES:
                        where = (path.relative_to(ROOT).as_posix(), node.name)
                        found.add(where)
                        said = lines[decorator.lineno - 2] + lines[decorator.lineno - 1]
                        assert "#" in said, f"{where}: say why it is not ui.cache.cached, in a comment"
    assert found == NOT_CACHED


def test_the_layouts_store_is_bounded_locked_and_lets_go_of_jobs_gone():
    from lessons.embedding_space.projections import Layouts, layouts
    from ui.jobs import QUEUES

    store = Layouts(most=3)
    for key in range(5):
        store.add(key, [(0, np.zeros(2))], alive=lambda k: True)
    assert len(store) == 3 and store.get(0) is None and store.get(4) is not None  # the oldest let go first
    store.add(9, [], alive=lambda k: k == 4)
    assert len(store) == 2 and store.get(3) is None  # their jobs gone
    queue = QUEUES["projections"]
    assert layouts().most == queue["keep"] + queue["max_waiting"]

    errors: list[BaseException] = []

    def add_many(first: int) -> None:
        try:
            for key in range(first, first + 2000):
                store.add(key, [], alive=lambda k: isinstance(k, int) and k % 3 != 0)
                store.get(key - 1)
        except BaseException as err:  # a dict changed while another thread walked it
            errors.append(err)

    threads = [threading.Thread(target=add_many, args=(i * 10_000,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(store) <= store.most
