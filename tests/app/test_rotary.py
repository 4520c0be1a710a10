"""The rotary page in AppTest: every control and each bad input the issue names."""

import functools
import json

import pytest

from tests.app import open_link as open_link_to

PAGE = "lessons/rotary.py"


@pytest.fixture
def at(open_page):
    return open_page(PAGE)


def titles(at) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


open_link = functools.partial(open_link_to, PAGE)


def test_defaults_draw_every_figure(at):
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == 5
    wavelengths = json.loads(at.get("plotly_chart")[1].proto.spec)
    assert [t["name"] for t in wavelengths["data"]] == ["none", "linear (PI)", "dynamic NTK", "YaRN", "llama3"]
    assert at.get("page_link")[0].proto.page == "learned_vs_sinusoidal"


def test_every_control_moves(at):
    assert at.get("button_group")[0].proto.wrap  # the pills wrap in their column rather than scroll out of sight
    at.get("button_group")[0].set_value("500000").run()
    assert at.text_input(key="rp_base").value == "500000"
    for key, value in (
        ("rp_head_dim", 64),
        ("rp_original", 8192),
        ("rp_target", 65536),
        ("rp_factor", 8.0),
        ("rp_low_freq", 1.0),
        ("rp_high_freq", 4.0),
        ("rp_seed", 3),
        ("rp_heads", 12),
    ):
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


def test_a_single_pair_draws_every_figure(at):
    at.number_input(key="rp_head_dim").set_value(2).run()
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) >= 4


def test_zero_heads_keeps_the_rope_figures(at):
    at.number_input(key="rp_heads").set_value(0).run()
    assert not at.exception and "needs 1 to 256 heads" in at.error[0].value
    assert len(at.get("plotly_chart")) == 4


def test_a_link_opens_with_its_settings():
    at = open_link(rp_base="500000", rp_head_dim="64", rp_pair="3", rp_heads="12")
    assert not at.warning and not at.error
    assert at.text_input(key="rp_base").value == "500000" and at.number_input(key="rp_head_dim").value == 64
    assert "Pair 3" in titles(at)[0] and at.number_input(key="rp_heads").value == 12


def test_an_old_form_link_opens_the_same_view():
    new = open_link(rp_base="500000", rp_head_dim="64", rp_pair="3")
    old = open_link(base="500000", head_dim="64", pair="3")  # a link made before the settings had a prefix
    assert not old.warning and old.text_input(key="rp_base").value == "500000"
    assert [c.proto.spec for c in old.get("plotly_chart")] == [c.proto.spec for c in new.get("plotly_chart")]


def test_a_bad_base_keeps_alibi_shown(at):
    at.text_input(key="rp_base").input("abc").run()
    assert not at.exception and "must be a number" in at.error[0].value
    assert len(at.get("plotly_chart")) == 1 and "ALiBi" in titles(at)[0]
    at.text_input(key="rp_base").input("500000").run()
    assert len(at.get("plotly_chart")) == 5


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
    assert len(at.get("plotly_chart")) == 5 and not at.table  # no chart of A against an identical B


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
    ab = json.loads(at.get("plotly_chart")[2].proto.spec)
    assert [(d["name"], d["line"]["dash"]) for d in ab["data"]] == [
        ("A: wavelength", "dash"),
        ("B: wavelength", "solid"),
    ]
    ratio = json.loads(at.get("plotly_chart")[3].proto.spec)["data"][0]
    assert ratio["name"] == "B / A"  # base 500000 over 10000: every pair but the first turns slower
    assert at.query_params["rp_a"] == DEFAULT_A
    at.button(key="rp_a_unpin").click().run()
    assert not at.exception and "rp_a" not in at.query_params
    assert len(at.get("plotly_chart")) == 5 and not at.table and at.button(key="rp_a_pin")


def test_a_against_another_method_and_head_dim(at):
    at.button(key="rp_a_pin").click().run()
    at.selectbox(key="rp_method").set_value("yarn").run()
    assert not at.exception and titles(at)[2] == "Wavelength of each pair: A against B"
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
    assert "rp_a" not in at.query_params and at.button(key="rp_a_pin") and len(at.get("plotly_chart")) == 5


def test_a_stays_pinned_across_pages(at):
    at.button(key="rp_a_pin").click().run()
    at.text_input(key="rp_base").input("500000").run()
    at.switch_page("lessons/overview.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception and at.text_input(key="rp_base").value == "500000"
    assert at.query_params["rp_a"] == DEFAULT_A and titles(at)[2] == "Wavelength of each pair: A against B"
