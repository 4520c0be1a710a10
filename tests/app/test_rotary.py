"""The rotary page in AppTest: every control and each bad input the issue names."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.app import APP

PAGE = "lessons/rotary.py"


@pytest.fixture
def at(open_page):
    return open_page(PAGE)


def titles(at) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def open_link(**params: str) -> AppTest:
    """The page opened from a link with these query parameters."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(PAGE)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


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
