"""The "Sentence vectors" page in AppTest: every control moves the page, every bad input gets a message naming the
sentence (never a traceback) while the other sentences stay, a link opens a view, and the exercises' answers are the
page's own numbers."""

import multiprocessing
import re

import numpy as np
import pytest

from core import minilm, sentences
from core.exercises import EXERCISES, sentence_answers
from core.glove import load_bundled
from lessons.sentence_vectors.settings import CHAPTERS, SETTINGS
from tests.app import live_charts as charts
from tests.app import open_link, view, wait_for_job
from tests.app.test_i18n import english_words, shown_texts
from tests.figures.plotly_json import array

PAGE = "lessons/sentence_vectors/sentence_vectors.py"


@pytest.fixture
def sv(open_page):
    return open_page(PAGE)


def title(figure: dict) -> str:
    """A chart's title as one line (figures.titles breaks long ones with <br>)."""
    return figure["layout"]["title"]["text"].replace("<br>", " ")


def chapter(at, name: str) -> None:
    at.button_group(key="sv_chapter").set_value(name).run()
    assert not at.exception and not at.error, (at.exception, at.error)


def moved(at, key: str, value, widget: str) -> None:
    """Move one control and check that the page changed and says nothing went wrong."""
    before = view(at)
    getattr(at, widget)(key=key).set_value(value).run()
    assert not at.exception and not at.error, (key, at.exception, at.error)
    assert view(at) != before, f"{key}={value!r} changed nothing"


def test_every_setting_is_declared_once_and_drawn():
    assert [s.key for s in SETTINGS] == [
        "sv_chapter", "sv_sentences", "sv_first", "sv_second", "sv_query", "sv_k", "sv_space", "sv_method",
        "sv_kept_k",
    ]  # fmt: skip
    assert all(s.in_link for s in SETTINGS)


def test_chapter_1_shows_both_matrices_and_the_pairs_they_rank_differently(sv):
    assert not sv.exception and not sv.error and not sv.warning
    (matrix,) = charts(sv)
    assert [d["type"] for d in matrix["data"]] == ["heatmap", "heatmap"]
    assert "MiniLM (left), GloVe mean (right)" in title(matrix)
    assert any(c.value.startswith("MiniLM as trained: the closest pair is 5 · 6") for c in sv.caption)
    assert [e.label for e in sv.expander] == ["Show the code: sentence vectors", "Show the code: ranks"]
    ranks = sv.dataframe[0].value
    assert list(ranks.columns) == ["GloVe cosine", "GloVe rank", "MiniLM cosine", "MiniLM rank", "ranks apart"]
    assert ranks["ranks apart"].is_monotonic_decreasing
    moved(sv, "sv_sentences", "a cat\na dog\nthe stock market", "text_area")
    assert "your 3 sentences" in title(charts(sv)[0])


def pair_means(matrix: dict) -> list[float]:
    """Each panel's mean cosine over its pairs (above the diagonal): MiniLM's, then GloVe's."""
    means = []
    for trace in matrix["data"]:
        z = array(trace["z"]).astype(float)
        z = z.reshape(round(len(z.ravel()) ** 0.5), -1)
        means.append(float(z[np.triu_indices(len(z), 1)].mean()))
    return means


def test_chapter_1s_notice_is_the_matrices_numbers_and_the_sentences_words(sv):
    # issue 51: "GloVe means sit close together (every sentence shares “the”, “a”, “is”)" beside six sentences none
    # of which holds "is" and three of which hold none of the three words
    for text, common in [
        (SETTINGS["sv_sentences"].default, None),
        ("the cat is here\nthe dog is there\nis the sky blue", "the words “the”, “is”"),
        ("a cat sat\na dog ran", "the word “a”"),
    ]:
        sv.text_area(key="sv_sentences").set_value(text).run()
        notice = next(c.value for c in sv.caption if "own colour scale" in c.value)
        minilm, glove = pair_means(charts(sv)[0])
        assert f"is {glove:.3f} for the GloVe mean and {minilm:.3f} for MiniLM" in notice, notice
        closer = "GloVe mean" if glove > minilm else "MiniLM as trained"
        assert f"{closer} puts these sentences closer together" in notice, notice
        assert ("Every sentence holds" in notice) == (common is not None) and "shares" not in notice
        if common:
            assert f"Every sentence holds {common}:" in notice, notice


