"""Shareable links: every page's settings go into the URL and come back exactly; bad parameters get a notice."""

import json
from pathlib import Path

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from core.positional import PEConfig
from core.rotary import RopeConfig
from lessons import declared, link_kinds
from tests.app import open_link, wait_for_job
from ui.compare import encode
from ui.i18n import escaped
from ui.pages import PATH
from ui.settings import Setting, Settings

PE = "lessons/positional_encoding/positional_encoding.py"
ROTARY = "lessons/rotary/rotary.py"
ATTENTION = "lessons/attention/attention.py"
LV = "lessons/learned_vs_sinusoidal/learned_vs_sinusoidal.py"
PAGES = [lesson.script for lesson in PATH]

# A value other than the default for the settings whose declaration (lessons/<lesson>/settings.py) cannot give one: a
# number's or a text's, a pinned A's, or a choice that shows more of the page (a chapter with more settings drawn).
# The other settings' values are derived from their declaration (`derived`).
EXAMPLES = {
    PE: dict(
        pe_chapter="checks",
        pe_d_model=64,
        pe_max_len=2000,
        pe_base="500",
        pe_dims="0, 1",
        pe_shift_k=3,
        pe_pos_start=100,
        pe_dim_start=16,
        pe_curve_start=10,
        pe_sim_start=20,
        pe_a=encode(PEConfig(d_model=32)),
    ),
    ROTARY: dict(
        rp_head_dim=64,
        rp_base="500000",
        rp_method="yarn",
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
        rp_a=encode(RopeConfig(head_dim=32)),
    ),
    ATTENTION: dict(
        at_chapter="distance",
        at_sentence="a dog ran",
        at_tokens=6,
        at_d_model=32,
        at_head_dim=8,
        at_seed=3,
        at_shift=5,
        at_trained_len=12,
        at_base=500.0,
        at_alibi_heads=4,
        at_alibi_head=2,
        at_t5_buckets=16,
        at_t5_max=64,
        at_query=2,
        at_key=3,
        at_query_pos=20,
        at_max_distance=32,
    ),
    LV: dict(
        lv_task="reverse",
        lv_shift=2,
        lv_train_len=8,
        lv_steps=100,
        lv_lr="1e-2",
        lv_seed=4,
        lv_test_len=24,
    ),
    # Examples chosen by hand where a derived one (tests.app.test_links.derived) would show less.
    "lessons/word_embeddings/word_embeddings.py": dict(
        we_words="cat, dog",
        we_pca_dims="3D",
        we_pca_fit=True,
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
    ),
    "lessons/embedding_space/embedding_space.py": dict(
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
        es_kept_k=5,
        es_colour_kept=True,
        es_curve=False,
        es_sweep="5, 50",
    ),
    "lessons/text_to_tokens/text_to_tokens.py": dict(
        tt_sentence="I love you",
        tt_lang="zh",
        tt_words=1000,
        tt_merges=300,
        tt_step=7,
        tt_cut="bpe",
    ),
    "lessons/input_layer/input_layer.py": dict(
        il_mode="random",
        il_sentence="I love you",
        il_pair="He eats",
        il_scale=False,
        il_position="learned",
        il_d_model=32,
        il_max_len=16,
        il_dropout=0.2,
        il_train=True,
        il_from="bytes",
        il_init="xavier",
        il_vocab=1000,
        il_tie_d=256,
    ),
    "lessons/real_transformer/real_transformer.py": dict(
        tf_chapter="positions",
        tf_sentence="A dog ran across the quiet street.",
        tf_pair="It was late.",
        tf_yours=True,
        tf_layer=2,
        tf_head=9,
        tf_seed=3,
        tf_word="river",
        tf_uses="The river was wide.\nWe swam in the river.",
        tf_k=5,
    ),
    "lessons/sentence_vectors/sentence_vectors.py": dict(
        sv_chapter="map",
        sv_sentences="a cat\na dog",
        sv_first="the man bit the dog",
        sv_second="the dog bit the man",
        sv_query="a song on the radio",
        sv_k=7,
        sv_space="glove",
        sv_method="UMAP",
        sv_kept_k=5,
    ),
}


