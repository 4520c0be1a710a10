"""The input layer opened from "Use these tokens" (lessons.input_layer.handoff.link): for each cut its table's rows, ids and
heatmaps are the cut's, computed here another way (str.encode, code points, bpe.encode, `tokenizers`, GloVe's word
list); the way back, a reload, 中文, a BPE not trained yet on the server, and malformed links."""

import base64
import json
import re
import threading

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import bpe, pretrained
from core import tokens as core_tokens
from figures.tokens import visible
from lessons.input_layer import handoff
from lessons.text_to_tokens.settings import SETTINGS as TT_SETTINGS
from tests.app import open_link, wait_for_job
from ui import tokens as shared
from ui.jobs import job_runner
from ui.vectors import bundled_vectors

PAGE = "lessons/input_layer/input_layer.py"
TEXT = "Tokenizers cut 东京 words🙂"


def rows(at) -> tuple[list[str], list[int], list[int]]:
    """The tokens table: its tokens, ids and segments."""
    frame = at.dataframe[0].value  # its columns named in the reader's language
    return list(frame.iloc[:, 0]), [int(i) for i in frame.iloc[:, 1]], [int(s) for s in frame.iloc[:, 2]]


def heatmap_rows(at) -> list[str]:
    """The rows of the first stage's heatmap ("0: token"), as ui.live_chart sent them."""
    sent = [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.component_name == "live_chart"]
    figures = [json.loads(text) for data in sent for text in data.get("figures", [])]
    return figures[0]["data"][0]["y"]


def handed(text: str, name: str, lang: str = "en", words: int = 1000, merges: int = 40, step: int = 30, **more):
    """The input layer opened on the link the text-to-tokens page writes for this cut."""
    return open_link(PAGE, {**handoff.link(text, name, lang, words, merges, step), **more})


@pytest.fixture(scope="module")
def reference():
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(pretrained.minilm_weights_path().with_name("tokenizer.json")))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def test_bytes_are_str_encode_over_a_table_of_256():
    at = handed(TEXT, "bytes")
    tokens, ids, segments = rows(at)
    assert ids == list(TEXT.encode("utf-8")) and segments == [0] * len(ids)
    assert "".join(tokens[:3]) == "Tok" and tokens[-4:] == ["<F0>", "<9F>", "<99>", "<82>"]  # 🙂, cut in four
    assert heatmap_rows(at) == [f"{i}: {tok}" for i, tok in enumerate(tokens)]
    assert any("random table of 256 rows" in c.value for c in at.caption) and not at.exception
    assert at.radio(key="il_mode").value == "random" and at.text_input(key="il_from").value == "bytes"


def test_characters_are_code_points_over_a_table_of_every_code_point():
    at = handed(TEXT, "characters", il_max_len="64")
    tokens, ids, _ = rows(at)
    assert tokens == [visible(c) for c in TEXT] and ids == [ord(c) for c in TEXT]  # a space as ␣ (figures.tokens)
    assert any("1,114,112 rows" in c.value for c in at.caption)


def test_bpe_ids_are_bpe_encode_at_the_step_and_the_table_its_vocabulary():
    at = handed("lower newest", "bpe", words=1000, merges=40, step=30)
    merges = bpe.train(bpe.word_counts("en", 1000), 40)
    tokens, ids, _ = rows(at)
    assert ids == bpe.encode("lower newest", merges, 30)
    assert "".join(tokens) == "lower␣newest" and len(tokens) < len("lower newest")  # merged, the space as ␣
    assert heatmap_rows(at) == [f"{i}: {tok}" for i, tok in enumerate(tokens)]
    assert any(f"random table of {256 + 30} rows" in c.value for c in at.caption)


def test_wordpiece_on_minilm_is_minilms_own_tokenizer(reference):
    at = handed(TEXT, "wordpiece")
    tokens, ids, _ = rows(at)
    expected = reference.encode(TEXT)
    assert tokens == expected.tokens and ids == expected.ids  # [CLS] the pieces [SEP]: what MiniLM reads
    assert at.radio(key="il_mode").value == "minilm"


def test_wordpiece_on_a_random_table_keeps_its_ids_and_unk(reference):
    at = handed(TEXT, "wordpiece", il_mode="random")
    tokens, ids, _ = rows(at)
    expected = reference.encode(TEXT)
    assert tokens == expected.tokens[1:-1] and ids == expected.ids[1:-1]  # no [CLS], [SEP]: the cut's own
    assert "[UNK]" in tokens and any("30,522 rows" in c.value for c in at.caption)