def test_bad_lines_are_named_and_the_other_sentences_still_shown(sv):
    lines = ["the cat sat", "", "?!", "qwzxv blorptangle", "🙂 🙃", "word " * 520, "a dog ran", "  "]
    sv.text_area(key="sv_sentences").set_value("\n".join(lines)).run()
    assert not sv.exception and not sv.error
    warnings = [w.value for w in sv.warning]
    assert any(w.startswith("Sentence 2 (“?") and "It has no word" in w for w in warnings), warnings
    assert any("Sentence 3 (“qwzxv blorptangle”)" in w and "English" in w for w in warnings), warnings
    assert any("Sentence 4" in w and "[UNK]" in w for w in warnings), warnings
    assert not any("Sentence 5" in w for w in warnings), warnings  # read, cut at 256 tokens as sentence-transformers
    assert any("2 empty lines skipped" in c.value for c in sv.caption)
    assert "your 3 sentences" in title(charts(sv)[0])  # the cat sat, the long one, a dog ran
    many = "\n".join(f"sentence number {i}" for i in range(25))
    sv.text_area(key="sv_sentences").set_value(many).run()
    assert any("first 20 sentences" in w.value and "sentence number 20" in w.value for w in sv.warning)
    assert "your 20 sentences" in title(charts(sv)[0])
    sv.text_area(key="sv_sentences").set_value("only one").run()
    assert any("at least two sentences" in w.value for w in sv.warning) and not sv.exception


def test_a_text_past_256_tokens_is_cut_as_sentence_transformers_cuts_it_and_the_page_says_how_much(sv):
    sv.text_area(key="sv_sentences").set_value("the cat sat\n" + "word " * 300 + "\na dog ran").run()
    assert not sv.exception and not sv.error and not sv.warning
    (notice,) = [i.value for i in sv.info if "WordPiece tokens" in i.value]
    assert notice.startswith("Sentence 2 is 302 WordPiece tokens") and "The last 46 pieces are left out." in notice
    assert "[CLS], the first 254 pieces and [SEP]" in notice and "your 3 sentences" in title(charts(sv)[0])
    chapter(sv, "search")
    query = "a storm is coming tonight " * 60  # 302 tokens
    sv.text_input(key="sv_query").set_value(query).run()
    assert any(i.value.startswith("The query is 302 WordPiece tokens") for i in sv.info)
    model, collection = minilm.load_minilm(), sentences.embed_collection(minilm.load_minilm(), load_bundled())
    hits = sentences.search(collection.minilm, sentences.minilm_vector(model, query.strip()), 5)
    found = sv.dataframe[0].value
    assert list(found["sentence"]) == [collection.sentences[i] for i, _ in hits]  # the search reads the cut vector
    sv.text_input(key="sv_query").set_value("a storm is coming tonight").run()
    assert not any("WordPiece tokens" in i.value for i in sv.info)


def check_notice_reads_the_check(at) -> None:
    """issue 51: "the numbers above are the rounding of float32" beside 2.2e-15, far below float32's ε: the notice
    names the check's largest |1 − cos| and where it lies against float32's ε."""
    check = next(m.value for m in at.markdown if m.value.startswith("The check, over"))
    worst = max(float(x) for x in re.findall(r"\*\*([\d.e+-]+)\*\*", check))
    notice = next(c.value for c in at.caption if c.value.startswith("A mean does not depend"))
    eps = np.finfo(np.float32).eps
    assert "the rounding of float32" not in notice
    where = "below" if worst < eps else "above"
    assert f"The largest |1 − cos| here, {worst:.1e}, is {where} float32's ε ({eps:.1e})" in notice, notice