def declaration(page: str) -> Settings | None:
    """The page's declared settings (None: the overview, or a page that declares none yet)."""
    return declared(Path(page).parent.name)


def derived(setting: Setting):
    """A value other than the default that the declaration gives: a toggle's other state, or another choice (the
    first that is not the default, so that it fits beside the other settings' defaults); None for a number or a
    text, whose example EXAMPLES holds."""
    if setting.widget in ("toggle", "checkbox"):
        return not setting.default
    if setting.widget != "window" or setting.options:  # a window's first index has no choices
        return next((o for o in setting.options if o != setting.default), None)
    return None


def examples(page: str) -> dict:
    """{key: a value other than its default} for every setting of the page the link holds."""
    settings = declaration(page)
    if settings is None:  # the overview: no settings
        return {}
    given = EXAMPLES.get(page, {})
    return {s.key: given[s.key] if s.key in given else derived(s) for s in settings if s.in_link}


SHARED = {page: examples(page) for page in PAGES}  # every page's, as the fuzz and value tests read them


def bound(at: AppTest) -> set[str]:
    """The keys of the widgets Streamlit binds to the link, on the page as drawn."""
    keys = (getattr(getattr(w, "proto", None), "query_param_key", "") for w in at.main)
    return {key for key in keys if key}


def in_link(value) -> str | list[str]:
    """A setting's value as a link writes it."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return str(value)


@pytest.mark.parametrize("page", PAGES)
def test_every_setting_of_a_page_comes_back_from_a_link(page):
    # Streamlit writes a bound widget's value into the address (tests/browser follow it there); here: a link with
    # every setting the page declares in its link changed opens the page with each of them, and names nothing as
    # ignored
    shared = SHARED[page]
    assert not [key for key, value in shared.items() if value is None], "a setting with no example in EXAMPLES"
    assert not set(EXAMPLES.get(page, {})) - set(shared), "an example for no setting of the page's link"
    at = open_link(page, {key: in_link(value) for key, value in shared.items()})
    assert not [w.value for w in at.warning if "ignored" in w.value]
    kinds = link_kinds(Path(page).parent.name)
    for key, value in shared.items():
        if kinds.get(key) == "pinned":  # ui.compare keeps A under its own key, in full
            assert at.session_state[f"_{key}"] == value, key
        elif key in at.session_state:
            assert at.session_state[key] == value, key
        else:  # not drawn in this view (another chapter, another method's settings): kept for when it is
            assert at.query_params[key] == in_link(value), key
    assert bound(at) <= set(shared), "a setting of the page has no example here"
    # ui.link.read_link knows a number box by the page's declaration (a box it did not know would let a link's inf
    # reach Streamlit)
    assert {w.key: "number_input" for w in at.number_input} == {
        w.key: kinds.get(w.key) if w.key is not None else None for w in at.number_input
    }
    assert not bound(open_link(page, {})) - set(shared)


WIDGETS = {  # AppTest's element lists, and the declared widgets each holds
    "number_input": ("number_input",),
    "slider": ("slider",),
    "select_slider": ("select_slider",),
    "text_input": ("text_input",),
    "text_area": ("text_area",),
    "toggle": ("toggle",),
    "checkbox": ("checkbox",),
    "selectbox": ("selectbox",),
    "radio": ("radio",),
    "multiselect": ("multiselect",),
    "button_group": ("segmented_control", "pills"),
}
DECLARED = [page for page in PAGES if declaration(page) is not None]
MORE_VIEWS = {  # choices besides the chapter that draw other settings
    ATTENTION: [("at_content", "random")],
    "lessons/embedding_space/embedding_space.py": [("es_method", "t-SNE"), ("es_method", "UMAP")],
}
JOB_FIRST = {"lessons/text_to_tokens/text_to_tokens.py": "tt_step"}  # page: a setting its first job draws
LATER = {"es_replay"}  # drawn once a job has run (tests/app/test_embedding_space.py moves it)


@pytest.mark.parametrize("page", DECLARED)
def test_a_page_draws_each_setting_as_it_declares_it(page):
    # every widget with a key the page draws (each chapter's) is declared, as the widget it is, and opens at its
    # declared default
    declared_here = declaration(page)
    assert declared_here is not None
    at = open_link(page, {})
    if page in JOB_FIRST:  # a slider drawn once the page's background job is done (a BPE training in a child process)
        key = JOB_FIRST[page]
        wait_for_job(at, lambda at: any(w.key == key for w in at.slider), f"{key}, drawn once the training is done")
    chapter = f"{declared_here.prefix}_chapter"
    views = [(chapter, c) for c in declared_here[chapter].options[1:]] if chapter in declared_here else []
    views += MORE_VIEWS.get(page, [])
    drawn: set[str] = set()
    for control, option in [(None, None), *views]:
        if control is not None:
            at.session_state[control] = option
            at.run()
            assert not at.exception, at.exception
        for elements, widgets in WIDGETS.items():
            for element in getattr(at, elements):
                if not (element.key or "").startswith(f"{declared_here.prefix}_") or element.key in drawn:
                    continue
                drawn.add(element.key)
                assert element.key in declared_here, f"{element.key}: drawn, not declared"
                setting = declared_here[element.key]
                assert setting.widget in widgets, (element.key, setting.widget, elements)
                if element.key not in (chapter, *(key for key, _ in MORE_VIEWS.get(page, []))):
                    value = list(element.value) if isinstance(element.value, list | tuple) else element.value
                    default = list(setting.default) if isinstance(setting.default, list | tuple) else setting.default
                    assert value == default, (element.key, element.value, setting.default)
    by_hand = {s.key for s in declared_here if s.widget in ("window", "pinned")}  # drawn by the PE page, ui.compare
    assert {s.key for s in declared_here} - by_hand - LATER - drawn == set(), "declared, never drawn"


NUMBERS = [  # (page, key) of every declared number box the link holds
    (page, s.key)
    for page in DECLARED
    for s in declaration(page) or ()
    if s.in_link and s.widget == "number_input" and page != LV  # the LV page: any number, no job started
]


@settings(max_examples=max(settings().max_examples // 20, 1), phases=(Phase.explicit, Phase.generate))
@given(
    setting=st.sampled_from(NUMBERS),
    number=st.one_of(st.integers(-(10**6), 10**6), st.floats(-1e6, 1e6).map(lambda x: round(x, 3))),
)
def test_a_declared_number_from_a_link_is_taken_or_named(setting, number):
    # a declared number box takes a number from the link, or the notice names it; the page shows no traceback
    page, key = setting
    text = str(number)
    at = open_link(page, {key: text})
    said = "\n".join(w.value for w in at.warning)
    if key in at.session_state:
        taken = float(at.session_state[key]) == pytest.approx(float(text))
        assert taken or f"{escaped(key)}={escaped(text)} (" in said, (key, text, at.session_state[key], said)
    else:  # another chapter's box: kept for when it is drawn
        assert at.query_params[key] == text


def test_unknown_out_of_range_malformed_and_repeated_parameters_are_named_in_a_notice():
    at = open_link(
        "lessons/embedding_space/embedding_space.py",
        dict(
            es_size="7",
            es_k="0",
            es_isolate="maybe",
            es_seed="x",
            es_colour="red",
            es_words="cat",
            es_dims=["2D", "3D"],
        ),
    )
    notice = at.warning[0].value
    for part in (
        "es_size=7",
        "es_k=0",
        "es_isolate=maybe",
        "es_seed=x",
        "es_colour=red (not a setting",
        "es_dims=3D (given 2",
    ):
        assert part in notice, part
    assert at.session_state["es_size"] == 5000 and at.session_state["es_k"] == 10
    assert at.session_state["es_words"] == "cat"  # the valid part of the link still applies
    assert "es_colour" not in at.query_params  # an unknown parameter leaves the address


def test_an_old_link_without_the_page_prefix_opens_the_same_view():
    at = open_link("lessons/rotary/rotary.py", dict(head_dim="64", base="500000", bogus="1"))
    assert at.session_state["rp_head_dim"] == 64 and at.session_state["rp_base"] == "500000"
    assert dict(at.query_params) == {"rp_head_dim": "64", "rp_base": "500000"}
    assert "bogus=1 (not a setting" in at.warning[0].value  # named as the link named it


def test_a_language_the_lab_does_not_have_is_named_and_english_shown():
    at = open_link("lessons/overview/overview.py", dict(lang="xx"))
    assert "lang=xx (not a value this setting takes" in at.warning[0].value and at.session_state["lang"] == "en"
    assert at.title[0].value.startswith("Overview")


def test_presenter_mode_is_in_the_link_and_a_bad_value_is_named():
    at = open_link("lessons/overview/overview.py", dict(present="true"))
    assert at.session_state["present"] is True and not at.warning
    at = open_link("lessons/overview/overview.py", dict(present="maybe"))
    assert at.session_state["present"] is False and "present=maybe" in at.warning[0].value


def test_the_sidebar_offers_the_link_to_copy():
    # the link itself is read in the browser (tests/browser); here: the control is in the sidebar, labelled
    at = open_link("lessons/rotary/rotary.py", dict(rp_head_dim="64"))
    (control,) = [c for c in at.get("bidi_component") if c.proto.component_name == "share_link"]
    assert json.loads(control.proto.json) == {"label": "Share this view", "copy": "Copy", "copied": "Copied"}
    assert any("copy it with the button" in c.value for c in at.sidebar.caption)


def notice(at: AppTest) -> str:
    """check_link's notice: what of the link was not used, and why."""
    said = [w.value for w in at.warning if w.value.startswith("Parts of the link were not used as given")]
    assert len(said) == 1, [w.value for w in at.warning]
    return said[0]


