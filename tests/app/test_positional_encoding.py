"""The positional-encoding page in AppTest: every key widget moved, presets, bad input."""

import base64
import json
import math

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core.positional import sinusoidal_encoding
from tests.app import APP

PAGE = "lessons/positional_encoding.py"


@pytest.fixture
def at(open_page):
    return open_page(PAGE)


def charts(at) -> list[dict]:
    """The figures the page drew with st.plotly_chart, in order."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def values(trace: dict, axis: str) -> np.ndarray:
    """A trace's z or y as plotly.js reads it: the float32 array the figure carries (plotly's base64 form)."""
    array = trace[axis]
    shape = [int(n) for n in str(array.get("shape", -1)).split(",")]  # plotly writes "100, 128"
    return np.frombuffer(base64.b64decode(array["bdata"]), array["dtype"]).reshape(shape)


def shown(at) -> dict:
    """The first chart's window: its first row and column, and z (a heatmap's cells, or the lines as columns)."""
    data = charts(at)[0]["data"]
    if data[0]["type"] == "heatmap":
        return dict(y0=data[0]["y0"], x0=data[0]["x0"], z=values(data[0], "z"))
    return dict(y0=data[0]["x0"], x0=0, z=np.stack([values(line, "y") for line in data], axis=1))


heatmap = shown  # on the table's chapter


def move_window(at, **moves) -> None:
    """Move the window's sliders: spans first, as a learner reads them, then the first indices."""
    for name, value in sorted(moves.items(), key=lambda item: "start" in item[0]):
        widget = at.slider(key=f"pe_{name}") if "start" in name else at.select_slider(key=f"pe_{name}")
        widget.set_value(value).run()
        assert not at.exception, at.exception


def open_chapter(at, chapter: str) -> None:
    at.button_group(key="pe_chapter").set_value(chapter).run()
    assert not at.exception


def test_the_page_opens_on_the_table_alone(at):
    assert at.button_group(key="pe_chapter").value == "table"
    assert len(charts(at)) == 1
    assert heatmap(at)["z"].shape == (100, 128)
    assert not at.error and not at.warning


@pytest.mark.parametrize(
    ("chapter", "n_charts", "metrics", "formulas", "codes"),
    [
        ("table", 1, 0, 1, 1),
        ("wavelengths", 2, 2, 2, 2),
        ("similarity", 2, 0, 1, 1),
        ("checks", 0, 2, 1, 1),
        ("model", 0, 0, 0, 1),
        ("exercises", 0, 0, 0, 0),
    ],
)
def test_each_chapter_draws_its_figures_with_their_formulas_and_code(at, chapter, n_charts, metrics, formulas, codes):
    open_chapter(at, chapter)
    assert len(charts(at)) == n_charts and len(at.metric) == metrics
    assert len(at.latex) == formulas and [e.label for e in at.expander] == ["Show the code"] * codes
    assert not at.error and not at.warning


@pytest.mark.parametrize("max_len", [100, 100_000])  # the whole columns sent, or the window's rows alone
def test_curves_show_the_chosen_columns_along_their_window(at, max_len):
    at.number_input(key="pe_max_len").set_value(max_len).run()
    open_chapter(at, "wavelengths")
    at.text_input(key="pe_dims").input("0, 5, 127").run()
    move_window(at, curve_span=50, curve_start=max_len - 70)
    curves = shown(at)
    expected = sinusoidal_encoding(max_len, 128).numpy()[max_len - 70 : max_len - 20, [0, 5, 127]]
    assert curves["y0"] == max_len - 70
    np.testing.assert_allclose(curves["z"], expected, atol=1e-6)
    assert not at.warning
    at.session_state["code_pe_columns_inverse_frequencies"] = True  # open "Show the code"
    at.run()
    assert any("def pe_columns" in code.value for code in at.code)  # the code that made the curves


