"""The attention page in AppTest: every control moves the page, the bad inputs get messages, a link opens a view."""

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core.attention import head as attention_head
from core.attention import scores as attention_scores
from core.attention.view import compare
from core.exercises import EXERCISES
from core.glove import load_glove
from tests import found
from tests.app import APP, train_and_wait, view
from tests.app import live_charts as charts

PAGE = "lessons/attention/attention.py"
SCHEMES = ["none", "sinusoidal", "learned: MiniLM", "rope", "alibi", "t5"]


@pytest.fixture
def at(open_page):
    return open_page(PAGE)


def checks(at) -> dict[str, str]:
    """Section 4's line per scheme: {label: text}."""
    lines = [m.value for m in at.markdown if m.value.startswith("- **")]
    return {found(r"^- \*\*(.+?)\*\*", line).group(1): line for line in lines}


def chapter(at, name: str) -> None:
    at.button_group(key="at_chapter").set_value(name).run()
    assert not at.exception and not at.error


def test_every_chapter_shows_its_figure_with_formula_notice_and_code(at):
    assert not at.exception and not at.error
    logits, weights = charts(at)
    titles = [a["text"] for a in logits["layout"]["annotations"]]
    assert titles == SCHEMES and [a["text"] for a in weights["layout"]["annotations"]] == SCHEMES
    assert len(logits["data"]) == len(weights["data"]) == 6
    assert len(at.latex) == 1 and at.caption and at.get("expander")  # formula, notice, "Show the code"
    chapter(at, "terms")
    (terms,) = charts(at)
    assert [a["text"] for a in terms["layout"]["annotations"]] == [*attention_scores.TERMS, "sum = logits"]
    chapter(at, "learned")
    (learned,) = charts(at)
    assert len(learned["data"]) == 5 and "learned: MiniLM" not in at.markdown[0].value
    assert at.get("page_link")[0].proto.page == "learned_vs_sinusoidal"
    assert any("No table has been trained yet" in c.value for c in at.caption)  # the trained table's note
    chapter(at, "distance")
    (distance,) = charts(at)
    assert [line["name"] for line in distance["data"]] == SCHEMES
    for name in ("terms", "learned", "checks", "distance"):
        chapter(at, name)
        assert len(at.latex) == 1 and at.get("expander"), name
    chapter(at, "exercises")
    assert at.header[-1].value == "Try this" and at.text_input(key="ex_at_shift")


def test_the_four_terms_sum_to_the_logits_and_the_page_says_by_how_much(at):
    chapter(at, "terms")
    (line,) = [m.value for m in at.markdown if "add up to the logits" in m.value]
    assert float(found(r"\*\*(.+?)\*\*", line).group(1)) < 1e-5
    terms = charts(at)[0]["data"]
    assert len(terms) == 5 and all(t["type"] == "heatmap" for t in terms)


def test_each_scheme_says_whether_it_depends_on_m_minus_n_only_and_what_happens_past_its_length(at):
    chapter(at, "checks")
    lines = checks(at)
    assert list(lines) == SCHEMES
    for relative in ("none", "rope", "alibi", "t5"):
        assert "depends on m − n only" in lines[relative], relative
    for absolute in ("sinusoidal", "learned: MiniLM"):
        assert "depends on absolute positions" in lines[absolute], absolute
    assert "never completed a turn" in lines["rope"] and "ALiBi's bias goes from -7.5 to -15.5" in lines["alibi"]
    assert "the table has 512 rows; 512 positions have none" in lines["learned: MiniLM"]
    assert "the last bucket, shared by every distance from 91 on, is not reached at this length" in lines["t5"]


def test_the_table_trained_on_the_learned_page_joins_every_scheme(at):
    """A tiny training on the learned page, in the same session: its learned table appears here beside MiniLM's."""
    at.switch_page("lessons/learned_vs_sinusoidal/learned_vs_sinusoidal.py").run()
    for key, value in {"lv_steps": 20, "lv_train_len": 8, "lv_seed": 11, "lv_test_len": 16}.items():
        at.number_input(key=key).set_value(value).run()
    train_and_wait(at)
    assert at.metric and not at.error
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    trained = "learned: trained here"
    logits, _ = charts(at)
    assert [a["text"] for a in logits["layout"]["annotations"]] == [*SCHEMES[:3], trained, *SCHEMES[3:]]
    chapter(at, "checks")
    assert "the table has 8 rows" in checks(at)[trained] and "depends on absolute positions" in checks(at)[trained]
    chapter(at, "learned")
    assert len(charts(at)) == 2  # MiniLM's four terms and the trained table's
    (used,) = [c.value for c in at.caption if "'learned: trained here' is the table" in c.value]
    assert "copy-back, d_model 64, 8 positions, 20 steps" in used
    chapter(at, "distance")
    assert trained in [line["name"] for line in charts(at)[0]["data"]]
    # other settings there: no table trained with them, the note and its link are back
    at.switch_page("lessons/learned_vs_sinusoidal/learned_vs_sinusoidal.py").run()
    at.number_input(key="lv_seed").set_value(12).run()
    at.switch_page(PAGE).run()
    chapter(at, "checks")
    assert trained not in checks(at)