def test_streamlit_still_raises_on_an_infinite_number_for_a_whole_number_box():
    # Why ui.link.read_link takes such a value out of the link before any widget is drawn: Streamlit 1.67 seeds a
    # bound int st.number_input with int(float("inf")) and raises OverflowError (reported upstream: see
    # ui/link.py). When this test fails, Streamlit has fixed it and the guard may go.
    at = AppTest.from_string('import streamlit as st\nst.number_input("n", 1, 10, 5, key="n", bind="query-params")')
    at.query_params["n"] = "inf"
    at.run()
    assert at.exception and at.exception[0].message == "cannot convert float infinity to integer"


def test_a_number_no_box_takes_is_named_and_the_rest_of_the_link_is_used():
    # inf, -Infinity, 1e400 (inf once read) and nan in whole-number boxes; pe_shift_k's box is in another chapter
    at = open_link(
        "lessons/positional_encoding/positional_encoding.py",
        pe_d_model="inf",
        pe_max_len="-Infinity",
        pe_shift_k="1e400",
        pe_base="500",
        pe_pos_span="50",
    )
    said = notice(at)
    for part in ("pe_d_model=inf", "pe_max_len=-Infinity", "pe_shift_k=1e400"):
        assert f"{part} (not a value this setting takes" in said, part
    assert at.session_state["pe_d_model"] == 128 and at.session_state["pe_base"] == "500"
    assert at.session_state["pe_pos_span"] == 50
    assert dict(at.query_params) == {"pe_base": "500", "pe_pos_span": "50"}
    at.button_group(key="pe_chapter").set_value("checks").run()  # the box that was not drawn, drawn
    assert not at.exception and at.session_state["pe_shift_k"] == 5


