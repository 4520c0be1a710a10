"""English and 中文: both catalogues complete, every key the code names exists, every page runs in Chinese."""

import re
import string
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app import APP
from ui.i18n import LANGUAGES, catalog

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "lessons").glob("*.py"))


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_both_languages_have_the_same_keys_and_placeholders():
    english, chinese = catalog("en"), catalog("zh")
    assert set(english) == set(chinese), set(english) ^ set(chinese)
    for key, text in english.items():
        assert placeholders(text) == placeholders(chinese[key]), key
        assert chinese[key].strip(), key


def test_every_key_the_code_names_exists():
    english = catalog("en")
    sources = [*ROOT.glob("lessons/*.py"), *ROOT.glob("ui/*.py"), ROOT / "app.py"]
    named = {key for path in sources for key in re.findall(r'\bt\(\s*"([\w.]+)"\s*[,)]', path.read_text())}
    problems = {
        f"problems.{key}"
        for path in ROOT.glob("core/*.py")
        for key in re.findall(r'(?:Problem|VectorsError|PretrainedMissing)\(\s*"(\w+)"', path.read_text())
    }
    assert named and problems
    assert not (named | problems) - set(english), (named | problems) - set(english)


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_page_runs_in_each_language(page, lang):
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(page)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception, at.exception
    title = at.title[0].value
    assert title == catalog(lang)[title_key(page)]
    has_chinese = bool(re.search(r"[\u4e00-\u9fff]", title))
    assert has_chinese == (lang == "zh")


def title_key(page: str) -> str:
    prefix = {"overview": "ov", "positional_encoding": "pe", "word_embeddings": "we", "embedding_space": "es"}
    prefix |= {"learned_vs_sinusoidal": "lv", "input_layer": "il", "rotary": "rp", "attention": "at"}
    prefix |= {"real_transformer": "tf"}
    return f"{prefix[Path(page).stem]}.title"


def test_the_sidebar_switch_changes_the_language_and_the_link_keeps_it():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert at.title[0].value == "Overview: from text to vectors"
    at.session_state["lang"] = "zh"
    at.run()
    assert at.title[0].value == "概览：从文本到向量" and at.query_params["lang"] == "zh"


def test_back_after_a_language_switch_brings_the_language_back(monkeypatch):
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.session_state["lang"] = "zh"
    at.run()
    monkeypatch.setattr("ui.link.back_or_forward", lambda: True)  # Back: the address before the switch
    at.query_params.clear()
    at.run()
    assert at.title[0].value == "Overview: from text to vectors" and "lang" not in at.query_params


def test_a_pasted_page_of_text_is_cut_in_messages_and_a_message_inside_one_is_kept_whole(open_page):
    words = "zzqq " * 10_000
    at = open_page("lessons/word_embeddings.py")
    at.text_input(key="we_a").input(words).run()  # an unknown word is repeated in the warning
    assert at.warning[0].value == f"Not in the vocabulary: {words[:200]}… (50,000 characters in all)."
    at = open_page("lessons/positional_encoding.py")
    at.text_input(key="pe_base").input(words).run()
    assert "(50,000 characters in all)" in at.error[0].value and at.error[0].value.endswith("base 10000.")


@pytest.mark.parametrize(("lang", "cut"), [("en", "characters in all)"), ("zh", "个字符）")])
def test_a_link_with_long_parameters_is_cut_in_the_notice_item_by_item(lang, cut):
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("lessons/word_embeddings.py")
    at.query_params.update(lang=lang, d_model="x" * 1000, a="zzqq " * 1000, **{"bogus" * 100: "1"})
    at.run()
    assert not at.exception
    ignored, unknown = at.warning[0].value, at.warning[1].value
    assert ignored.count(cut) == 2 and len(ignored) < 800  # each long name or value cut on its own
    assert cut in unknown and len(unknown) < 400
