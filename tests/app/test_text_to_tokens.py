"""The text-to-tokens page in AppTest: every control moved, what it shows against core, bad input, and the hand-off
to the input layer (its link, and the input layer starting from it)."""

import gc
import re
from typing import Protocol, cast
from urllib.parse import parse_qs

import numpy as np
import pytest

from core import bpe, pretrained, tokens
from lessons.input_layer import handoff
from lessons.text_to_tokens import views
from tests.app import decode, live_charts, open_link, wait_for_job
from tests.app.test_i18n import english_words, shown_texts
from ui import tokens as shared
from ui.cache import _fronts
from ui.jobs import QUEUES
from ui.pages import LESSONS

PAGE = "lessons/text_to_tokens/text_to_tokens.py"
INPUT = LESSONS["il"].script


class Clearable(Protocol):
    """A function ui.cache.cached returned: it carries its Streamlit cache's `clear` (typed as the function)."""

    def clear(self) -> None: ...


def settled(at, seconds: float = 240):
    """Rerun until no training is in progress (they run in the background, tests.app.wait_for_job): the page with
    every chart it draws."""

    def done(at) -> bool:
        return not at.get("progress") and not any(c.value.startswith("Training BPE on") for c in at.caption)

    wait_for_job(at, done, "the BPE trainings", seconds)
    return at


@pytest.fixture(scope="module")
def minilm_vocabulary():
    return tokens.WordPiece.from_file(pretrained.minilm_weights_path().with_name("tokenizer.json"))


def chips(at) -> list[list[tuple[str, str]]]:
    """Each st.html's tokens and ids, in order: [(token, id), ...] per cut drawn."""
    out = []
    for element in at.get("html"):
        boxes = re.findall(r'class="tt-token"[^>]*>(.*?)<sub>(.*?)</sub>', element.value)
        if boxes:
            out.append(boxes)
    return out


def cut_counts(at) -> dict[str, int]:
    """{cut: tokens} from the lines above the coloured tokens ("**Characters**: 12 tokens, ...")."""
    found = (re.match(r"\*\*(.+?)\*\*: ([\d,]+) tokens", m.value) for m in at.markdown)
    return {m[1]: int(m[2].replace(",", "")) for m in found if m}


def test_the_page_cuts_the_sentence_four_ways_with_the_ids_core_gives(minilm_vocabulary):
    at = settled(open_link(PAGE, tt_sentence="Tokenizers cut 东京 🙂"))
    text = "Tokenizers cut 东京 🙂"
    drawn = chips(at)
    assert [int(i) for _, i in drawn[0]] == [ord(c) for c in text]  # characters
    assert [int(i) for _, i in drawn[1]] == list(text.encode("utf-8"))  # bytes
    wordpiece = minilm_vocabulary.cut(text)
    assert [tok for tok, _ in drawn[3]] == list(wordpiece.tokens)
    assert [None if i == "?" else int(i) for _, i in drawn[3]] == list(wordpiece.ids)
    assert ("token", "##izer") == wordpiece.tokens[:2] and tokens.UNK in wordpiece.tokens
    counts = cut_counts(at)
    words = tokens.WORD.findall(text)
    assert counts == {
        "Characters": len(text), "UTF-8 bytes": len(text.encode()), "Words": len(words), "WordPiece (MiniLM)": len(wordpiece)
    }  # fmt: skip
    frame = at.dataframe[0].value
    assert list(frame.iloc[:, 2]) == [0, 0, tokens.words(text, shared.word_list("en")).unknown, wordpiece.unknown]
    charts = [c for c in at.get("bidi_component") if c.proto.component_name.endswith("live_chart")]
    assert len(charts) == 3 and not at.exception  # merges, fertility, price (ui.live_chart)


def test_the_merge_step_shows_merge_k_and_recuts_the_sentence_at_it():
    at = settled(open_link(PAGE, tt_sentence="lower newest", tt_words=1000, tt_merges=300))
    merges = bpe.train(bpe.word_counts("en", 1000), 300)
    table = bpe.token_bytes(merges)
    for k in (1, 7, 300):
        at.slider(key="tt_step").set_value(k).run()
        m = merges[k - 1]
        said = next(x.value for x in at.markdown if x.value.startswith("Merge **"))
        assert f"**{k}**" in said and f"{m.count:,} times" in said and f"(id {m.id})" in said
        left, right = (tokens.shown_bytes(table[i]) for i in m.pair)
        assert f"“{left}” + “{right}”" in said.replace("␣", " ")
        recut = chips(at)[4]
        assert [int(i) for _, i in recut] == bpe.encode("lower newest", merges, k)
        last = at.dataframe[1].value  # the last merges, newest first
        assert list(last.index) == list(range(k, max(k - 8, 0), -1))
        assert list(last.iloc[:, 1]) == [merges[i - 1].count for i in last.index]
        line, marker = live_charts(at)[0]["data"]  # the merges chart: each merge's count, merge k marked over it
        assert decode(line["y"])[-1] == merges[-1].count and (marker["x"], marker["y"]) == ([k], [m.count])
    at.slider(key="tt_step").set_value(0).run()
    assert [int(i) for _, i in chips(at)[4]] == list(b"lower newest")
    assert len(live_charts(at)[0]["data"]) == 1 and at.dataframe[1].value.empty  # no merge yet: nothing marked