def test_words_read_glove_by_glove_ids_and_english_and_chinese_word_lists_on_a_random_table():
    at = handed("The cat sat, zzqxv!", "words")
    tokens, ids, _ = rows(at)
    wv = bundled_vectors()
    assert tokens == ["The", "cat", "sat", ",", "zzqxv", "!"]
    assert ids == [wv.stoi.get(w.lower(), len(wv)) for w in tokens]
    assert any("zzqxv" in w.value for w in at.warning)
    at = handed("我喜欢机器学习", "words", lang="zh", il_mode="random")
    zh_words = shared.word_list("zh")
    cut = core_tokens.words("我喜欢机器学习", zh_words)
    tokens, ids, _ = rows(at)
    assert tokens == list(cut.tokens) and ids == list(core_tokens.table_ids(cut, len(zh_words)))


def test_a_pair_is_cut_the_same_way_in_segment_b():
    at = handed("ab", "bytes", il_pair="é")
    assert rows(at) == (["a", "b", "<C3>", "<A9>"], [97, 98, 0xC3, 0xA9], [0, 0, 1, 1])


def test_the_way_back_empties_the_cut_in_the_link_and_a_reload_brings_the_hand_off_back():
    link = handoff.link("lower newest", "bytes", "en", 1000, 40, 30)
    at = open_link(PAGE, link)
    at.select_slider(key="il_d_model").set_value(16).run()  # a move keeps the hand-off
    assert rows(at)[1] == list(b"lower newest") and at.query_params["il_from"] == "bytes"
    at.button(key="il_from_drop").click().run()
    assert rows(at)[0] == ["lower", "newest"] and at.text_input(key="il_from").value == ""  # the link: the browser's
    at.run()  # AppTest's address still names the cut (only a browser writes a bound box's value into it)
    assert rows(at)[0] == ["lower", "newest"]
    again = open_link(PAGE, link)  # the link reloaded
    assert rows(again)[1] == list(b"lower newest")


def test_typing_a_cut_into_its_box_hands_it_on():
    at = open_link(PAGE, il_sentence="ab", il_mode="random")
    at.text_input(key="il_from").input("characters").run()
    assert rows(at)[:2] == (["a", "b"], [97, 98])  # the browser writes it into the link (AppTest does not)


def test_the_hand_off_in_chinese():
    at = open_link(PAGE, {**handoff.link("我喜欢", "characters", "zh", 1000, 40, 30), "lang": "zh"})
    assert rows(at)[1] == [ord(c) for c in "我喜欢"]
    assert any("来自“从文本到词元”" in m.value for m in at.markdown)
    assert any("1,114,112" in c.value and "随机表" in c.value for c in at.caption) and not at.exception
    assert at.button(key="il_from_drop").label == "回到输入层自己的词元"


def test_a_bpe_not_trained_on_the_server_trains_and_the_tokens_follow_when_it_is_done():
    """The link's training is not on the server: the page says so, shows the page's own words meanwhile, and the
    training's progress; once done, the BPE's tokens. The training is held back here until the first view is seen."""
    lang, words, merges = "en", 1000, 37  # a training no other test asks for
    held = threading.Event()

    def work(progress):
        held.wait(60)
        return bpe.train(bpe.word_counts(lang, words), merges)

    job_runner("tokens").submit(shared.training_key(lang, words, merges), work, merges)
    at = handed("lower newest", "bpe", words=words, merges=merges, step=merges)
    assert any("is not trained on this server yet" in i.value for i in at.info)
    assert rows(at)[0] == ["lower", "newest"]  # meanwhile, the page's own words
    held.set()
    wait_for_job(at, lambda at: rows(at)[0] != ["lower", "newest"], "the BPE training", 60)
    expected = bpe.encode("lower newest", bpe.train(bpe.word_counts(lang, words), merges), merges)
    assert rows(at)[1] == expected


@pytest.mark.parametrize(
    "text", ["bpe-xx-1-2-3", "bpe-en-1000-5-9", "bpe-en-１０-2-1", "bpe-en-1²-2-1", "bytes-zh", "words-fr", "9" * 5000]
)
def test_a_malformed_cut_is_named_and_the_page_keeps_its_own_tokens(text):
    at = open_link(PAGE, il_sentence="lower newest", il_from=text)
    assert any("is not one the lab knows" in w.value for w in at.warning)
    assert rows(at)[0] == ["lower", "newest"] and not at.exception


def test_a_cut_that_leaves_no_token_says_so():
    at = handed("\u200b\u200b", "wordpiece", il_mode="random")  # WordPiece drops format characters
    assert any("leaves no token" in w.value for w in at.warning) and not at.exception


def test_random_rows_are_the_tables_rows_whatever_the_sentence():
    """A token reads the same row in any sentence: the first stage's row for "a" is random_rows' row 97."""
    from core.embeddings import random_rows

    at = handed("a", "bytes", il_d_model="8", il_scale="false")
    sent = [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.component_name == "live_chart"]
    z = json.loads(sent[0]["figures"][0])["data"][0]["z"]  # plotly's typed array: base64 float32
    token_stage = np.frombuffer(base64.b64decode(z["bdata"]), dtype="<f4").reshape(1, 8)
    torch.testing.assert_close(torch.from_numpy(token_stage[0].copy()), random_rows([97], 8)[0], atol=1e-6, rtol=0)