def test_chapter_2_checks_the_order_blind_methods_and_charts_every_pair(sv):
    chapter(sv, "order")
    table = sv.dataframe[0].value
    assert len(table) == len(sentences.read_pairs()) + 1 and table.index[-1] == "yours"
    assert (table["GloVe mean"] - 1).abs().max() < 1e-6 and (table["no positions"] - 1).abs().max() < 1e-6
    assert (table["as trained"] < 1 - 1e-4).all()
    check = next(m.value for m in sv.markdown if m.value.startswith("The check, over 25 pairs"))
    assert "both below 1e-06" in check
    check_notice_reads_the_check(sv)
    (chart,) = charts(sv)
    assert [d["name"] for d in chart["data"]] == [
        "GloVe mean", "MiniLM, no positions", "MiniLM, sinusoidal positions", "MiniLM as trained",
    ]  # fmt: skip
    notice = next(c.value for c in sv.caption if c.value.startswith("The GloVe mean and MiniLM without"))
    far = table["as trained"].idxmin()
    assert f"separates pair {far} most" in notice
    moved(sv, "sv_first", "the teacher praised the student", "text_input")
    assert any("do not hold the same words" in i.value for i in sv.info)
    moved(sv, "sv_second", "the student praised the teacher", "text_input")
    assert not any("do not hold the same words" in i.value for i in sv.info)
    check_notice_reads_the_check(sv)  # two controls moved: the notice still reads the check's numbers
    sv.text_input(key="sv_second").set_value("🙂").run()
    assert any("Your pair is left out" in w.value and "🙂" in w.value for w in sv.warning)
    assert len(sv.dataframe[0].value) == len(sentences.read_pairs()) and not sv.exception


def search_notice_reads_the_lists(at) -> None:
    """issue 51: "1 of the 5 sentences are in both lists": the count of sentences both lists hold, in its plural
    form, and which list's cosines span less."""
    minilm, glove = (d.value for d in at.dataframe[:2])
    k, shared = len(minilm), len(set(minilm["sentence"]) & set(glove["sentence"]))
    notice = next(c.value for c in at.caption if "in both lists" in c.value)
    assert f"{shared} of the top {k} {'is' if shared == 1 else 'are'} in both lists." in notice, notice
    spans = {"MiniLM": np.ptp(minilm["cosine"]), "GloVe mean": np.ptp(glove["cosine"])}
    if abs(spans["MiniLM"] - spans["GloVe mean"]) > 0.001:
        narrower = min(spans, key=spans.__getitem__)
        assert f"{narrower}'s cosines lie closer together" in notice, notice


def test_chapter_3_searches_with_both_methods_side_by_side(sv):
    chapter(sv, "search")
    minilm, glove = (d.value for d in sv.dataframe[:2])
    assert len(minilm) == len(glove) == SETTINGS["sv_k"].default
    assert minilm["cosine"].is_monotonic_decreasing and glove["cosine"].is_monotonic_decreasing
    search_notice_reads_the_lists(sv)
    moved(sv, "sv_k", 12, "number_input")
    assert len(sv.dataframe[0].value) == 12
    search_notice_reads_the_lists(sv)
    moved(sv, "sv_k", 1, "number_input")
    search_notice_reads_the_lists(sv)
    moved(sv, "sv_query", "my favourite band played guitar", "text_input")
    assert set(sv.dataframe[0].value["topic"]) == {"music"}
    sv.text_input(key="sv_query").set_value("🙂🙃").run()
    assert any("MiniLM cannot read the query" in w.value for w in sv.warning) and not sv.exception
    assert any("GloVe mean cannot read the query" in w.value for w in sv.warning)


