"""The "Try this" exercises: answers from core checked against independent computations, and every exercise
answered right and wrong in AppTest, with presenter mode hiding the answers."""

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core.exercises import EXERCISES, answer_text, check, parse_answer
from core.glove import load_glove
from tests.app import APP
from ui.i18n import catalog

PAGES = {
    "tt": "lessons/text_to_tokens/text_to_tokens.py",
    "pe": "lessons/positional_encoding/positional_encoding.py",
    "we": "lessons/word_embeddings/word_embeddings.py",
    "es": "lessons/embedding_space/embedding_space.py",
    "lv": "lessons/learned_vs_sinusoidal/learned_vs_sinusoidal.py",
    "il": "lessons/input_layer/input_layer.py",
    "rp": "lessons/rotary/rotary.py",
    "at": "lessons/attention/attention.py",
    "tf": "lessons/real_transformer/real_transformer.py",
    "sv": "lessons/sentence_vectors/sentence_vectors.py",
}


@pytest.fixture(scope="module")
def wv():
    return load_glove()


def test_every_lesson_page_has_two_to_four_exercises():
    assert set(EXERCISES) == set(PAGES)
    assert all(2 <= len(exercises) <= 4 for exercises in EXERCISES.values())


def test_the_answers_agree_with_computations_done_another_way(wv):
    answers = {e.key: e.answer(wv) for exercises in EXERCISES.values() for e in exercises}
    i = np.arange(64)
    assert answers["pe_repeat"] == int((2 * np.pi * 100.0 ** (2 * i / 128) < 50).sum())
    assert answers["pe_longest"] == pytest.approx(2 * np.pi * 10000 ** (510 / 512), rel=1e-6)
    assert answers["pe_offset"] == pytest.approx(np.cos(5 / 10000 ** (2 * i / 128)).sum(), abs=1e-4)
    assert answers["we_analogy"] == "italy" and answers["es_queen"] == "princess"
    assert answers["we_king_row"] == 691
    assert answers["lv_past"] == 0.0 and answers["lv_minilm"] == 512
    assert answers["il_tying"] == 2 * 37_000 * 512
    assert answers["il_ok"] == pytest.approx(1.1828, abs=1e-4)  # seed 003's printed value
    theta = 10000.0 ** (-2 * np.arange(64) / 128)
    assert answers["rp_slow"] == int((2 * np.pi / theta > 4096).sum())
    assert answers["rp_alibi"] == 0.5


def test_the_text_to_tokens_answers_agree_with_tokenizers_and_safetensors():
    from safetensors import safe_open
    from tokenizers import Tokenizer

    from core import bpe, pretrained

    answers = {e.key: e.answer(None) for e in EXERCISES["tt"]}
    assert answers["tt_bytes"] == len("你好".encode())
    path = pretrained.minilm_weights_path()
    reference = Tokenizer.from_file(str(path.with_name("tokenizer.json")))
    reference.no_padding()
    assert answers["tt_pieces"] == len(reference.encode("unbelievably", add_special_tokens=False).tokens)
    counts = Counter(dict(bpe.word_counts("en", 10_000)))
    pairs: Counter[tuple[int, int]] = (
        Counter()
    )  # the first merge: the most frequent pair of bytes, weighted by the words' counts
    for word, n in counts.items():
        for a, b in itertools.pairwise(word.encode()):
            pairs[a, b] += n
    assert answers["tt_first"] == bytes(min(pairs, key=lambda p: (-pairs[p], p))).decode()
    with safe_open(str(path), framework="pt") as f:
        assert answers["tt_table"] == f.get_tensor("embeddings.word_embeddings.weight").numel()