@pytest.mark.parametrize("max_len", [200, 2000])  # every pair of positions sent, or the window's pairs alone
def test_similarity_shows_the_window_of_positions_against_themselves(at, max_len):
    at.number_input(key="pe_max_len").set_value(max_len).run()
    open_chapter(at, "similarity")
    at.radio(key="pe_sim_metric").set_value("cosine").run()
    move_window(at, sim_span=50, sim_start=max_len - 60)
    similarity = shown(at)
    rows = sinusoidal_encoding(max_len, 128).double().numpy()[max_len - 60 : max_len - 10]
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    assert similarity["y0"] == similarity["x0"] == max_len - 60
    np.testing.assert_allclose(similarity["z"], unit @ unit.T, atol=1e-5)
    assert not at.warning


def test_wavelength_metrics_state_the_shortest_and_longest_in_plain_numbers(at):
    open_chapter(at, "wavelengths")
    longest = 2 * math.pi * 10000 ** (126 / 128)  # d_model 128: pairs 0..63
    assert [m.value for m in at.metric] == ["6.283", f"{longest:,.0f}"]  # "54,410", not "5.441e+04"
    assert at.metric[1].label == "Longest wavelength (pair 63), in positions"


def test_settings_hold_across_chapters(at):
    at.number_input(key="pe_d_model").set_value(64).run()
    open_chapter(at, "checks")
    at.number_input(key="pe_shift_k").set_value(7).run()
    open_chapter(at, "table")
    assert heatmap(at)["z"].shape == (100, 64)
    open_chapter(at, "checks")
    assert at.number_input(key="pe_shift_k").value == 7


@pytest.mark.parametrize(
    ("key", "value", "shape"),
    [("pe_d_model", 64, (100, 64)), ("pe_max_len", 30, (30, 128)), ("pe_d_model", 7, (100, 7))],
)
def test_sizes_change_the_heatmap(at, key, value, shape):
    at.number_input(key=key).set_value(value).run()
    assert not at.exception
    assert heatmap(at)["z"].shape == shape


def test_base_layout_window_and_metric_move(at):
    at.text_input(key="pe_base").input("500000").run()
    at.radio(key="pe_layout").set_value("concatenated").run()
    at.number_input(key="pe_max_len").set_value(5000).run()
    move_window(at, pos_start=4000, dim_span=32, dim_start=96)
    shown = heatmap(at)
    assert (shown["y0"], shown["x0"], shown["z"].shape) == (4000, 96, (100, 32))
    table = sinusoidal_encoding(5000, 128, 500000.0, layout="concatenated").numpy()
    np.testing.assert_allclose(shown["z"], table[4000:4100, 96:128], atol=1e-5)
    assert "Positions 4000–4099 × dimensions 96–127" in at.caption[0].value
    open_chapter(at, "similarity")
    at.radio(key="pe_sim_metric").set_value("cosine").run()
    assert "cosine" in charts(at)[0]["layout"]["title"]["text"]
    open_chapter(at, "checks")
    at.number_input(key="pe_shift_k").set_value(100).run()
    assert not at.exception and not at.error


def test_base_pills_set_the_base(at):
    assert at.get("button_group")[0].proto.wrap  # all three in sight in a narrow column (presenter mode, 1280 px)
    at.get("button_group")[0].set_value("100").run()
    assert at.text_input(key="pe_base").value == "100"
    assert "base = 100" not in str(at.error)


def test_preset_sets_every_control(at):
    at.selectbox(key="pe_preset").select("illustrated").run()
    assert not at.exception
    assert at.number_input(key="pe_d_model").value == 512
    assert at.number_input(key="pe_max_len").value == 20
    assert at.radio(key="pe_layout").value == "concatenated"
    assert heatmap(at)["z"].shape == (20, 512)
    at.number_input(key="pe_d_model").set_value(256).run()
    assert at.selectbox(key="pe_preset").value == "custom"


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("pe_d_model", 0, "d_model must be between 1"),
        ("pe_d_model", 5000, "d_model must be between 1"),
        ("pe_max_len", 0, "max_len must be between 1"),
        ("pe_base", "1", "above 1"),
        ("pe_base", "0.5", "above 1"),
        ("pe_base", "nan", "finite"),
        ("pe_base", "inf", "finite"),
        ("pe_base", "ten thousand", "must be a number such as 10000;"),
    ],
)
def test_bad_settings_say_what_to_change_and_keep_the_figures(at, key, value, says):
    widget = at.text_input(key=key) if key == "pe_base" else at.number_input(key=key)
    (widget.input(value) if key == "pe_base" else widget.set_value(value)).run()
    assert not at.exception
    assert says in at.error[0].value and "last valid settings" in at.error[0].value
    assert heatmap(at)["z"].shape == (100, 128)


