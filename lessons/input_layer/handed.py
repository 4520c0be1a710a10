"""The tokens the text-to-tokens page hands on ("Use these tokens"), on the input layer.

The link holds the hand-off (lessons.input_layer.handoff: the sentence, the table and the cut, declared settings of
the page), so that a reload opens the same view. Here: the hand-off applied once (its sentence and table), the box
that says which cut the tokens come from (with the way back to the page's own words, which empties `il_from`), the
cut's tokens and ids, and those ids through the input layer over a table as large as the cut's vocabulary (256
bytes, a BPE's tokens at its step, 1,114,112 code points, MiniLM's 30,522 pieces): a random one, GloVe's for words,
MiniLM's own for WordPiece.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

from core import embeddings as emb
from core import pretrained, tokens
from figures.tokens import tokens_html
from lessons.input_layer.handoff import CUT, OTHER_TABLE, SENTENCE, TABLE, TABLE_FOR, Handed, read, table_for
from lessons.text_to_tokens.settings import SETTINGS as TT_SETTINGS
from ui import tokens as shared
from ui.cache import cached
from ui.device import device
from ui.i18n import t
from ui.jobs import job_progress, refusal_notice

HANDED = "_il_handed"  # session state: the hand-off applied (so that it is applied once)
DROPPED = "_il_dropped"  # the hand-off the learner went back from, while the address may still name it
REFUSED = "il_refused"  # this session's last training the queue refused (ui.jobs.refusal_notice)


def apply_handoff() -> None:
    """Before the page's widgets: a hand-off's sentence, cut and table (the link's table, else the cut's:
    handoff.table_for), set once per hand-off (a learner changes them afterwards as usual)."""
    asked = (st.query_params.get(CUT.key), st.query_params.get(SENTENCE.key))
    if st.session_state.get(DROPPED) not in (None, asked):  # the address has let go of the hand-off dropped
        del st.session_state[DROPPED]
    if not asked[0] or asked in (st.session_state.get(HANDED), st.session_state.get(DROPPED)):
        return
    if (handed := read(asked[0])) is None:
        return
    st.session_state[HANDED] = asked
    st.session_state[CUT.key] = asked[0]
    if asked[1] is not None:
        st.session_state[SENTENCE.key] = asked[1]
    st.session_state[TABLE.key] = st.query_params.get(TABLE.key) or table_for(handed.name)


def drop() -> None:
    """The way back to the page's own words (a button's on_click): the cut's box emptied, which takes it out of the
    link (the box is bound to it)."""
    st.session_state[CUT.key] = ""
    st.session_state[DROPPED] = st.session_state.pop(HANDED, None)


def table_in_use(mode: str, handed: Handed | None) -> str:
    """The table the tokens are looked up in: the one chosen, but GloVe's reads words only and MiniLM's its own
    WordPiece pieces; any other cut reads a random table as large as its vocabulary."""
    if handed is None or TABLE_FOR.get(handed.name) == mode:
        return mode
    return OTHER_TABLE


@dataclass(frozen=True)
class HandedTokens:
    """A cut handed on, applied to the sentences: one Cut per sentence, the row an unknown token reads (WordPiece's
    [UNK], or a word list's <unk> after its words) and the random table's rows (the cut's vocabulary)."""

    handed: Handed
    cuts: tuple[tokens.Cut, ...]
    unknown: int
    vocabulary: int


@cached(max_entries=64, copy=True)
def handed_cuts(sentences: tuple[str, ...], handed: Handed) -> tuple[tokens.Cut, ...]:
    """Each sentence cut as the text-to-tokens page cut it (BPE: the training's merges, done, at handed.step)."""
    merges = (
        shared.merges(shared.training_key(handed.lang, handed.words, handed.merges)) if handed.name == "bpe" else ()
    )
    return tuple(shared.cut(s[: shared.MAX_CHARS], handed.name, handed.lang, merges, handed.step) for s in sentences)


def handed_tokens(text: str, sentences: tuple[str, ...]) -> HandedTokens | None:
    """The box that says which cut the tokens come from, with its tokens and the way back; the cut applied to the
    sentences, or None when there is none to apply: no hand-off, a link's cut the lab does not know, a BPE training
    not done on this server yet (started here, its progress shown), MiniLM's package missing."""
    if not text:
        return None
    box = st.container(border=True)
    done = _ready(box, text)
    if done is not None:
        try:
            cuts = handed_cuts(sentences, done)
            wordpiece = shared.wordpiece() if done.name == "wordpiece" else None
        except pretrained.PretrainedMissing:
            box.warning(t("tt.no_minilm"))
            done = None
        else:
            first = cuts[0]
            where = t("il.handed_bpe", lang=t(f"tt.lang_{done.lang}"), words=f"{done.words:,}", step=f"{done.step:,}")
            box.markdown(
                t("tt.handoff_title", cut=t(f"tt.cut_{done.name}"), n=len(first), vocabulary=f"{first.vocabulary:,}")
                + (where if done.name == "bpe" else "")
            )
            box.html(tokens_html(first.tokens, first.ids))
            box.caption(t(f"tt.handoff_{table_for(done.name)}"))
    if box.button(t("tt.handoff_drop"), key="il_from_drop", on_click=drop):
        st.rerun()  # the whole page: the cut's box and the table's controls are outside this section's fragment
    if done is None:
        return None
    unknown = wordpiece.unk if wordpiece is not None else first.vocabulary  # words: a <unk> row after the list
    return HandedTokens(done, cuts, unknown, first.vocabulary + (done.name == "words"))


def _ready(box, text: str) -> Handed | None:
    """The cut the link names, ready to cut with (BPE: its training done, its step within its merges); else None,
    and the box says why: a cut it does not know, a training in progress (started now if the server has none)."""
    handed = read(text)
    if handed is None:
        box.warning(t("tt.handoff_bad", text=text))
        return None
    if handed.name != "bpe":
        return handed
    named = dict(lang=t(f"tt.lang_{handed.lang}"), words=f"{handed.words:,}", merges=f"{handed.merges:,}")
    words, merges = TT_SETTINGS["tt_words"], TT_SETTINGS["tt_merges"]
    if handed.words not in words.options or not merges.low <= handed.merges <= merges.high:  # type: ignore[operator]
        # a link starts only the trainings the page's own controls can ask for (issue 55)
        offered = ", ".join(f"{w:,}" for w in words.options)
        box.warning(t("il.handed_not_offered", offered=offered, most=f"{merges.high:,.0f}", **named))
        return None
    job = shared.training(handed.lang, handed.words, handed.merges, REFUSED)
    if job is None:  # the queue refused it: ui.jobs says why, and when it is free again
        box.warning(t("il.handed_refused", **named))
        with box:
            refusal_notice(shared.runner(), REFUSED)
        return None
    if job.error:
        box.error(t("tt.failed", error=job.error))
        return None
    if not job.done:
        box.info(t("il.handed_training", **named))
        with box:
            job_progress(shared.runner(), job.key, shared.describe)
        return None
    if handed.step > len(job.result):
        box.info(t("tt.step_past", step=f"{handed.step:,}", learned=len(job.result)))
        handed = replace(handed, step=len(job.result))
    return handed


def run_handed(
    handed: HandedTokens, wv, cfg: emb.LayerConfig, training: bool
) -> tuple[list[str], list[int], list[int], dict[str, np.ndarray], list[str]]:
    """The handed tokens through the input layer: every token (for the notice of what max_len cuts), and for the
    first cfg.max_len their ids, segments, each stage (tokens, d) and the tokens GloVe lacks. With `wv`, GloVe's rows
    (words, GloVe's ids); else a random table of handed.vocabulary rows (core.embeddings.table_stages)."""
    every = [tok for cut in handed.cuts for tok in cut.tokens]
    ids = [i for cut in handed.cuts for i in tokens.table_ids(cut, handed.unknown)][: cfg.max_len]
    segments = [s for s, cut in enumerate(handed.cuts) for _ in cut.tokens][: cfg.max_len]
    rows, vocabulary, missing = None, handed.vocabulary, list[str]()
    if wv is not None:
        ids, rows, missing = emb.glove_rows(wv, every[: cfg.max_len])
        vocabulary = len(wv) + 1
    stages = emb.table_stages(ids, segments, vocabulary, cfg, rows=rows, training=training, device=device())
    return every, ids, segments, {name: v.cpu().numpy() for name, v in stages.items()}, missing


@cached(max_entries=64, copy=True)
def handed_stages(
    handed: HandedTokens, wv, cfg: emb.LayerConfig
) -> tuple[list[str], list[int], list[int], dict[str, np.ndarray], list[str]]:
    """run_handed in eval mode, kept once per server."""
    return run_handed(handed, wv, cfg, training=False)