def test_check_accepts_the_answer_in_the_forms_people_type(wv):
    by_key = {e.key: e for exercises in EXERCISES.values() for e in exercises}
    assert check(by_key["il_tying"], "37,888,000") and check(by_key["il_tying"], "3.7888e7")
    assert check(by_key["we_analogy"], "  Italy ", wv) and not check(by_key["we_analogy"], "spain", wv)
    assert not check(by_key["pe_repeat"], "nan") and not check(by_key["pe_repeat"], "")
    assert parse_answer("1e3") == 1000.0 and parse_answer("Rome") == "rome"
    assert answer_text(by_key["il_ok"]) == "1.1828" and answer_text(by_key["il_tying"]) == "37,888,000"
    scale = by_key["il_scale"].answer(None)
    assert isinstance(scale, int | float) and math.isfinite(scale)


@pytest.mark.parametrize("prefix", list(PAGES))
def test_every_exercise_answered_right_and_wrong(prefix, wv):
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(PAGES[prefix])
    if prefix in ("pe", "at", "tf", "sv"):  # these pages show one chapter at a time; their exercises are the last
        at.query_params["chapter"] = "exercises"
    at.run()
    for done, exercise in enumerate(EXERCISES[prefix]):
        box = at.text_input(key=f"ex_{exercise.key}")
        box.set_value("definitely wrong 123").run()
        at.button(key=f"ex_{exercise.key}_check").click().run()
        assert any("Not yet" in e.value for e in at.error), exercise.key
        assert len(at.success) == done  # issue 51: the earlier exercises keep their results
        box.set_value(answer_text(exercise, wv)).run()
        assert not at.error  # the answer judged changed: its result goes
        at.button(key=f"ex_{exercise.key}_check").click().run()
        assert any(s.value.startswith("Right.") for s in at.success), exercise.key
        assert len(at.success) == done + 1 and not at.exception


def test_a_result_stays_until_the_answer_it_judged_changes():
    # issue 51: Q1 answered right, then 3 typed in Q2 and Enter: Q1's "Right." was gone; Show the answer cleared it
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(PAGES["tt"])
    at.run()
    first, second = EXERCISES["tt"][:2]
    at.text_input(key=f"ex_{first.key}").set_value(answer_text(first)).run()
    at.button(key=f"ex_{first.key}_check").click().run()
    right = [s.value for s in at.success]
    assert len(right) == 1 and right[0].startswith(f"Right. {answer_text(first)}")
    at.text_input(key=f"ex_{second.key}").set_value("3").run()  # typed, then Enter: a rerun
    assert [s.value for s in at.success] == right
    at.button(key=f"ex_{second.key}_check").click().run()
    assert [s.value for s in at.success] == right and [e.value for e in at.error] == [catalog("en")["ex.wrong"]]
    at.toggle(key=f"ex_{second.key}_show").set_value(True).run()
    assert [s.value for s in at.success] == right and len(at.error) == 1  # Show the answer clears no result
    assert any(answer_text(second) in i.value for i in at.info)
    at.text_input(key=f"ex_{second.key}").set_value("4").run()  # Q2's answer changed: its result goes, Q1's stays
    assert [s.value for s in at.success] == right and not at.error
    at.text_input(key=f"ex_{first.key}").set_value(answer_text(first) + "0").run()
    assert not at.success and not at.exception


def test_presenter_mode_hides_the_answers_and_stays_in_the_link():
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(PAGES["rp"])
    at.query_params["present"] = "true"
    at.run()
    assert at.session_state["present"] is True and at.query_params["present"] == "true"
    assert not [tg for tg in at.toggle if tg.key and tg.key.endswith("_show")]  # no "Show the answer"
    at.text_input(key="ex_rp_alibi").set_value("0.5").run()
    at.button(key="ex_rp_alibi_check").click().run()
    assert [s.value for s in at.success] == ["Right."]  # the reason, which names the answer, stays hidden
    at.toggle(key="present").set_value(False).run()  # the browser takes ?present=true out (tests/browser)
    assert [tg for tg in at.toggle if tg.key == "ex_rp_alibi_show"]