def test_d_model_one_warns_and_odd_informs(at):
    open_chapter(at, "checks")
    at.number_input(key="pe_d_model").set_value(1).run()
    assert "d_model = 1" in at.warning[0].value and not at.exception
    at.number_input(key="pe_d_model").set_value(9).run()
    assert "Odd d_model" in at.info[0].value


def test_window_outside_the_table_is_moved_back_with_a_notice(at):
    at.number_input(key="pe_max_len").set_value(2000).run()
    move_window(at, pos_span=50, pos_start=1900)
    at.select_slider(key="pe_pos_span").set_value(100).run()  # still inside: the first position stays
    assert heatmap(at)["y0"] == 1900 and at.slider(key="pe_pos_start").value == 1900
    at.number_input(key="pe_max_len").set_value(300).run()
    assert not at.exception
    assert any("First position was 1900, past what a table of 300 allows" in w.value for w in at.warning)
    assert heatmap(at)["y0"] == 200 and at.slider(key="pe_pos_start").value == 200
    # (the slider's range changed with the table: Streamlit 1.67 drops its value from the link until the next move)


def test_the_first_position_reaches_where_the_narrowest_window_fits_and_a_wider_one_shows_the_rows_left(at):
    at.number_input(key="pe_max_len").set_value(2000).run()
    move_window(at, pos_span=50)
    assert at.slider(key="pe_pos_start").proto.max == 1990  # 2,000 positions less the narrowest window's 10
    move_window(at, pos_start=1990)
    assert (heatmap(at)["y0"], heatmap(at)["z"].shape) == (1990, (10, 128)) and not at.warning
    assert "Positions 1990–1999 × dimensions 0–127" in at.caption[0].value


def test_largest_table_states_the_budget_and_still_draws(at):
    at.number_input(key="pe_max_len").set_value(100_000).run()
    at.number_input(key="pe_d_model").set_value(4096).run()
    move_window(at, pos_start=99_900)
    assert not at.exception
    assert heatmap(at)["y0"] == 99_900
    open_chapter(at, "model")
    assert "Reduce max_len to at most 16,384" in at.warning[0].value


def test_bad_dimensions_and_shift_are_reported(at):
    open_chapter(at, "wavelengths")
    at.text_input(key="pe_dims").input("4, x, 999, 5").run()
    assert "Ignored x, 999" in at.warning[0].value
    open_chapter(at, "checks")
    at.number_input(key="pe_shift_k").set_value(-3).run()
    assert "k must be between 0" in at.error[0].value and not at.exception


def test_a_link_opens_its_view_and_an_old_form_link_the_same_one():
    new = AppTest.from_file(APP, default_timeout=60)
    new.switch_page(PAGE)
    for name, value in dict(pe_d_model="64", pe_max_len="5000", pe_pos_span="50", pe_pos_start="4000").items():
        new.query_params[name] = value
    new.run()
    old = AppTest.from_file(APP, default_timeout=60)
    old.switch_page(PAGE)
    for name, value in dict(d_model="64", max_len="5000", pos_span="50", pos_start="4000").items():
        old.query_params[name] = value  # a link made before the settings had their page's prefix
    old.run()
    for at in (new, old):
        assert not at.exception and not at.warning
        assert (heatmap(at)["y0"], heatmap(at)["z"].shape) == (4000, (50, 64))
        assert "Positions 4000–4049 × dimensions 0–63" in at.caption[0].value
    assert (
        old.query_params
        == new.query_params
        == dict(pe_d_model="64", pe_max_len="5000", pe_pos_span="50", pe_pos_start="4000")
    )