def test_a_number_no_box_takes_is_named_on_the_attention_page_too():
    at = open_link("lessons/attention/attention.py", at_d_model="nan", at_query="inf", at_seed="+inf", at_head_dim="32")
    said = notice(at)
    for part in ("at_d_model=nan", "at_query=inf", "at_seed=+inf"):
        assert f"{part} (not a value this setting takes" in said, part
    assert at.session_state["at_head_dim"] == 32
    at.button_group(key="at_chapter").set_value("distance").run()
    assert not at.exception and at.session_state["at_query"] == 0


def test_a_setting_given_twice_is_named_and_its_default_used():
    # Streamlit would take the last of them; the notice says the default is used, and so it is
    at = open_link("lessons/rotary/rotary.py", rp_head_dim=["32", "64"], rp_base="500000")
    assert "rp_head_dim=64 (given 2 times" in notice(at)
    assert at.session_state["rp_head_dim"] == 128 and at.session_state["rp_base"] == "500000"
    assert "rp_head_dim" not in at.query_params


def test_a_pinned_a_given_twice_is_named_and_nothing_pinned():
    at = open_link("lessons/rotary/rotary.py", rp_a=["head_dim:64", "base:500"], rp_base="500000")
    assert "rp_a=base:500 (given 2 times" in notice(at)
    assert "rp_a" not in at.query_params and at.button(key="rp_a_pin")
    assert at.session_state["rp_base"] == "500000"


