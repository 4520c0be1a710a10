"""The embedding-space page's honesty measures in AppTest: neighbours kept and trustworthiness of the cloud drawn, in
the rerun for a small cloud, as a shared background job for a large one, and both as k grows."""

import threading

import pytest

from core import trustworthiness as trust_module
from core.neighbours import honesty_curve, preservation
from core.projection import pca
from core.trustworthiness import trustworthiness
from lessons.embedding_space import honesty
from tests.app import open_link
from tests.app.embedding_space_view import (
    PAGE,
    chart,
    curve_panels,
    drawn,
    metrics,
    plots,
    progress_texts,
    run_until_done,
    stated,
)
from ui.jobs import job_runner
from ui.vectors import bundled_vectors


@pytest.fixture
def at(open_page):
    return open_page(PAGE)


def test_the_projection_says_how_many_neighbours_it_kept_and_how_trustworthy_it_is(at):
    at.select_slider(key="es_size").set_value(500).run()
    at.text_input(key="es_words").set_value("").run()
    at.multiselect(key="es_groups").set_value([]).run()
    x = bundled_vectors().vectors[:500].numpy()
    y = pca(x, 2).coords
    assert metrics(at) == {
        "Neighbours kept (k = 10)": f"{preservation(x, y, 10).mean:.1%}",
        "Trustworthiness (k = 10)": f"{trustworthiness(x, y, 10):.3f}",
    }
    at.number_input(key="es_kept_k").set_value(3).run()
    assert metrics(at)["Neighbours kept (k = 3)"] == f"{preservation(x, y, 3).mean:.1%}"
    assert not at.exception and not at.error and not at.warning


def test_the_colour_toggle_colours_every_point_by_neighbours_kept(at):
    at.toggle(key="es_colour_kept").set_value(True).run()
    (points,) = chart(at)["data"]
    assert len(points["text"]) == stated(at) and (points["marker"]["cmin"], points["marker"]["cmax"]) == (0, 10)
    assert points["text"][0].startswith("the: ") and points["text"][0].endswith("/10")
    assert next(c.value for c in at.caption if c.value.startswith("Drawn")).startswith("Drawn: 5,010 points")
    at.toggle(key="es_colour_kept").set_value(False).run()
    assert "chosen" in {t["meta"] for t in chart(at)["data"]}


def test_honesty_k_past_a_small_cloud_is_lowered_and_named_and_the_plot_stays(open_page, vectors_folder):
    at = open_page(PAGE)
    at.selectbox(key="es_source").select("tiny.txt").run()
    at.multiselect(key="es_groups").set_value([]).run()
    assert any("below half the points (at most 7 here); it is 10" in w.value for w in at.warning)
    at.number_input(key="es_kept_k").set_value(20).run()
    assert "The cloud has 15 points: k is 14 here" in at.info[0].value and not at.error
    assert list(metrics(at)) == ["Neighbours kept (k = 14)"]
    assert not at.exception and len(drawn(at)) == stated(at)


def test_the_curve_shows_both_measures_as_k_grows_for_the_method_drawn(at):
    at.select_slider(key="es_size").set_value(500).run()
    at.text_input(key="es_words").set_value("").run()
    at.multiselect(key="es_groups").set_value([]).run()
    x = bundled_vectors().vectors[:500].numpy()
    curve = honesty_curve(x, pca(x, 2).coords)
    panels = curve_panels(at)
    assert list(panels) == ["PCA 2D"]
    assert panels["PCA 2D"]["trustworthiness"] == pytest.approx(list(curve.trust.values()))
    assert panels["PCA 2D"]["neighbours kept"] == pytest.approx(list(curve.kept.values()))
    notice = next(c.value for c in at.caption if c.value.startswith("Notice where each line starts"))
    assert "Not drawn on this cloud yet: t-SNE / UMAP." in notice
    at.toggle(key="es_curve").set_value(False).run()
    assert not any("annotations" in f["layout"] for f in plots(at)) and not at.exception


def test_a_large_cloud_is_measured_in_a_background_job_shared_by_every_learner(open_page, monkeypatch):
    # A cloud above honesty.INLINE_MOST points is measured as a job: here the bound is lowered to the smallest cloud.
    monkeypatch.setattr(honesty, "INLINE_MOST", 400)
    gate, calls, ranked = threading.Event(), [], trust_module.trustworthiness

    def held(*args, **kwargs):  # the measure runs until the test lets it end
        calls.append(1)
        assert gate.wait(120)
        return ranked(*args, **kwargs)

    monkeypatch.setattr(trust_module, "trustworthiness", held)
    view = {"es_size": "500", "es_words": "", "es_groups": "", "es_kept_k": "9"}  # "": none; k 9: no other test's
    at = open_link(PAGE, view)
    try:
        assert not metrics(at) and len(drawn(at)) == stated(at) == 500  # the plot does not wait for the measure
        assert any(text.startswith("Trustworthiness (k = 9): ") for text in progress_texts(at)), progress_texts(at)
        assert any(text.startswith("PCA 2D as k grows: waiting for 1 other") for text in progress_texts(at))
    finally:
        gate.set()
    run_until_done(at)
    assert not at.exception and not at.error and not at.get("progress")
    x = bundled_vectors().vectors[:500].numpy()
    y = pca(x, 2).coords
    expected = {
        "Neighbours kept (k = 9)": f"{preservation(x, y, 9).mean:.1%}",
        "Trustworthiness (k = 9)": f"{ranked(x, y, 9):.3f}",
    }
    assert metrics(at) == expected and list(curve_panels(at)) == ["PCA 2D"]
    second = open_link(PAGE, view)  # another learner: the result is there at once, nothing is measured again
    assert metrics(second) == expected and not second.get("progress") and len(calls) == 1
    assert job_runner("honesty").waiting() == 0
