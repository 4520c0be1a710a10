"""figures.rotary through fig.to_dict(): the rotating pair on the unit circle, and ALiBi's causal bias."""

import numpy as np

from core.rotary import alibi_bias, rope_inv_freq
from figures.rotary import ab_figure, alibi_figure, rotation_figure
from tests.figures.plotly_json import array


def test_the_rotation_puts_position_m_at_angle_m_theta_on_the_unit_circle():
    theta = rope_inv_freq(64, 10000.0)[3].item()
    angles = np.arange(12) * theta
    fig = rotation_figure(angles, "Pair 3", "position m").to_dict()
    (points,) = fig["data"]
    assert points["type"] == "scatter" and points["mode"] == "markers+lines"
    turn = np.exp(1j * theta * np.arange(12))  # the same points as complex numbers
    np.testing.assert_allclose(array(points["x"]), turn.real, atol=1e-12)
    np.testing.assert_allclose(array(points["y"]), turn.imag, atol=1e-12)
    np.testing.assert_allclose(np.hypot(array(points["x"]), array(points["y"])), 1.0)


def test_the_rotation_colours_and_names_each_point_by_its_position():
    (points,) = rotation_figure(np.linspace(0, 3, 7), "t", "位置 m").to_dict()["data"]
    np.testing.assert_array_equal(array(points["marker"]["color"]), np.arange(7))
    assert points["marker"]["colorscale"][0][1] == "#440154"  # Viridis
    assert points["marker"]["colorbar"]["title"]["text"] == "位置 m"
    assert points["text"] == [str(m) for m in range(7)]
    assert points["hovertemplate"] == "m = %{text}<extra></extra>"


def test_the_rotation_is_drawn_in_a_square_around_the_circle():
    layout = rotation_figure(np.zeros(3), "Pair 0").to_dict()["layout"]
    assert layout["title"]["text"] == "Pair 0"
    assert layout["xaxis"]["range"] == [-1.2, 1.2] == layout["yaxis"]["range"]
    assert layout["yaxis"]["scaleanchor"] == "x"  # a circle, not an ellipse
    assert (layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]) == ("cos", "sin")


def test_the_guide_circle_is_drawn_even_when_every_point_is_on_one_dot():
    """Issue 41, 4g: head_dim 64, base 500000, pair 28: the points' connecting line was the only circle."""
    theta = rope_inv_freq(64, 500000.0)[28].item()
    layout = rotation_figure(np.arange(64) * theta, "Pair 28").to_dict()["layout"]
    (circle,) = layout["shapes"]
    assert circle["type"] == "circle" and circle["layer"] == "below"
    assert (circle["x0"], circle["y0"], circle["x1"], circle["y1"]) == (-1, -1, 1, 1)  # the unit circle


def test_alibi_shows_minus_slope_times_distance_below_the_diagonal_and_blank_above():
    slope, length = 0.25, 6
    fig = alibi_figure(alibi_bias(slope, length).numpy(), "ALiBi", ("key", "query")).to_dict()
    (heatmap,) = fig["data"]
    z = array(heatmap["z"])
    i, j = np.indices((length, length))
    np.testing.assert_allclose(z[i >= j], (-slope * (i - j))[i >= j])
    assert np.isnan(z[i < j]).all()  # masked keys: no colour at all, rather than -inf
    assert heatmap["type"] == "heatmap" and heatmap["colorscale"][-1][1] == "rgb(247,251,255)"  # Blues_r
    assert heatmap["hovertemplate"] == "i = %{y}, j = %{x}<br>%{z:.3f}<extra></extra>"
    layout = fig["layout"]
    assert layout["title"]["text"] == "ALiBi" and layout["yaxis"]["autorange"] == "reversed"
    assert (layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]) == ("key", "query")


def test_a_against_b_draws_a_dashed_and_b_solid_one_colour_per_curve():
    a = {"wavelength": np.array([1.0, 10.0, 100.0]), "ratio": np.array([1.0, 1.0, 1.0])}
    b = {"wavelength": np.array([2.0, 20.0, 200.0]), "ratio": np.array([2.0, 2.0, 2.0])}
    fig = ab_figure(a, b, "A against B", "pair", "wavelength", log_y=True).to_dict()
    names = [trace["name"] for trace in fig["data"]]
    assert names == ["A: wavelength", "A: ratio", "B: wavelength", "B: ratio"]
    dashes = [trace["line"]["dash"] for trace in fig["data"]]
    assert dashes == ["dash", "dash", "solid", "solid"]
    colours = [trace["line"]["color"] for trace in fig["data"]]
    assert colours[0] == colours[2] and colours[1] == colours[3] and colours[0] != colours[1]
    for trace, values in zip(fig["data"], [*a.values(), *b.values()], strict=True):
        np.testing.assert_array_equal(array(trace["y"]), values.astype(np.float32))
        assert trace["x0"] == 0 and trace["dx"] == 1
    assert fig["layout"]["yaxis"]["type"] == "log" and fig["layout"]["title"]["text"] == "A against B"
    assert fig["layout"]["xaxis"]["title"]["text"] == "pair" and fig["layout"]["yaxis"]["title"]["text"] == "wavelength"
