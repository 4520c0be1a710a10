"""The rotary page in AppTest: every control and each bad input the issue names."""

import functools
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from core import rotary
from core.rotary import RopeConfig
from tests.app import APP
from tests.app import open_link as open_link_to
from tests.figures.plotly_json import array

PAGE = "lessons/rotary/rotary.py"


@pytest.fixture
def at(open_page):
    return open_page(PAGE)


def charts(at) -> list[dict]:
    """The figures the page sent, in order: each one's JSON, sent to ui.live_chart's plain chart."""
    sent = [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.component_name == "live_chart"]
    return [json.loads(data["figure"]) for data in sent]


def titles(at) -> list[str]:
    return [c["layout"]["title"]["text"] for c in charts(at)]


SCALING = ("rp_method", "rp_factor", "rp_low_freq", "rp_high_freq", "rp_original", "rp_target")


def move_scaling(at, key: str, value) -> None:
    """Move a scaling setting. Its callback reruns the RoPE sections' fragment alone, and AppTest then holds that
    fragment's elements alone (the browser keeps the rest of the page): a full run draws the whole page again."""
    widget = at.selectbox(key=key) if key == "rp_method" else at.number_input(key=key)
    widget.set_value(value).run()
    assert not at.exception
    at.run()


open_link = functools.partial(open_link_to, PAGE)


def test_defaults_draw_every_figure(at):
    assert not at.exception and not at.error
    assert len(charts(at)) == 5
    wavelengths = charts(at)[1]
    assert [t["name"] for t in wavelengths["data"]] == ["none", "linear (PI)", "dynamic NTK", "YaRN", "llama3"]
    assert at.get("page_link")[0].proto.page == "learned_vs_sinusoidal"


def test_every_control_moves(at):
    assert at.get("button_group")[0].proto.wrap  # the pills wrap in their column rather than scroll out of sight
    at.get("button_group")[0].set_value("500000").run()
    assert at.text_input(key="rp_base").value == "500000"
    at.number_input(key="rp_head_dim").set_value(64).run()
    for key, value in (
        ("rp_method", "yarn"),
        ("rp_original", 8192),
        ("rp_target", 65536),
        ("rp_factor", 8.0),
        ("rp_low_freq", 2.0),
        ("rp_high_freq", 8.0),
    ):
        move_scaling(at, key, value)
        assert at.session_state[key] == value
    for key, value in (("rp_seed", 3), ("rp_heads", 12)):
        at.number_input(key=key).set_value(value).run()
    for key, value in (
        ("rp_pair", 5),
        ("rp_positions", 100),
        ("rp_distance", 1024),
        ("rp_head", 11),
        ("rp_alibi_len", 16),
    ):
        at.slider(key=key).set_value(value).run()
    assert not at.exception and not at.error
    assert "Pair 5" in titles(at)[0]


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("rp_head_dim", 127, "even"),
        ("rp_head_dim", 2048, "from 2 to 1,024"),  # a typo's 10^9 would take gigabytes of the shared server
        ("rp_heads", 1000, "needs 1 to 256 heads"),
        ("rp_factor", 0.5, "at least 1"),
        ("rp_high_freq", 1.0, "high_freq_factor above it"),
        ("rp_low_freq", 0.0, "low_freq_factor must be above 0"),
        ("rp_low_freq", -1.0, "low_freq_factor must be above 0"),
        ("rp_original", 20000, "below the target"),
        ("rp_base", "1", "above 1"),
        ("rp_base", "0.5", "above 1"),
    ],
)
def test_bad_settings_say_what_to_change(at, key, value, says):
    widget = at.text_input(key=key) if key == "rp_base" else at.number_input(key=key)
    (widget.input(value) if key == "rp_base" else widget.set_value(value)).run()
    assert not at.exception
    assert says in at.error[0].value