def test_the_merges_notice_compares_the_step_with_the_first_merge_only_where_it_can():
    # issue 51: at step 0 the caption said "Merge 1's pair was seen 1,120,998 times, 1.00x fewer than the first
    # merge's 1,120,998", beside an empty merges table and no marker on the chart
    at = settled(open_link(PAGE, tt_words=1000, tt_merges=300))
    counts = [m.count for m in bpe.train(bpe.word_counts("en", 1000), 300)]
    last = f"the last merge learned, merge 300, was seen {counts[-1]:,} times"

    def notice() -> str:
        return next(c.value for c in at.caption if "No merge's pair is seen more often" in c.value)

    at.slider(key="tt_step").set_value(0).run()
    assert notice().startswith("Step 0: no merge yet") and f"seen {counts[0]:,} times; {last}" in notice()
    at.slider(key="tt_step").set_value(1).run()
    assert notice().startswith(f"Merge 1's pair is the most frequent of all: seen {counts[0]:,} times; {last}")
    k = next(k for k in range(2, 301) if counts[k - 1] < counts[0])
    at.slider(key="tt_step").set_value(k).run()
    times = f"{counts[0] / counts[k - 1]:.2f}" if counts[0] / counts[k - 1] < 10 else f"{counts[0] / counts[k - 1]:.3g}"
    assert f"Merge {k}'s pair was seen {counts[k - 1]:,} times, {times}× fewer than the first merge's" in notice()
    assert all(a >= b for a, b in zip(counts, counts[1:], strict=False)), (
        "the rule the notice states: counts never rise"
    )
    assert "fewer" not in " ".join(c.value for c in at.caption if "1.00×" in c.value)


def test_every_control_moves_without_a_traceback():
    at = settled(open_link(PAGE))
    at.text_area(key="tt_sentence").set_value("我喜欢机器学习。").run()
    at.button_group(key="tt_lang").set_value("zh").run()
    at.select_slider(key="tt_words").set_value(1000).run()
    at.number_input(key="tt_merges").set_value(500).run()
    settled(at)
    at.slider(key="tt_step").set_value(20).run()
    for cut in ("bpe", "words", "characters", "bytes", "wordpiece"):
        at.radio(key="tt_cut").set_value(cut).run()
        link = at.get("page_link")[-1]
        params = parse_qs(link.proto.query_string)
        assert params["il_sentence"] == ["我喜欢机器学习。"]
        assert params["il_mode"] == [handoff.table_for(cut)]
        expected = {"bpe": "bpe-zh-1000-500-20", "words": "words-zh"}.get(cut, cut)  # the words of the language
        assert params["il_from"] == [expected]
    assert not at.exception


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("", "The text is empty"),
        ("ab" * 5_000, "Your text has 10,000 characters"),
        ("zero\u200bwidth and a bell\x07", "2 invisible characters: ZERO WIDTH SPACE"),
        ("zero\u200bwidth and a bell\x07", "WordPiece drops 2 of them"),
        ("a\u0890b", "WordPiece drops 0 of the 1"),  # Cf to Python, unassigned to the tokenizer's tables: [UNK]
    ],
)
def test_bad_text_says_what_to_change_and_the_box_keeps_it(text, expect):
    at = open_link(PAGE, tt_sentence=text) if text else open_link(PAGE)
    if not text:
        at.text_area(key="tt_sentence").set_value("").run()
    said = [w.value for w in at.warning] + [i.value for i in at.info]
    assert any(expect in s for s in said), said
    assert at.text_area(key="tt_sentence").value == text and not at.exception


