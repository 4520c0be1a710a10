"""The positional-encoding page in AppTest: every key widget moved, presets, bad input."""

import base64
import json
import math

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core.positional import sinusoidal_encoding
from tests.app import APP, open_link

PAGE = "lessons/positional_encoding/positional_encoding.py"


@pytest.fixture
def at(open_page):
    return open_page(PAGE)


def windows(at) -> list[dict]:
    """What the page sent ui.live_chart's window charts, in order."""
    return [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.component_name == "live_chart"]


def charts(at) -> list[dict]:
    """The figures the page drew: its window charts' (without their values), then st.plotly_chart's."""
    return [json.loads(data["figure"]) for data in windows(at)] + [
        json.loads(c.proto.spec) for c in at.get("plotly_chart")
    ]


def values(trace: dict, axis: str) -> np.ndarray:
    """A st.plotly_chart trace's z or y as plotly.js reads it: the float32 array it carries (plotly's base64 form)."""
    array = trace[axis]
    shape = [int(n) for n in str(array.get("shape", -1)).split(",")]  # plotly writes "100, 128"
    return np.frombuffer(base64.b64decode(array["bdata"]), array["dtype"]).reshape(shape)


def plotted(at, key: str) -> dict:
    """The figure st.plotly_chart drew under `key`."""
    return next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if c.proto.id.endswith(key))


def shown(at) -> dict:
    """The first window chart as the browser draws it: the window looked up in the extents sent and cut from the
    block sent, as live_chart.js does. For the table, z is the heatmap's; for the curves, z's columns are the lines.
    """
    window = windows(at)[0]["window"]
    choice = [spans.index(span) for spans, span in zip(window["spans"], window["span"], strict=False)] + [0]
    rows, cols, last_row, last_col = window["extents"][choice[0]][choice[1]]
    r0 = min(window["start"][0], last_row)
    c0 = min(window["start"][1], last_col) if len(window["spans"]) == 2 or window["tied"] else 0
    block = window["block"]
    values = np.frombuffer(base64.b64decode(block["bdata"]), "<f4").reshape(block["shape"])
    b0, bc0 = block["origin"]
    return dict(y0=r0, x0=c0, z=values[r0 - b0 : r0 + rows - b0, c0 - bc0 : c0 + cols - bc0])


heatmap = shown  # on the table's chapter


def move_window(at, **values) -> None:
    """What a move of a window's sliders in the browser sets (the browser tests move them there)."""
    for name, value in values.items():
        at.session_state[f"pe_{name}"] = value
    at.run()
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
    move_window(at, pos_start=1900)
    assert heatmap(at)["y0"] == 1900 and at.query_params["pe_pos_start"] == "1900"
    at.number_input(key="pe_max_len").set_value(300).run()
    assert not at.exception
    assert any("First position was 1900, past what a table of 300 allows" in w.value for w in at.warning)
    assert heatmap(at)["y0"] == 200 and at.session_state["pe_pos_start"] == 200
    assert at.query_params["pe_pos_start"] == "200"  # the link says where the window is now, not 1900


def test_the_first_position_reaches_where_the_window_fits(at):
    at.number_input(key="pe_max_len").set_value(2000).run()
    move_window(at, pos_span=50)
    window = windows(at)[0]["window"]
    assert window["extents"][window["spans"][0].index(50)][window["spans"][1].index(128)] == [50, 128, 1950, 0]
    move_window(at, pos_start=1950)
    assert (heatmap(at)["y0"], heatmap(at)["z"].shape) == (1950, (50, 128)) and not at.warning
    assert "Positions 1950–1999 × dimensions 0–127" in at.caption[0].value


def columns_offered(at) -> tuple[list[int], int]:
    """The table window's choices of dimensions shown, and the one shown (the slider's value in the browser)."""
    window = windows(at)[0]["window"]
    return window["spans"][1], window["span"][1]


def test_the_dimensions_shown_follow_d_model(at):
    """Issue 41, 4a: "Dimensions shown" read 512 (range 8-1024) on a 128-wide table, and moving it changed nothing."""
    assert columns_offered(at) == ([8, 16, 32, 64, 128], 128) and heatmap(at)["z"].shape == (100, 128)
    at.number_input(key="pe_d_model").set_value(100).run()
    assert columns_offered(at) == ([8, 16, 32, 64, 100], 100) and not at.info  # all of it, as before
    move_window(at, dim_span=32)
    assert heatmap(at)["z"].shape == (100, 32) and at.query_params["pe_dim_span"] == "32"
    at.number_input(key="pe_d_model").set_value(20).run()
    assert columns_offered(at) == ([8, 16, 20], 20) and heatmap(at)["z"].shape == (100, 20)
    assert "Dimensions shown was 32, more than this table's 20 dimensions: now 20." in at.info[0].value
    at.number_input(key="pe_d_model").set_value(2048).run()
    assert columns_offered(at) == ([8, 16, 32, 64, 128, 256, 512, 1024], 512)  # the whole of 20: the default
    assert heatmap(at)["z"].shape[1] == 512 and "pe_dim_span" not in at.query_params