def test_a_scaling_setting_reruns_the_rope_sections_alone_and_they_follow_it(at):
    before = charts(at)
    at.selectbox(key="rp_method").set_value("linear").run()
    # its callback reran the fragment alone: head_dim, the base and the sections, not the scaling settings nor ALiBi
    assert not at.exception and not at.error and not at.selectbox
    assert [box.key for box in at.number_input] == ["rp_head_dim", "rp_seed"] and at.text_input(key="rp_base")
    rotation, wavelengths, scores, decay = charts(at)
    np.testing.assert_allclose(array(rotation["data"][0]["x"]), np.cos(np.arange(64) * 10000 ** (-16 / 128) / 4))
    assert wavelengths == before[1] and decay == before[3]  # all five methods, and the bound, do not use it
    assert scores != before[2]
    at.run()  # the whole page, as the browser keeps it
    assert at.selectbox(key="rp_method").value == "linear" and charts(at)[:4] == [rotation, wavelengths, scores, decay]


_shown: dict[
    str, AppTest
] = {}  # one AppTest for every example: a figure's text is cached per server, so later examples read it back


@settings(max_examples=6, suppress_health_check=[HealthCheck.too_slow])
@given(
    base=st.sampled_from(["10000", "500000", "50000"]),
    method=st.sampled_from(rotary.SCALINGS),
    pair=st.integers(0, 63),
    count=st.integers(4, 256),
    distance=st.integers(16, 4096),
    seed=st.integers(0, 3),
    length=st.integers(4, 128),
)
def test_each_figure_shows_the_settings_it_is_drawn_for(base, method, pair, count, distance, seed, length):
    # each figure's text is cached by what it shows (ui.live_chart.cached_chart): a setting left out of its inputs
    # would show another setting's figure once that one is cached
    if "at" not in _shown:
        _shown["at"] = AppTest.from_file(APP, default_timeout=60).run().switch_page(PAGE).run()
    at = _shown["at"]
    at.text_input(key="rp_base").input(base)
    at.selectbox(key="rp_method").set_value(method)
    for key, value in (("rp_pair", pair), ("rp_positions", count), ("rp_distance", distance), ("rp_alibi_len", length)):
        at.slider(key=key).set_value(value)
    at.number_input(key="rp_seed").set_value(seed).run()  # a new method reruns the RoPE fragment alone:
    at.run()  # the whole page (move_scaling)
    assert not at.exception and not at.error
    rotation, wavelengths, scores, decay, alibi = charts(at)
    cfg = RopeConfig(base=float(base), method=method)
    theta = cfg.inv_freq()[pair].item()
    assert rotation["layout"]["title"]["text"] == f"Pair {pair} rotated by m·θ_{pair}"
    np.testing.assert_allclose(array(rotation["data"][0]["y"]), np.sin(np.arange(count) * theta))
    assert [trace["name"] for trace in wavelengths["data"]] == ["none", "linear (PI)", "dynamic NTK", "YaRN", "llama3"]
    np.testing.assert_allclose(array(wavelengths["data"][0]["y"]), 2 * math.pi / cfg.inv_freq("default"), rtol=1e-6)
    np.testing.assert_allclose(array(wavelengths["data"][1]["y"]), 2 * math.pi / cfg.inv_freq("linear"), rtol=1e-6)
    same, random = rotary.score_curves(cfg, distance, seed)
    np.testing.assert_allclose(array(scores["data"][1]["y"]), random, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(array(scores["data"][0]["y"]), same, rtol=1e-5, atol=1e-4)
    assert len(array(decay["data"][0]["y"])) == distance + 1
    assert array(alibi["data"][0]["z"]).shape == (length, length)


def test_the_figures_are_drawn_in_the_language_shown():
    english = titles(open_link())  # cached per server first, in English
    chinese = titles(open_link(lang="zh"))
    assert len(chinese) == 5 and not set(english) & set(chinese)


def test_a_single_pair_draws_every_figure(at):
    at.number_input(key="rp_head_dim").set_value(2).run()
    assert not at.exception and not at.error
    assert len(charts(at)) == 5


def test_zero_heads_keeps_the_rope_figures(at):
    at.number_input(key="rp_heads").set_value(0).run()
    assert not at.exception and "needs 1 to 256 heads" in at.error[0].value
    assert len(charts(at)) == 4


def test_a_link_opens_with_its_settings():
    at = open_link(rp_base="500000", rp_head_dim="64", rp_pair="3", rp_heads="12")
    assert not at.warning and not at.error
    assert at.text_input(key="rp_base").value == "500000" and at.number_input(key="rp_head_dim").value == 64
    assert "Pair 3" in titles(at)[0] and at.number_input(key="rp_heads").value == 12


def test_an_old_form_link_opens_the_same_view():
    new = open_link(rp_base="500000", rp_head_dim="64", rp_pair="3")
    old = open_link(base="500000", head_dim="64", pair="3")  # a link made before the settings had a prefix
    assert not old.warning and old.text_input(key="rp_base").value == "500000"
    assert charts(old) == charts(new)


def test_a_bad_base_keeps_alibi_shown(at):
    at.text_input(key="rp_base").input("abc").run()
    assert not at.exception and "must be a number" in at.error[0].value
    assert len(charts(at)) == 1 and "ALiBi" in titles(at)[0]
    at.text_input(key="rp_base").input("500000").run()
    assert len(charts(at)) == 5


def test_a_pair_that_barely_turns_says_so_and_keeps_its_circle():
    """Issue 41, 4g: all 64 points on one dot, the guide circle gone, and nothing said."""
    at = open_link(rp_base="500000", rp_head_dim="64", rp_pair="28")
    note = next(i.value for i in at.info if "less than a degree" in i.value)
    assert "Pair 28 turns less than a degree over the 64 positions shown" in note
    assert charts(at)[0]["layout"]["shapes"][0]["type"] == "circle"
    at.slider(key="rp_pair").set_value(3).run()
    assert not any("less than a degree" in i.value for i in at.info)


def test_a_smaller_head_dim_moves_the_pair_back_inside(at):
    at.slider(key="rp_pair").set_value(20).run()
    at.number_input(key="rp_head_dim").set_value(8).run()
    assert not at.exception and "now 3" in at.warning[0].value
    assert at.slider(key="rp_pair").value == 3 and "Pair 3" in titles(at)[0]


# --- A/B pinning (ui.compare): A in the link's rp_a, B the page's widgets ----------------------------------------

DEFAULT_A = "head_dim:128;base:10000;method:default;original:4096;target:16384;factor:4;low_freq:1;high_freq:4"


def test_pinning_a_and_changing_nothing_says_so(at):
    at.button(key="rp_a_pin").click().run()
    assert not at.exception and not at.error
    assert at.query_params["rp_a"] == DEFAULT_A  # written into the link
    assert "B equals A: change a setting to compare" in at.info[0].value
    assert "A is pinned: head_dim 128, base 10000" in at.caption[0].value
    assert len(charts(at)) == 5 and not at.table  # no chart of A against an identical B


def test_pin_change_and_unpin(at):
    at.button(key="rp_a_pin").click().run()
    at.text_input(key="rp_base").input("500000").run()
    assert not at.exception and not at.error and not at.info
    table = at.table[0].value
    assert list(table.iloc[1]) == ["base", "10000", "500000", "≠"] and list(table.iloc[0])[3] == ""
    assert titles(at)[2:6] == [
        "Wavelength of each pair: A against B",
        "B's wavelength over A's, pair by pair",
        "q_m · k_n against m − n",
        "Long-term decay: mean |S_j| against distance",
    ]
    ab = charts(at)[2]
    assert [(d["name"], d["line"]["dash"]) for d in ab["data"]] == [
        ("A: wavelength", "dash"),
        ("B: wavelength", "solid"),
    ]
    ratio = charts(at)[3]["data"][0]
    assert ratio["name"] == "B / A"  # base 500000 over 10000: every pair but the first turns slower
    assert at.query_params["rp_a"] == DEFAULT_A
    at.button(key="rp_a_unpin").click().run()
    assert not at.exception and "rp_a" not in at.query_params
    assert len(charts(at)) == 5 and not at.table and at.button(key="rp_a_pin")


def test_a_against_another_method_and_head_dim(at):
    at.button(key="rp_a_pin").click().run()
    move_scaling(at, "rp_method", "yarn")
    assert titles(at)[2] == "Wavelength of each pair: A against B"
    at.number_input(key="rp_head_dim").set_value(64).run()
    assert not at.exception and "different head_dim (128 and 64)" in at.info[0].value
    assert "B's wavelength over A's, pair by pair" not in titles(at)


def test_a_link_with_a_and_b_reopens_both():
    at = open_link(rp_a="base:10000;method:yarn", rp_base="500000")  # a field left out takes its default
    assert not at.exception and not at.warning and not at.error
    assert at.text_input(key="rp_base").value == "500000"
    assert list(at.table[0].value.iloc[2]) == ["method", "yarn", "default", "≠"]
    assert titles(at)[2] == "Wavelength of each pair: A against B" and at.button(key="rp_a_unpin")
    full = "head_dim:128;base:10000;method:yarn;original:4096;target:16384;factor:4;low_freq:1;high_freq:4"
    assert at.query_params["rp_a"] == full


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("head_dim:127", "head_dim must be even"),  # the dataclass's own check, as for B
        ("base:abc", "base must be a float; 'abc' is not"),
        ("size:3", "'size:3' is not `name:value` with a name among head_dim, base"),
        ("base:5;base:6", "base is given twice"),
        ("method:ntk", "The RoPE scaling must be one of"),
        ("original:90000", "below the target length"),
    ],
)
def test_a_bad_pinned_a_is_named_never_a_traceback(text, says):
    at = open_link(rp_a=text)
    assert not at.exception and not at.error
    warning = at.warning[0].value
    assert f"rp_a={text}" in warning and says in warning and len(at.warning) == 1  # not also "not a setting"
    assert "rp_a" not in at.query_params and at.button(key="rp_a_pin") and len(charts(at)) == 5


