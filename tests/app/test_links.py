"""Shareable links: every page's settings go into the URL and come back exactly; bad parameters get a notice."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.app import APP
from ui import SETTINGS

# A value other than the default for every setting of every page (the test fails when a page gains a setting
# that is missing here).
SHARED = {
    "lessons/positional_encoding.py": dict(
        pe_chapter="checks",
        pe_d_model=64,
        pe_max_len=2000,
        pe_base="500",
        pe_layout="concatenated",
        pe_dims="0, 1",
        pe_pos_span=50,
        pe_dim_span=32,
        pe_curve_span=200,
        pe_sim_span=50,
        pe_sim_metric="cosine",
        pe_shift_k=3,
        pe_pos_start=100,
        pe_dim_start=16,
        pe_curve_start=10,
        pe_sim_start=20,
    ),
    "lessons/word_embeddings.py": dict(
        we_words="cat, dog",
        we_pca_dims="3D",
        we_pca_fit="frequent",
        we_background=5000,
        we_a="paris",
        we_b="france",
        we_c="rome",
        we_nn_word="king",
        we_nn_k=5,
        we_nn_metric="euclidean",
        we_x_from="bad",
        we_x_to="good",
        we_y_from="small",
        we_y_to="big",
        we_eval_restrict=10_000,
        we_eval_set="upload",
    ),
    "lessons/embedding_space.py": dict(
        es_size=1000,
        es_words="cat, dog",
        es_method="t-SNE",
        es_dims="3D",
        es_perplexity=20,
        es_learning_rate=200,
        es_iterations=500,
        es_n_neighbors=10,
        es_min_dist=0.25,
        es_seed=3,
        es_groups=["family", "numbers"],
        es_own_groups="fruit: apple, pear\ncolours: red blue",
        es_find="queen",
        es_k=5,
        es_isolate=True,
    ),
    "lessons/learned_vs_sinusoidal.py": dict(
        lv_task="reverse",
        lv_shift=2,
        lv_d_model=32,
        lv_train_len=8,
        lv_steps=100,
        lv_lr="1e-2",
        lv_seed=4,
        lv_test_len=24,
    ),
    "lessons/input_layer.py": dict(
        il_mode="random",
        il_sentence="I love you",
        il_pair="He eats",
        il_scale=False,
        il_position="learned",
        il_d_model=32,
        il_max_len=16,
        il_dropout=0.2,
        il_train=True,
        il_init="xavier",
        il_vocab=1000,
        il_tie_d=256,
    ),
    "lessons/rotary.py": dict(
        rp_head_dim=64,
        rp_base="500000",
        rp_pair=3,
        rp_positions=32,
        rp_factor=8.0,
        rp_original=8192,
        rp_target=65536,
        rp_low_freq=2.0,
        rp_high_freq=8.0,
        rp_distance=1024,
        rp_seed=2,
        rp_heads=12,
        rp_head=5,
        rp_alibi_len=64,
    ),
}


def open_link(page: str, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(page)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("page", list(SHARED))
def test_every_setting_goes_into_the_url_and_comes_back_exactly(page):
    at = open_link(page, {})
    assert set(SHARED[page]) == at.session_state[SETTINGS], "a setting of the page has no example here"
    assert dict(at.query_params) == {}  # defaults only: a short URL
    for key, value in SHARED[page].items():
        at.session_state[key] = value
    at.run()
    link = dict(at.query_params)
    assert len(link) == len(SHARED[page])  # every changed setting is in the URL
    reopened = open_link(page, link)
    assert not reopened.warning or "ignored" not in reopened.warning[0].value
    for key, value in SHARED[page].items():
        assert reopened.session_state[key] == value, key


def test_unknown_out_of_range_and_malformed_parameters_are_ignored_with_a_notice():
    at = open_link(
        "lessons/embedding_space.py",
        dict(size="7", k="0", isolate="maybe", seed="x", groups="animals,planets", colour="red", words="cat"),
    )
    notice = at.warning[0].value
    for part in ("size=7", "k=0", "isolate=maybe", "seed=x", "groups=animals,planets", "colour=red"):
        assert part in notice
    assert "seed=x (malformed)" in notice  # the reason in the reader's language, not Python's
    assert at.session_state["es_size"] == 5000 and at.session_state["es_k"] == 10
    assert at.session_state["es_words"] == "cat"  # the valid part of the link still applies


def test_the_sidebar_offers_the_link_to_copy():
    # the link itself is read in the browser (tests/browser); here: the control is in the sidebar, labelled
    at = open_link("lessons/rotary.py", dict(head_dim="64"))
    (control,) = [c for c in at.get("bidi_component") if c.proto.component_name == "share_link"]
    assert json.loads(control.proto.json) == {"label": "Share this view", "copy": "Copy", "copied": "Copied"}
    assert any("copy it with the button" in c.value for c in at.sidebar.caption)


def test_back_to_an_earlier_view_restores_it_and_nothing_else_does(monkeypatch):
    at = open_link("lessons/rotary.py", {})
    default_pair = at.session_state["rp_pair"]
    at.session_state["rp_head_dim"] = 64
    at.run()
    earlier = dict(at.query_params)
    at.session_state["rp_pair"] = 3
    at.run()
    now = dict(at.query_params)
    assert now == {"head_dim": "64", "pair": "3"}

    def ask_for(address: dict, *, back: bool) -> None:
        monkeypatch.setattr("ui.history_navigation", lambda: back)
        at.query_params.clear()
        at.query_params.update(address)
        at.run()

    ask_for(earlier, back=False)  # a click whose request left before the newer URL arrived: not Back
    assert at.session_state["rp_pair"] == 3 and dict(at.query_params) == now
    ask_for(earlier, back=True)
    assert at.session_state["rp_pair"] == default_pair and at.session_state["rp_head_dim"] == 64
    assert dict(at.query_params) == earlier
    ask_for({"d_model": "64"}, back=True)  # an address the page never wrote, such as another page's settings
    assert at.session_state["rp_head_dim"] == 64 and not at.warning  # kept, and no notice
    assert dict(at.query_params) == earlier
