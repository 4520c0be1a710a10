"""Tokenizers two pages share: the text-to-tokens lesson cuts a sentence, and "Use these tokens" hands the sentence
and the chosen cut to the input layer, which starts from it.

The cuts (core.tokens, core.bpe) and what they need, loaded once per server: MiniLM's WordPiece vocabulary, wordfreq's
word counts, and BPE trainings, which run in the shared "tokens" queue (ui.jobs), one per (language, words, merges),
so that a class asking for the same training trains once.

The hand-off is the input layer's link: `il_sentence` (its own box), `il_mode` (its table: MiniLM's for WordPiece,
GloVe's for words, a random one else) and `il_from`, the cut ("wordpiece", "words", "characters", "bytes", or
"bpe-<lang>-<words>-<merges>-<step>").
"""

from __future__ import annotations

from collections.abc import Hashable

import streamlit as st

from core import bpe, pretrained, tokens
from core.jobs import Job, JobRunner
from figures.tokens import tokens_html
from ui.cache import cached
from ui.i18n import t
from ui.jobs import job_runner, press, session_id

FROM = "il_from"  # the input layer's link parameter: the cut it was handed
HANDED = "_il_handed"  # session state: the hand-off the input layer has applied (so that it applies it once)
MODE_FOR = {"wordpiece": "minilm", "words": "glove"}  # the input layer's table for each cut; "random" for the rest
WAIT_S = 1.0  # a training that takes longer shows its progress; a shorter one is just there
MAX_CHARS = 1_000  # the cuts read at most this many characters of a text


def runner() -> JobRunner:
    """The BPE trainings' queue, shared by every learner and both pages."""
    return job_runner("tokens")


@cached()
def wordpiece() -> tokens.WordPiece:
    """MiniLM's WordPiece vocabulary (its vocab.txt). Raises PretrainedMissing without its package."""
    return tokens.WordPiece.from_file(pretrained.minilm_weights_path().with_name("vocab.txt"))


@cached(max_entries=8)
def word_counts(lang: str, words: int) -> tuple[tuple[str, int], ...]:
    """wordfreq's `words` most frequent words of `lang` and their counts (core.bpe.word_counts), read once."""
    return tuple(bpe.word_counts(lang, words))


def training_key(lang: str, words: int, merges: int) -> tuple:
    return ("bpe", lang, words, merges)


def merges(key: Hashable) -> bpe.Merges:
    """The merges of a training that is done (its key, training_key): its job's result, shared by every learner."""
    job = runner().get(key)
    if job is None or not job.done or job.error:
        raise LookupError(f"{key}: not trained")
    return job.result


def training(lang: str, words: int, merges: int, wait: float = WAIT_S) -> Job | None:
    """The training of `merges` merges on `words` words of `lang`: submitted unless it is queued, running or done,
    then awaited up to `wait` seconds. None when the queue refuses it (the caller says why: ui.jobs.refusal)."""
    key = training_key(lang, words, merges)
    job = runner().get(key)
    if job is None or job.error:
        counts = word_counts(lang, words)

        def work(progress) -> bpe.Merges:
            return bpe.train(counts, merges, on_step=lambda step, total: progress(step, 0.0))

        jobs = press(runner(), [(key, work, max(merges, 1))], session_id(), st.session_state, "tt_refused")
        if jobs is None:
            return None
        job = jobs[0]
    job.finished.wait(wait)
    return job


def describe(job: Job) -> str:
    """The progress bar's text for a training."""
    if job.deferred or not job.started:
        return t("tt.waiting", n=runner().ahead(job.key))
    return t("tt.training_step", step=job.step, total=job.total)


def cut(text: str, name: str, lang: str = "en", merges: bpe.Merges = (), step: int = 0) -> tokens.Cut:
    """`text` cut by `name` (the words looked up in `lang`'s; BPE after `step` of `merges`). Raises
    PretrainedMissing for WordPiece without MiniLM's package."""
    if name == "characters":
        return tokens.characters(text)
    if name == "bytes":
        return tokens.utf8_bytes(text)
    if name == "words":
        return tokens.words(text, word_list(lang))
    if name == "wordpiece":
        return wordpiece().cut(text)
    return tokens.bpe_cut(text, merges, step)


@cached(max_entries=2)
def word_list(lang: str) -> tuple[str, ...]:
    return tuple(w for w, _ in bpe.word_counts(lang))


def handoff(sentence: str, name: str, lang: str, words: int, merges: int, step: int) -> dict[str, str]:
    """The input layer's link parameters for `sentence` cut by `name` (BPE: its language, words, merges, step)."""
    chosen = f"bpe-{lang}-{words}-{merges}-{step}" if name == "bpe" else name
    return {"il_sentence": sentence, "il_mode": MODE_FOR.get(name, "random"), FROM: chosen}


def read_from(text: str | None) -> tuple[str, tuple] | None:
    """A hand-off's cut from the link: (name, (lang, words, merges, step) for BPE, else ()); None when malformed."""
    if text in ("wordpiece", "words", "characters", "bytes"):
        return text, ()
    parts = (text or "").split("-")
    if len(parts) == 5 and parts[0] == "bpe" and parts[1] in bpe.LANGS and all(p.isdigit() for p in parts[2:]):
        lang, (words, merges, step) = parts[1], map(int, parts[2:])
        if words <= 50_000 and step <= merges <= 60_000:
            return "bpe", (lang, words, merges, step)
    return None


def apply_handoff() -> None:
    """On the input layer, before its widgets: a hand-off's sentence and table, set once per hand-off (a learner
    changes them afterwards as usual)."""
    asked = (st.query_params.get(FROM), st.query_params.get("il_sentence"))
    if asked[0] is None or st.session_state.get(HANDED) == asked or read_from(asked[0]) is None:
        return
    st.session_state[HANDED] = asked
    if asked[1] is not None:
        st.session_state["il_sentence"] = asked[1]
    st.session_state["il_mode"] = MODE_FOR.get(read_from(asked[0])[0], "random")  # type: ignore[index]


def handed_tokens(sentence: str) -> None:
    """On the input layer: the sentence as the cut handed on cuts it, coloured with its ids, and what table reads
    them; a button goes back to the page's own tokens. Nothing without a hand-off."""
    if (text := st.query_params.get(FROM)) is None:
        return
    chosen = read_from(text)
    box = st.container(border=True)
    if chosen is None:
        box.warning(t("tt.handoff_bad", text=text))
    else:
        name, bpe_settings = chosen
        merges: bpe.Merges = ()
        step = 0
        if bpe_settings:
            lang, words, n, step = bpe_settings
            job = training(lang, words, n, wait=10.0)
            if job is None or not job.done or job.error:
                box.info(t("tt.handoff_training"))
                return
            merges, step = job.result, min(step, len(job.result))
        try:
            done = cut(sentence[:MAX_CHARS], name, bpe_settings[0] if bpe_settings else "en", merges, step)
        except pretrained.PretrainedMissing:
            box.warning(t("tt.no_minilm"))
            return
        box.markdown(t("tt.handoff_title", cut=t(f"tt.cut_{name}"), n=len(done), vocabulary=done.vocabulary))
        box.html(tokens_html(done.tokens, done.ids))
        box.caption(t(f"tt.handoff_{MODE_FOR.get(name, 'random')}"))
    if box.button(t("tt.handoff_drop"), key="il_from_drop"):
        st.query_params.pop(FROM, None)
        st.session_state.pop(HANDED, None)
        st.rerun()