def test_emoji_are_bytes_and_characters_and_an_unknown_wordpiece():
    at = open_link(PAGE, tt_sentence="🙂👍🏽")
    counts = cut_counts(at)
    assert counts["Characters"] == 3 and counts["UTF-8 bytes"] == len("🙂👍🏽".encode())
    frame = at.dataframe[0].value
    unknown = frame.iloc[3, 2]
    assert isinstance(unknown, int | np.integer) and unknown >= 1  # WordPiece: [UNK]
    assert any("Unknown tokens" in c.value and "WordPiece" in c.value for c in at.caption)


def test_merges_past_what_the_words_allow_are_named_and_the_box_keeps_the_number():
    at = settled(open_link(PAGE, tt_words=1000, tt_merges=60_000))
    allowed = len(bpe.train(bpe.word_counts("en", 1000), 60_000))
    warning = next(w.value for w in at.warning if "allow only" in w.value)
    assert f"allow only {allowed:,} merges" in warning and "not 60,000" in warning
    assert at.number_input(key="tt_merges").value == 60_000
    assert at.slider(key="tt_step").proto.max == allowed


def test_the_input_layer_starts_from_the_tokens_handed_on(minilm_vocabulary):
    at = open_link(INPUT, il_sentence="Tokenizers cut words", il_mode="minilm", il_from="wordpiece")
    assert at.radio(key="il_mode").value == "minilm"
    boxes = chips(at)
    assert [tok for tok, _ in boxes[0]] == list(minilm_vocabulary.cut("Tokenizers cut words").tokens)
    assert any("cut by **WordPiece (MiniLM)**" in m.value for m in at.markdown)
    at = open_link(INPUT, il_sentence="lower", il_mode="random", il_from="bpe-en-1000-50-10")
    merges = bpe.train(bpe.word_counts("en", 1000), 50)
    assert [int(i) for _, i in chips(at)[0]] == bpe.encode("lower", merges, 10)
    at.button(key="il_from_drop").click().run()
    assert not chips(at) and at.text_input(key="il_from").value == ""  # bound to the link: it leaves it


def test_a_malformed_hand_off_is_named_and_the_input_layer_keeps_its_own_tokens():
    at = open_link(INPUT, il_from="bpe-xx-1-2-3")
    assert any("not one the lab knows" in w.value for w in at.warning)
    assert not at.exception


@pytest.mark.parametrize("step", [0, 7])
def test_the_chinese_interface_has_no_english_but_technical_names_once_bpe_has_trained(step):
    # tests/app/test_i18n.py's check, here with every section drawn: the merges, the curves, the price (issue 51:
    # "code point" and "WordPiece: the longest p in V from the left" under the first figure)
    at = settled(open_link(PAGE, lang="zh", tt_words=1000, tt_merges=300, tt_step=step))
    boxes = [*at.text_input, *at.text_area]
    data = {w for box in boxes for w in re.findall(r"[A-Za-z][\w'-]*", str(box.value or ""))}
    data |= {w for df in [*at.dataframe, *at.table] for w in map(str, [*df.value.index, *df.value.values.ravel()])}
    data |= {w for row in chips(at) for token, _ in row for w in re.findall(r"[A-Za-z][\w'-]*", token)}
    data |= {w for m in at.markdown for w in re.findall(r"“([^”]*)”", m.value)}  # a merge's pair and token, quoted
    english = {w: text for text in shown_texts(at) for w in english_words(text, data)}
    assert not english, english


def test_a_training_in_use_is_still_there_after_a_class_asked_for_more_than_the_queue_keeps():
    """Issue 55, item 1: learner A's training is pushed out of the shared queue by 17 others; A's next merge step
    reruns only its fragment, whose re-cut reads the training's merges by key (views.bpe_at -> ui.tokens.merges):
    found, since A's session holds it, not a LookupError."""
    at = settled(open_link(PAGE, tt_sentence="lower newest", tt_words=1000, tt_merges=300))
    key = shared.training_key("en", 1000, 300)
    runner = shared.runner()
    for n in range(QUEUES["tokens"]["keep"] + 1):  # the class's trainings, each done before the next
        assert runner.submit(("bpe", "en", 1000, 10_000 + n), lambda progress: (), 1).finished.wait(60)
    gc.collect()
    cast(Clearable, views.bpe_at).clear()  # pushed out of its own cache too, by the class's 17 trainings
    _fronts().clear()
    merges = bpe.train(bpe.word_counts("en", 1000), 300)
    assert views.bpe_at("lower newest", key, 7).ids == tuple(bpe.encode("lower newest", merges, 7))  # the re-cut's read
    at.slider(key="tt_step").set_value(7).run()
    assert not at.exception and any(m.value.startswith("Merge **7**") for m in at.markdown)
