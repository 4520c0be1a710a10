"""figures.cloud through fig.to_dict(): every point drawn once, in the trace of its role, at its coordinates."""

from typing import TypedDict

import numpy as np
import pytest

from figures.cloud import GROUP_COLORS, LEGEND, cloud_figure, labels_figure
from tests.figures.plotly_json import array

N = 40
WORDS = [f"w{i}" for i in range(N)]


class Roles(TypedDict):
    """cloud_figure's roles, as keyword arguments."""

    chosen: list[int]
    groups: dict[str, list[int]]
    found: int
    neighbours: list[int]


ROLES = Roles(chosen=[1, 2, 3], groups={"g": [3, 4, 5], "h": [7]}, found=2, neighbours=[5, 6])


def coords(dims: int) -> np.ndarray:
    return np.random.default_rng(dims).normal(size=(N, dims)).astype(np.float32)


def by_role(fig: dict) -> dict[str, dict]:
    return {t["meta"]: t for t in fig["data"]}


def test_each_role_is_a_trace_in_drawing_order_with_the_last_role_a_point_has():
    fig = cloud_figure(coords(2), WORDS, **ROLES).to_dict()
    assert [t["meta"] for t in fig["data"]] == ["cloud", "g", "h", "chosen", "neighbours", "found"]
    assert {t["type"] for t in fig["data"]} == {"scattergl"}  # WebGL: thousands of points
    traces = by_role(fig)
    # found beats neighbour beats chosen beats group
    assert traces["found"]["hovertext"] == ["w2"]
    assert traces["neighbours"]["hovertext"] == ["w5", "w6"]
    assert traces["chosen"]["hovertext"] == ["w1", "w3"]
    assert traces["g"]["hovertext"] == ["w4"] and traces["h"]["hovertext"] == ["w7"]
    drawn = [w for t in fig["data"] for w in t["hovertext"]]
    assert sorted(drawn) == sorted(WORDS)  # every point exactly once


def test_each_point_sits_at_its_own_coordinates_and_hovers_its_word():
    xy = coords(2)
    fig = cloud_figure(xy, WORDS, **ROLES).to_dict()
    for trace in fig["data"]:
        rows = [WORDS.index(w) for w in trace["hovertext"]]
        np.testing.assert_array_equal(array(trace["x"]), xy[rows, 0])
        np.testing.assert_array_equal(array(trace["y"]), xy[rows, 1])
        assert "z" not in trace and trace["hoverinfo"] == "text"


def test_only_the_highlighted_points_are_labelled_and_coloured():
    traces = by_role(cloud_figure(coords(2), WORDS, **ROLES).to_dict())
    cloud = traces["cloud"]
    assert cloud["mode"] == "markers" and "text" not in cloud  # 30-odd thousand labels would hide the cloud
    assert cloud["marker"] == {"color": "#b0b0b0", "size": 3}
    for role in ("g", "h", "chosen", "neighbours", "found"):
        assert traces[role]["mode"] == "markers+text" and traces[role]["text"] == traces[role]["hovertext"]
    assert [traces["g"]["marker"]["color"], traces["h"]["marker"]["color"]] == list(GROUP_COLORS[:2])
    assert traces["chosen"]["marker"]["color"] == "#000000"
    assert traces["neighbours"]["marker"]["color"] == "#ff7f0e"
    assert traces["found"]["marker"] == {"color": "#d62728", "size": 16, "symbol": "star"}


def test_legend_names_count_the_plain_cloud_and_take_translated_text():
    fig = cloud_figure(coords(2), WORDS, **ROLES).to_dict()
    names = {t["meta"]: t["name"] for t in fig["data"]}
    plain = N - 7  # rows 1..7 have a role
    assert names == {
        "cloud": LEGEND["cloud"].format(n=plain),
        "g": "g",
        "h": "h",
        "chosen": "chosen words",
        "neighbours": "neighbours",
        "found": "found",
    }
    zh = dict(cloud="词云（{n:,}）", chosen="所选词", neighbours="近邻", found="找到的词")
    translated = cloud_figure(coords(2), WORDS, **ROLES, legend=zh).to_dict()
    assert [t["name"] for t in translated["data"]] == [f"词云（{plain}）", "g", "h", "所选词", "近邻", "找到的词"]
    assert [t["meta"] for t in translated["data"]] == list(names)  # roles stay English for the tests and the page
    big = cloud_figure(np.zeros((1234, 2), np.float32), [str(i) for i in range(1234)]).to_dict()
    assert big["data"][0]["name"] == "cloud (1,234)"