def test_chapter_4_maps_the_collection_and_measures_the_map(sv):
    chapter(sv, "map")
    (chart,) = charts(sv)
    assert len(chart["data"]) == 9 and chart["data"][-1]["name"] == "query"  # eight topics and the query
    assert [m.label for m in sv.metric][:2] == ["Neighbours kept (k = 10)", "Trustworthiness (k = 10)"]
    moved(sv, "sv_space", "glove", "radio")
    moved(sv, "sv_kept_k", 5, "number_input")
    sv.radio(key="sv_method").set_value("t-SNE").run()
    sv.button(key="sv_run").click().run()
    children = []  # issue 55: the map ran in a thread of the server, holding the GIL against its event loop
    seen = lambda at: children.append(len(multiprocessing.active_children()))  # noqa: E731
    wait_for_job(sv, lambda at: at.metric, "t-SNE of the collection", 120, each=seen)  # it runs in the background
    assert sv.metric and not sv.exception and not sv.error
    assert max(children) >= 1, children  # in a child process of its own (core.jobs.in_child)
    assert any("mean place of the query's 5 most similar" in c.value for c in sv.caption)


def test_a_link_opens_its_view():
    at = open_link(PAGE, sv_chapter="search", sv_query="a fast car on the road", sv_k="3")
    assert not at.error and not at.warning
    assert len(at.dataframe[0].value) == 3 and at.text_input(key="sv_query").value == "a fast car on the road"


def test_in_chinese_the_page_says_the_models_are_english():
    at = open_link(PAGE, lang="zh")
    assert not at.exception and any("英文" in i.value for i in at.info)
    assert "MiniLM（左），GloVe平均（右）" in title(charts(at)[0]).replace(" ", "")


def test_the_exercises_answers_are_the_pages_numbers(sv):
    answers = sentence_answers()
    chapter(sv, "order")
    table = sv.dataframe[0].value
    assert str(answers["most"]) == table["as trained"].iloc[:-1].idxmin()
    assert answers["learned"] == pytest.approx(table["as trained"].iloc[0], abs=1e-6)
    chapter(sv, "search")
    sv.number_input(key="sv_k").set_value(10).run()
    sv.text_input(key="sv_query").set_value("a storm is coming tonight").run()
    assert answers["storm"] == (sv.dataframe[1].value["topic"] == "weather").sum()
    chapter(sv, "exercises")
    for done, exercise in enumerate(EXERCISES["sv"], start=1):
        sv.text_input(key=f"ex_{exercise.key}").set_value(str(exercise.answer(None))).run()
        sv.button(key=f"ex_{exercise.key}_check").click().run()
        assert len(sv.success) == done and not sv.error  # the earlier answers keep their "Right." (issue 51)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_chinese_interface_has_no_english_but_technical_names(chapter):
    # tests/app/test_i18n.py's check, on each chapter of this page (its views list the pages of lessons/*.py)
    at = open_link(PAGE, lang="zh", sv_chapter=chapter)
    boxes = [*at.text_input, *at.text_area]
    data = {w for box in boxes for w in re.findall(r"[A-Za-z][\w'-]*", str(box.value or ""))}
    data |= {w for df in [*at.dataframe, *at.table] for w in map(str, [*df.value.index, *df.value.values.ravel()])}
    data |= {w for text in sentences.read_collection()[0] for w in re.findall(r"[A-Za-z][\w'-]*", text)}
    data |= {w for p in sentences.read_pairs() for w in re.findall(r"[A-Za-z][\w'-]*", p.first + " " + p.second)}
    english = {w: text for text in shown_texts(at) for w in english_words(text, data)}
    assert not english, english


def test_a_links_impossible_number_is_named_not_a_traceback():
    at = open_link(PAGE, sv_chapter="search", sv_k="inf", sv_kept_k="1e400")
    assert not at.exception and not at.error
    ignored = " ".join(w.value for w in at.warning if "not used as given" in w.value)
    assert "sv\\_k=inf" in ignored or "sv_k=inf" in ignored, ignored
    assert at.number_input(key="sv_k").value == SETTINGS["sv_k"].default


def test_the_cut_notice_in_chinese_gives_the_same_counts_in_chinese():
    at = open_link(PAGE, lang="zh", sv_sentences="the cat sat\n" + "word " * 300)
    (notice,) = [i.value for i in at.info if "WordPiece" in i.value]
    assert notice.startswith("第 2 句有 302 个 WordPiece 词元") and "最后 46 个词片被略去" in notice
    assert not english_words(notice, set()), notice