def test_a_stays_pinned_across_pages(at):
    at.button(key="rp_a_pin").click().run()
    at.text_input(key="rp_base").input("500000").run()
    at.switch_page("lessons/overview/overview.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception and at.text_input(key="rp_base").value == "500000"
    assert at.query_params["rp_a"] == DEFAULT_A and titles(at)[2] == "Wavelength of each pair: A against B"


@pytest.mark.parametrize(
    "link, says",
    [
        (dict(rp_method="dynamic", rp_factor="1e300"), "choose a smaller factor"),  # issue 40: a ZeroDivisionError
        (dict(rp_method="yarn", rp_factor="1e100"), "choose a smaller factor"),  # issue 40: half the chart missing
        (dict(rp_method="linear", rp_factor="1e100"), "choose a smaller factor"),
        (dict(rp_base="1e300"), "choose a smaller base"),
    ],
)
def test_settings_whose_wavelengths_overflow_are_named_never_a_traceback_or_a_partial_chart(link, says):
    at = open_link(**link)
    assert says in at.error[0].value
    assert len(charts(at)) == 1 and "ALiBi" in titles(at)[0]  # the RoPE sections are left out, ALiBi stays


@pytest.mark.parametrize("method", ["linear", "dynamic", "yarn", "llama3"])
def test_the_largest_factor_drawn_draws_every_wavelength(method):
    factor = 1e24  # the largest power of ten whose wavelengths stay under rotary.MAX_WAVELENGTH at the defaults
    at = open_link(rp_method=method, rp_factor=f"{factor:g}")
    assert not at.error
    curves = [array(trace["y"]) for trace in charts(at)[1]["data"]]
    assert len(curves) == 5 and all(len(c) == 64 and np.isfinite(c).all() and (c > 0).all() for c in curves)