@pytest.mark.parametrize("text", ["", ";;;;", " ; "])
def test_a_pinned_a_that_names_no_setting_is_named_and_nothing_pinned(text):
    at = open_link("lessons/positional_encoding/positional_encoding.py", pe_a=text, pe_base="500000")
    (said,) = [w.value for w in at.warning if "pe_a=" in w.value]
    assert f"pe_a={text} were not used" in said and "names no setting" in said
    assert "pe_a" not in at.query_params and at.button(key="pe_a_pin")
    assert at.session_state["pe_base"] == "500000"


@pytest.mark.parametrize(
    ("page", "link", "said"),
    [
        ("lessons/input_layer/input_layer.py", dict(il_max_len="1.5"), {"il_max_len": 1}),
        ("lessons/sentence_vectors/sentence_vectors.py", dict(sv_chapter="search", sv_k="2.9"), {"sv_k": 2}),
        ("lessons/text_to_tokens/text_to_tokens.py", dict(tt_merges="3.7", tt_words="1000"), {"tt_merges": 3}),
    ],
)
def test_a_number_cut_to_a_whole_one_is_said_to_be_rounded_and_used(page, link, said):
    """Issue 55, item 2: the notice said "ignored and their defaults used" while the page used the whole number."""
    at = open_link(page, link)
    for key, value in said.items():
        assert at.session_state[key] == value
        assert f"{key}={link[key]} (rounded: {value} used)" in notice(at)


def test_a_value_out_of_range_names_the_value_used_instead():
    at = open_link("lessons/input_layer/input_layer.py", il_max_len="0.5", il_scale="maybe", bogus="1")
    said, used = notice(at), at.session_state["il_max_len"]
    assert (
        f"il_max_len=0.5 (not a value this setting takes: malformed, out of its range or not among its choices; {used} used instead)"
        in said
    )
    assert "il_scale=maybe (" in said and f"{str(at.session_state['il_scale']).lower()} used instead)" in said
    assert "bogus=1 (not a setting of this page: dropped)" in said


def test_the_links_notice_stays_over_later_runs_until_dismissed_or_its_setting_changes():
    """Issue 55, item 4: the notice was drawn by the link's first run only, and gone when a training's end reran
    the page a second later."""
    at = open_link("lessons/input_layer/input_layer.py", il_max_len="1.5", bogus="1")
    first = notice(at)
    at.run()  # a rerun nobody asked for (a job's end, a fragment's full rerun)
    assert notice(at) == first
    at.number_input(key="il_max_len").set_value(20).run()  # the learner changes the setting the item is about
    assert "il_max_len" not in notice(at) and "bogus=1" in notice(at)
    at.button(key="_link_dismiss").click().run()
    assert not [w for w in at.warning if w.value.startswith("Parts of the link")]
    at.run()
    assert not [w for w in at.warning if w.value.startswith("Parts of the link")]