def test_the_2d_layout_keeps_zoom_across_reruns_and_titles_its_axes():
    layout = cloud_figure(coords(2), WORDS, axis_titles=("PCA 1", "PCA 2"), revision="pca-5000").to_dict()["layout"]
    assert layout["uirevision"] == "pca-5000"
    assert layout["xaxis"]["title"]["text"] == "PCA 1" and layout["yaxis"]["title"]["text"] == "PCA 2"
    assert layout["legend"]["itemsizing"] == "constant"  # legend markers readable although the cloud's are tiny
    assert "scene" not in layout


def test_three_columns_draw_a_3d_scene_with_z_and_its_axis_titles():
    xyz = coords(3)
    fig = cloud_figure(xyz, WORDS, **ROLES, axis_titles=("a", "b", "c")).to_dict()
    assert {t["type"] for t in fig["data"]} == {"scatter3d"}
    for trace in fig["data"]:
        rows = [WORDS.index(w) for w in trace["hovertext"]]
        np.testing.assert_array_equal(np.stack([array(trace[a]) for a in "xyz"], 1), xyz[rows])
    assert by_role(fig)["found"]["marker"]["symbol"] == "diamond"  # scatter3d has no star
    scene = fig["layout"]["scene"]
    assert [scene[f"{a}axis"]["title"]["text"] for a in "xyz"] == ["a", "b", "c"]
    assert "xaxis" not in fig["layout"]


def test_isolate_draws_only_the_found_word_and_its_neighbours():
    fig = cloud_figure(coords(2), WORDS, **ROLES, isolate=True).to_dict()
    assert [(t["meta"], t["hovertext"]) for t in fig["data"]] == [("neighbours", ["w5", "w6"]), ("found", ["w2"])]


@pytest.mark.parametrize("dims", [2, 3])
def test_without_labels_the_cloud_leaves_them_to_a_figure_of_labels_alone(dims):
    """Issue 41, 4b: WebGL draws a trace's labels over every point of the traces before it, so the groups' labels
    covered the found word and its neighbours drawn over them: the cloud is drawn without them, and its labels are
    a figure of their own, drawn over it only while no word is found."""
    xy = coords(dims)
    bare = by_role(cloud_figure(xy, WORDS, chosen=[1, 2, 3], groups=ROLES["groups"], labels=False).to_dict())
    assert all(t["mode"] == "markers" and "text" not in t for t in bare.values())
    assert bare["g"]["hovertext"] == ["w4", "w5"]  # the words stay in the hover
    labels = labels_figure(xy, WORDS, chosen=[1, 2, 3], groups=ROLES["groups"]).to_dict()["data"]
    assert [t["meta"] for t in labels] == ["labels:g", "labels:h", "labels:chosen"]
    assert [t["text"] for t in labels] == [["w4", "w5"], ["w7"], ["w1", "w2", "w3"]]  # each word once, its role's
    for trace, role in zip(labels, ["g", "h", "chosen"], strict=True):
        assert trace["mode"] == "text" and trace["hoverinfo"] == "skip" and trace["showlegend"] is False
        for axis in "xyz"[:dims]:
            np.testing.assert_array_equal(array(trace[axis]), array(bare[role][axis]))  # on the points they name
    found = cloud_figure(xy[[2, 5]], ["w2", "w5"], found=0, neighbours=[1], isolate=True).to_dict()["data"]
    assert [t["mode"] for t in found] == ["markers+text", "markers+text"]  # a find keeps its labels


def test_no_search_draws_no_neighbours_or_found_trace():
    fig = cloud_figure(coords(2), WORDS, chosen=[0]).to_dict()
    assert [t["meta"] for t in fig["data"]] == ["cloud", "chosen"]
    assert len(fig["data"][0]["hovertext"]) == N - 1


@pytest.mark.parametrize("n_groups", [8, 9, 33])
def test_every_group_is_drawn_however_many_a_learner_types(n_groups):
    # the page's own-groups box takes any number of "name: words" lines
    groups = {f"group {k}": [k] for k in range(n_groups)}
    fig = cloud_figure(coords(2), WORDS, groups=groups).to_dict()
    drawn = [t for t in fig["data"] if t["meta"].startswith("group")]
    assert [t["meta"] for t in drawn] == list(groups)
    assert sorted(w for t in fig["data"] for w in t["hovertext"]) == sorted(WORDS)
    assert [t["marker"]["color"] for t in drawn] == [GROUP_COLORS[k % len(GROUP_COLORS)] for k in range(n_groups)]
