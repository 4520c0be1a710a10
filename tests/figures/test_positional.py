"""figures.positional through fig.to_dict(): float32 values with x0/dx, symmetric colour scales, titles, hovers."""

import math

import numpy as np
import pytest

from core.positional import PEConfig, dot_by_offset, pe_columns, pe_window, position_similarity, wavelengths
from figures import positional as fig_pe
from tests.figures.plotly_json import array, dtype

CFG = PEConfig(d_model=16, max_len=64)


def reference_pe(positions: np.ndarray, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The paper's table, interleaved, in float64 numpy: sin on even columns, cos on odd."""
    i = np.arange(0, d_model, 2)
    angle = positions[:, None] / base ** (i[None, :] / d_model)
    pe = np.empty((len(positions), d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)
    return pe


def test_colour_limit_is_the_99th_percentile_of_the_magnitudes_and_1_for_a_zero_table():
    values = np.random.default_rng(0).normal(size=(50, 20))
    values[3, 4] = 1e6  # one outlier does not wash out the scale
    magnitudes = np.sort(np.abs(values).ravel())
    position = 0.99 * (len(magnitudes) - 1)  # numpy's default (linear) quantile, by hand
    low = int(math.floor(position))
    expected = magnitudes[low] + (position - low) * (magnitudes[low + 1] - magnitudes[low])
    assert fig_pe.colour_limit(values) == pytest.approx(expected)
    assert fig_pe.colour_limit(-np.abs(values), share=1.0) == 1e6
    assert fig_pe.colour_limit(np.zeros((4, 4))) == 1.0


def test_the_table_heatmap_sends_the_window_once_as_float32_with_its_first_position_and_dimension():
    window = pe_window(CFG, 10, 30, 4, 12).numpy()
    fig = fig_pe.pe_heatmap_figure(window, pos_start=10, dim_start=4).to_dict()
    (heatmap,) = fig["data"]
    assert heatmap["type"] == "heatmap" and dtype(heatmap["z"]) == "f4"
    np.testing.assert_allclose(array(heatmap["z"]), reference_pe(np.arange(10, 30), 16)[:, 4:12], atol=1e-6)
    assert (heatmap["x0"], heatmap["dx"], heatmap["y0"], heatmap["dy"]) == (4, 1, 10, 1)
    assert "x" not in heatmap and "y" not in heatmap  # no coordinate arrays beside the values


def test_the_table_heatmap_has_a_symmetric_diverging_scale_and_names_the_cell_under_the_pointer():
    (heatmap,) = fig_pe.pe_heatmap_figure(np.zeros((3, 4), np.float32)).to_dict()["data"]
    assert (heatmap["zmin"], heatmap["zmax"]) == (-1.0, 1.0)  # sin and cos: zero in the middle of the scale
    assert heatmap["colorscale"][0][1] != heatmap["colorscale"][-1][1] and heatmap["reversescale"] is True
    assert [c for _, c in heatmap["colorscale"]][len(heatmap["colorscale"]) // 2] == "rgb(247,247,247)"  # RdBu
    assert heatmap["hovertemplate"] == "%{y}<br>i = %{x}<br>%{z:.4f}<extra></extra>"
    assert heatmap["colorbar"]["ticklabeloverflow"] == "allow"


def test_a_learned_table_takes_its_own_symmetric_limit():
    table = np.random.default_rng(1).normal(scale=3, size=(20, 8)).astype(np.float32)
    (heatmap,) = fig_pe.pe_heatmap_figure(table, zmax=None).to_dict()["data"]
    assert heatmap["zmax"] == pytest.approx(fig_pe.colour_limit(table)) and heatmap["zmin"] == -heatmap["zmax"]
    assert heatmap["zmax"] < np.abs(table).max()


def test_the_table_layout_puts_position_0_on_top_and_titles_the_axes():
    layout = fig_pe.pe_heatmap_figure(np.zeros((3, 4)), title="PE", axis_titles=("dim", "pos")).to_dict()["layout"]
    assert layout["title"]["text"] == "PE"
    assert layout["xaxis"]["title"]["text"] == "dim" and layout["yaxis"]["title"]["text"] == "pos"
    assert layout["yaxis"]["autorange"] == "reversed"
    assert layout["xaxis"]["automargin"] is False and layout["yaxis"]["automargin"] is False
    assert layout["margin"] == {"l": 70, "r": 10, "t": 40, "b": 50}
    assert layout["xaxis"]["ticklabeloverflow"] == "allow" == layout["yaxis"]["ticklabeloverflow"]


def test_labelled_rows_name_each_row_and_grow_the_chart_with_them():
    tokens = ["0: the", "1: cat", "2: sat"]
    fig = fig_pe.pe_heatmap_figure(np.ones((3, 5)), row_labels=tokens, zmax=None).to_dict()
    (heatmap,) = fig["data"]
    assert heatmap["y"] == tokens and "y0" not in heatmap
    assert fig["layout"]["height"] == 180  # at least 180 px
    assert fig["layout"]["yaxis"]["title"]["text"] == ""  # the labels say what the rows are
    assert "automargin" not in fig["layout"]["yaxis"]  # labels of any length get their room
    many = [f"{k}: w" for k in range(20)]
    assert fig_pe.pe_heatmap_figure(np.ones((20, 5)), row_labels=many).to_dict()["layout"]["height"] == 40 + 22 * 20


def test_curves_are_one_line_per_dimension_from_the_first_position():
    dims = [0, 1, 6]
    curves = pe_columns(CFG, 5, 45, dims).numpy()
    fig = fig_pe.pe_curves_figure(curves, 5, dims, titles=("curves", "position", "value")).to_dict()
    assert [t["type"] for t in fig["data"]] == ["scatter"] * 3
    assert [t["name"] for t in fig["data"]] == ["i = 0", "i = 1", "i = 6"]
    expected = reference_pe(np.arange(5, 45), 16)[:, dims]
    for j, trace in enumerate(fig["data"]):
        assert dtype(trace["y"]) == "f4" and (trace["x0"], trace["dx"], trace["mode"]) == (5, 1, "lines")
        np.testing.assert_allclose(array(trace["y"]), expected[:, j], atol=1e-6)
        assert trace["hovertemplate"] == f"i = {dims[j]}<br>pos %{{x}}<br>%{{y:.4f}}<extra></extra>"
    layout = fig["layout"]
    assert [layout["title"]["text"], layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]] == [
        "curves",
        "position",
        "value",
    ]


def test_wavelength_and_frequency_are_two_lines_on_a_log_axis():
    lam = wavelengths(16).numpy()
    fig = fig_pe.wavelength_figure(lam).to_dict()
    wavelength, frequency = fig["data"]
    pairs = np.arange(8)
    omega = 10000.0 ** (-2 * pairs / 16)
    np.testing.assert_allclose(array(wavelength["y"]), 2 * np.pi / omega, rtol=1e-6)
    np.testing.assert_allclose(array(frequency["y"]), omega / (2 * np.pi), rtol=1e-6)
    assert [t["name"] for t in fig["data"]] == ["wavelength 2π/ω_i", "frequency ω_i/2π"]
    assert all((t["x0"], t["dx"], t["mode"]) == (0, 1, "lines") for t in fig["data"])
    assert fig["layout"]["yaxis"]["type"] == "log" and fig["layout"]["yaxis"]["exponentformat"] == "power"
    assert fig["layout"]["xaxis"]["title"]["text"] == "pair i (columns 2i and 2i+1)"
    named = fig_pe.wavelength_figure(lam, ("t", "x", "y"), ("波长", "频率")).to_dict()
    assert [t["name"] for t in named["data"]] == ["波长", "频率"] and named["layout"]["title"]["text"] == "t"


def test_similarity_is_a_square_from_the_first_position_on_both_axes():
    rows = pe_window(CFG, 20, 30)
    sim = position_similarity(rows, "cosine").numpy()
    fig = fig_pe.similarity_figure(sim, 20, "cosine").to_dict()
    (heatmap,) = fig["data"]
    reference = reference_pe(np.arange(20, 30), 16)
    unit = reference / np.linalg.norm(reference, axis=1, keepdims=True)
    np.testing.assert_allclose(array(heatmap["z"]), unit @ unit.T, atol=1e-6)
    assert (heatmap["x0"], heatmap["dx"], heatmap["y0"], heatmap["dy"]) == (20, 1, 20, 1)
    assert heatmap["colorscale"][0][1] == "#440154"  # Viridis: a sequential scale for a similarity
    assert heatmap["hovertemplate"] == "m %{x}, n %{y}<br>cosine %{z:.3f}<extra></extra>"
    layout = fig["layout"]
    assert layout["title"]["text"] == "cosine similarity PE[m] · PE[n]"
    assert (layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]) == ("position m", "position n")
    assert layout["yaxis"]["autorange"] == "reversed"
    dot = fig_pe.similarity_figure(sim, 0, "dot", ("点积", "m", "n")).to_dict()
    assert dot["layout"]["title"]["text"] == "点积" and "<br>dot %{z:.3f}" in dot["data"][0]["hovertemplate"]


def test_offset_curves_are_one_dashed_line_per_reference_from_offset_0():
    references = [0, 7, 30]
    curves = dot_by_offset(CFG, references, 20).numpy()
    fig = fig_pe.offset_figure(curves, references).to_dict()
    assert [t["name"] for t in fig["data"]] == ["n = 0", "n = 7", "n = 30"]
    assert [t["line"]["dash"] for t in fig["data"]] == ["solid", "dot", "dash"]  # lines that coincide stay visible
    for trace, n in zip(fig["data"], references, strict=True):
        rows = reference_pe(np.arange(n, n + 21), 16)
        np.testing.assert_allclose(array(trace["y"]), rows @ rows[0], atol=1e-5)
        assert (trace["x0"], trace["dx"]) == (0, 1)
    assert fig["layout"]["xaxis"]["title"]["text"] == "offset k"
    assert fig["layout"]["yaxis"]["title"]["text"] == "PE[n] · PE[n+k]"


def test_the_difference_heatmap_runs_to_the_largest_magnitude_either_side_of_zero():
    values = np.array([[0.0, -0.5], [0.25, 0.1]], np.float32)
    (heatmap,) = fig_pe.difference_figure(values, 3, 7, ("B − A", "i", "pos")).to_dict()["data"]
    np.testing.assert_array_equal(array(heatmap["z"]), values)
    assert (heatmap["zmin"], heatmap["zmax"], heatmap["y0"], heatmap["x0"]) == (-0.5, 0.5, 3, 7)
    (same,) = fig_pe.difference_figure(np.zeros((2, 2)), 0, 0).to_dict()["data"]
    assert (same["zmin"], same["zmax"]) == (-1.0, 1.0)  # A and B agree: a scale, not a division by zero