@pytest.mark.parametrize("name", ["characters", "bytes", "bpe"])
def test_a_space_handed_on_shows_as_the_chips_show_it_in_the_list_cut_the_table_and_the_rows(name):
    # issue 51: after "Use these tokens", spaces showed as blank items in the "dropped" list and a blank "30: " row
    # label, while the token chips showed ␣
    text = "a cat and a dog sat on a mat"
    at = handed(text, name, step=30, il_max_len="6")
    if name == "bpe":
        wait_for_job(at, lambda at: at.dataframe, "the BPE training handed on", 240)
    chips = [box for el in at.get("html") for box in re.findall(r'class="tt-token"[^>]*>(.*?)<sub>', el.value)]
    assert "␣" in chips
    tokens, _, _ = rows(at)
    assert len(tokens) == 6 and not any(" " in tok or not tok for tok in tokens)
    assert tokens == chips[:6] and "␣" in tokens
    assert heatmap_rows(at) == [f"{i}: {tok}" for i, tok in enumerate(tokens)]
    cut = next(w.value for w in at.warning if "dropped" in w.value)
    items = cut[cut.index("”; ") + 3 : cut.rindex(" dropped")].split(", ")
    assert items == chips[6:] and all(item.strip() for item in items) and "␣" in items, cut


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    words=st.integers(1, 50_000).filter(lambda w: w not in TT_SETTINGS["tt_words"].options),
    merges=st.integers(0, 60_000),
    lang=st.sampled_from(bpe.LANGS),
)
def test_a_link_starts_only_a_training_the_text_to_tokens_page_offers(words, merges, lang):
    """Issue 55, item 1: a hand-off's word count the page does not offer (bpe-en-7-60000-0) trains nothing and is
    named; the page keeps its own tokens."""
    at = open_link(PAGE, il_sentence="lower newest", il_from=f"bpe-{lang}-{words}-{merges}-0")
    said = [w.value for w in at.warning]
    assert any("is not one Text to tokens offers" in w and f"{words:,} words" in w for w in said), said
    assert job_runner("tokens").get(shared.training_key(lang, words, merges)) is None
    assert rows(at)[0] == ["lower", "newest"] and not at.exception


# --- The hand-off's schema (lessons.input_layer.handoff), without a page ------------------------------------------


def test_the_schema_is_the_declarations():
    """Its keys are the input layer's declared settings (the same objects), its cuts core's, each table one the input
    layer offers, its limits the text-to-tokens page's bounds."""
    from lessons.input_layer.settings import SETTINGS as IL_SETTINGS

    declared = [IL_SETTINGS[key] for key in ("il_sentence", "il_mode", "il_from")]
    assert all(a is b for a, b in zip((handoff.SENTENCE, handoff.TABLE, handoff.CUT), declared, strict=True))
    assert sorted(TT_SETTINGS["tt_cut"].options) == sorted(core_tokens.CUTS)
    assert set(handoff.TABLE_FOR) <= set(core_tokens.CUTS)
    assert {*handoff.TABLE_FOR.values(), handoff.OTHER_TABLE} == set(IL_SETTINGS["il_mode"].options)
    assert (handoff.MOST_WORDS, handoff.MOST_MERGES) == (50_000, 60_000)


@settings(max_examples=200, deadline=None)
@given(
    cut=st.sampled_from(core_tokens.CUTS),
    lang=st.sampled_from(bpe.LANGS),
    words=st.integers(1, 50_000),
    merges=st.integers(0, 60_000),
    data=st.data(),
)
def test_every_hand_off_the_page_can_write_reads_back_and_none_past_its_bounds(cut, lang, words, merges, data):
    step = data.draw(st.integers(0, merges))
    link = handoff.link("a sentence", cut, lang, words, merges, step)
    read = handoff.read(link["il_from"])
    assert read is not None and read.name == cut and link["il_sentence"] == "a sentence"
    assert link["il_mode"] == {"wordpiece": "minilm", "words": "glove"}.get(cut, "random")
    if cut == "bpe":
        assert read == handoff.Handed("bpe", lang, words, merges, step)
        assert handoff.read(f"bpe-{lang}-{words}-{merges}-{merges + 1}") is None  # a step past the merges
        assert handoff.read(f"bpe-{lang}-50001-{merges}-{step}") is None
        assert handoff.read(f"bpe-{lang}-{words}-60001-{step}") is None
        assert handoff.read(f"bpe-{lang}-0-{merges}-{step}") is None
    elif cut == "words":
        assert read.lang == lang