@pytest.mark.parametrize(
    "where, kind, key, value",
    [
        ("schemes", "text_input", "at_sentence", "a dog ran in the park"),
        ("schemes", "number_input", "at_d_model", 32),
        ("schemes", "number_input", "at_head_dim", 32),
        ("schemes", "number_input", "at_seed", 3),
        ("schemes", "toggle", "at_causal", True),
        ("checks", "number_input", "at_shift", 3),
        ("checks", "number_input", "at_trained_len", 12),
        ("schemes", "number_input", "at_base", 500.0),
        ("schemes", "number_input", "at_alibi_heads", 4),
        ("schemes", "number_input", "at_alibi_head", 3),
        ("schemes", "number_input", "at_t5_buckets", 16),
        ("checks", "number_input", "at_t5_max", 64),
        ("schemes", "toggle", "at_t5_bidirectional", False),
        ("distance", "number_input", "at_query", 2),
        ("distance", "number_input", "at_key", 4),
        ("distance", "slider", "at_query_pos", 20),
        ("distance", "slider", "at_max_distance", 32),
    ],
)
def test_every_control_moves_the_page(at, where, kind, key, value):
    chapter(at, where)
    before = view(at)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception and not at.error, key
    assert at.session_state[key] == value
    assert view(at) != before, key


def test_random_content_and_its_number_of_tokens(at):
    at.radio(key="at_content").set_value("random").run()
    assert not at.exception and not at.error
    assert charts(at)[0]["data"][0]["x"][:2] == ["0:t0", "1:t1"]
    before = view(at)
    at.number_input(key="at_tokens").set_value(5).run()
    assert len(charts(at)[0]["data"][0]["x"]) == 5 and view(at) != before


def test_an_odd_head_dim_is_named_and_nothing_drawn(at):
    at.number_input(key="at_head_dim").set_value(15).run()
    assert not at.exception
    assert "head_dim must be even" in at.error[0].value and "15" in at.error[0].value
    assert not charts(at)
    chapter_kept = at.button_group(key="at_chapter")
    chapter_kept.set_value("exercises").run()
    assert at.header[-1].value == "Try this" and at.error  # the exercises stay reachable


def test_a_sentence_longer_than_the_budget_is_named(at):
    at.text_input(key="at_sentence").set_value(" ".join(["word"] * (attention_head.MAX_TOKENS + 6))).run()
    assert not at.exception
    assert (
        f"has {attention_head.MAX_TOKENS + 6} tokens" in at.error[0].value
        and str(attention_head.MAX_TOKENS) in at.error[0].value
    )
    at.text_input(key="at_sentence").set_value("   ").run()
    assert "no words" in at.error[0].value


def test_unknown_words_are_named_and_their_rows_are_zero(at):
    at.text_input(key="at_sentence").set_value("the zzqxv sat on the qqqpl").run()
    assert not at.exception and not at.error
    assert "zzqxv, qqqpl" in at.warning[0].value and "zero" in at.warning[0].value


def test_a_shorter_sentence_moves_the_chosen_tokens_back_inside(at):
    chapter(at, "distance")
    at.number_input(key="at_key").set_value(9).run()
    at.text_input(key="at_sentence").set_value("the cat sat").run()
    assert not at.exception and at.session_state["at_key"] == 2
    (moved,) = [w.value for w in at.warning if "Key token" in w.value]
    assert "was 9" in moved and "3 tokens" in moved and "now 2, the last token" in moved
    assert not {"table", "window"} & set(re.findall(r"\w+", moved.lower()))  # the page shows a sentence's tokens


def test_a_link_reopens_the_view():
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(PAGE)
    at.query_params["at_head_dim"] = "32"
    at.query_params["at_causal"] = "true"
    at.query_params["at_query_pos"] = "30"
    at.query_params["at_chapter"] = "distance"
    at.run()
    assert not at.exception and not at.error and not at.warning
    assert at.session_state["at_head_dim"] == 32 and at.session_state["at_causal"] is True
    assert at.session_state["at_query_pos"] == 30 and at.session_state["at_chapter"] == "distance"
    assert "position 30" in charts(at)[0]["layout"]["title"]["text"]
    assert at.query_params["at_chapter"] == "distance"


def test_the_exercises_answers_are_the_pages_own_numbers():
    wv = load_glove()
    answers = {e.key: e.answer(wv) for e in EXERCISES["at"]}
    assert answers["at_alibi"] == -0.5 * 31  # head 0 of 8: slope 2^-1, the farthest key at 32 tokens is 31 away
    import torch
    from transformers.models.t5.modeling_t5 import T5Attention

    buckets = T5Attention._relative_position_bucket(-torch.arange(200), True, 32, 128)
    assert answers["at_t5"] == int((buckets == buckets[-1]).nonzero()[0])
    cfg = attention_head.AttentionConfig()
    head = attention_head.make_head(cfg, wv)
    here = compare(head, cfg)[1].logits.numpy()
    positions = torch.arange(len(head.tokens))
    moved = attention_scores.scores(head, cfg, "sinusoidal", head.x, positions + 8, head.x, positions + 8).logits
    assert answers["at_shift"] == pytest.approx(np.abs(moved.numpy() - here).max())