def test_a_link_asking_more_dimensions_than_d_model_is_named():
    at = open_link(PAGE, pe_d_model="64", pe_dim_span="512")
    assert "pe_dim_span=512" in at.warning[0].value
    assert columns_offered(at) == ([8, 16, 32, 64], 64) and heatmap(at)["z"].shape == (100, 64)
    at = open_link(PAGE, pe_d_model="512", pe_dim_span="256")
    assert not at.warning and columns_offered(at) == ([8, 16, 32, 64, 128, 256, 512], 256)


def test_a_window_the_link_gives_wrongly_is_named_and_not_taken():
    at = open_link(PAGE, pe_pos_span="33", pe_pos_start="x", pe_sim_start="7")
    notice = at.warning[0].value
    assert "pe_pos_span=33" in notice and "pe_pos_start=x" in notice and "pe_sim_start" not in notice
    assert (heatmap(at)["y0"], heatmap(at)["z"].shape) == (0, (100, 128))
    assert at.session_state["pe_sim_start"] == 7 and at.query_params == dict(pe_sim_start="7")


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


A_TEXT = "d_model:128;max_len:100;base:10000;layout:interleaved"  # PEConfig() pinned in full


def test_pinning_a_and_changing_b_shows_the_tables_difference_and_both_wavelengths(at):
    at.button(key="pe_a_pin").click().run()
    assert "B equals A: change a setting to compare" in at.info[0].value and len(charts(at)) == 1
    assert at.query_params["pe_a"] == A_TEXT
    at.text_input(key="pe_base").input("500000").run()
    assert not at.exception and not at.warning and not at.info
    assert at.table[0].value.shape == (4, 4)  # A and B side by side, one row per setting
    move_window(at, pos_span=50, pos_start=20, dim_span=32, dim_start=8)
    (diff,) = plotted(at, "pe_ab_diff_chart")["data"]
    b_less_a = sinusoidal_encoding(100, 128, 500000.0).numpy() - sinusoidal_encoding(100, 128).numpy()
    assert (diff["y0"], diff["x0"]) == (20, 8)  # the same window as the table's
    np.testing.assert_allclose(values(diff, "z"), b_less_a[20:70, 8:40], atol=1e-5)
    assert any("B − A over positions 20–69 × dimensions 8–39" in c.value for c in at.caption)
    open_chapter(at, "wavelengths")
    a_line, b_line = plotted(at, "pe_ab_wl_chart")["data"]
    pair = np.arange(64)
    np.testing.assert_allclose(values(a_line, "y"), 2 * np.pi * 10000 ** (2 * pair / 128), rtol=1e-5)
    np.testing.assert_allclose(values(b_line, "y"), 2 * np.pi * 500000 ** (2 * pair / 128), rtol=1e-5)
    assert (a_line["line"]["dash"], b_line["line"]["dash"]) == ("dash", "solid")
    at.button(key="pe_a_unpin").click().run()
    assert "pe_a" not in at.query_params and len(charts(at)) == 2 and not at.table


def test_a_smaller_a_is_compared_on_the_cells_both_tables_have():
    at = open_link(PAGE, pe_a="d_model:64;max_len:30", pe_pos_span="50")
    assert not at.warning
    (diff,) = plotted(at, "pe_ab_diff_chart")["data"]
    b_less_a = sinusoidal_encoding(30, 128).numpy()[:, :64] - sinusoidal_encoding(30, 64).numpy()
    np.testing.assert_allclose(values(diff, "z"), b_less_a, atol=1e-5)
    assert at.query_params["pe_a"] == "d_model:64;max_len:30;base:10000;layout:interleaved"  # pinned in full


@pytest.mark.parametrize(
    ("text", "says"),
    [("d_model:abc", "d_model must be a int"), ("colour:red", "is not `name:value`"), ("d_model:0", "d_model")],
)
def test_a_bad_a_in_the_link_is_named_and_dropped(text, says):
    at = open_link(PAGE, pe_a=text, pe_base="500000")
    notice = at.warning[0].value
    assert f"pe_a={text}" in notice and says in notice
    assert "pe_a" not in at.query_params and at.query_params["pe_base"] == "500000"
    assert at.button(key="pe_a_pin") and len(charts(at)) == 1


def test_a_link_with_a_and_b_opens_both():
    at = open_link(PAGE, pe_a=A_TEXT, pe_d_model="64", pe_pos_start="0")
    assert not at.warning and not at.info and at.table[0].value.shape == (4, 4)
    (diff,) = plotted(at, "pe_ab_diff_chart")["data"]
    b_less_a = sinusoidal_encoding(100, 64).numpy() - sinusoidal_encoding(100, 128).numpy()[:, :64]
    np.testing.assert_allclose(values(diff, "z"), b_less_a, atol=1e-5)
