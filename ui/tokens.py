"""Tokenizers two pages share: the text-to-tokens lesson cuts a sentence, and "Use these tokens" hands the sentence
and the chosen cut to the input layer, which starts from it.

The cuts (core.tokens, core.bpe) and what they need, loaded once per server: MiniLM's WordPiece vocabulary, wordfreq's
word counts, and BPE trainings, which run in the shared "tokens" queue (ui.jobs), one per (language, words, merges),
so that a class asking for the same training trains once.

The hand-off is the input layer's link: `il_sentence` (its own box), `il_mode` (its table: MiniLM's for WordPiece,
GloVe's for words, a random one else) and `il_from`, the cut (`Handed.text`: "wordpiece", "characters", "bytes",
"words-<lang>", or "bpe-<lang>-<words>-<merges>-<step>"), which lessons/input_layer/handed.py reads.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import streamlit as st

from core import bpe, pretrained, tokens
from core.jobs import Job, JobRunner, in_child
from ui.cache import cached
from ui.i18n import t
from ui.jobs import held, job_runner, press, session_id

FROM = "il_from"  # the input layer's link parameter: the cut it was handed
MODE_FOR = {"wordpiece": "minilm", "words": "glove"}  # the input layer's table for each cut; "random" for the rest
WAIT_S = 1.0  # a training that takes longer shows its progress; a shorter one is just there
MAX_CHARS = 1_000  # the cuts read at most this many characters of a text
CHILD_FROM = 1_000_000  # words x merges from which a training runs in a child process (core.jobs.in_child)


def runner() -> JobRunner:
    """The BPE trainings' queue, shared by every learner and both pages."""
    return job_runner("tokens")


@cached()
def wordpiece() -> tokens.WordPiece:
    """MiniLM's WordPiece tokenizer (its tokenizer.json). Raises PretrainedMissing without its package."""
    return tokens.WordPiece.from_file(pretrained.minilm_weights_path().with_name("tokenizer.json"))


@cached(max_entries=8)
def word_counts(lang: str, words: int) -> tuple[tuple[str, int], ...]:
    """wordfreq's `words` most frequent words of `lang` and their counts (core.bpe.word_counts), read once."""
    return tuple(bpe.word_counts(lang, words))


def training_key(lang: str, words: int, merges: int) -> tuple:
    return ("bpe", lang, words, merges)


def merges(key: Hashable) -> bpe.Merges:
    """The merges of a training that is done (its key, training_key): its job's result, shared by every learner.
    A training this session asked for (`training`) is held by it, so it is found however many others ran since."""
    job = runner().get(key)
    if job is None or not job.done or job.error:
        raise LookupError(f"{key}: not trained")
    return job.result


def training(lang: str, words: int, merges: int, wait: float = WAIT_S) -> Job | None:
    """The training of `merges` merges on `words` words of `lang`: submitted unless it is queued, running or done,
    then awaited up to `wait` seconds. None when the queue refuses it (the caller says why: ui.jobs.refusal)."""
    key = training_key(lang, words, merges)
    job = held(runner(), key)
    if job is None or job.error:
        counts = word_counts(lang, words)
        if words * merges >= CHILD_FROM:  # pure Python: in a thread it would hold the GIL against the event loop
            work = in_child(bpe.train, counts, merges)
        else:  # done in milliseconds: a child's start would only delay it

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
    return tokens.cut_text(
        text, name, vocabulary=word_list(lang) if name == "words" else (),
        wordpiece=wordpiece() if name == "wordpiece" else None, merges=merges, step=step,
    )  # fmt: skip


@cached(max_entries=2)
def word_list(lang: str) -> tuple[str, ...]:
    return tuple(w for w, _ in bpe.word_counts(lang))


@dataclass(frozen=True)
class Handed:
    """A cut handed on to the input layer: its name (core.tokens.CUTS), the words' language, and for BPE its
    training (language, words, merges) and the merge step."""

    name: str
    lang: str = "en"
    words: int = 0
    merges: int = 0
    step: int = 0

    @property
    def text(self) -> str:
        """The link's form: "bytes", "words-zh", "bpe-en-10000-2000-50"."""
        if self.name == "bpe":
            return f"bpe-{self.lang}-{self.words}-{self.merges}-{self.step}"
        return f"words-{self.lang}" if self.name == "words" else self.name


def handoff(sentence: str, name: str, lang: str, words: int, merges: int, step: int) -> dict[str, str]:
    """The input layer's link parameters for `sentence` cut by `name` (words: their language; BPE: its language,
    words, merges, step)."""
    handed = Handed(name, lang, words, merges, step) if name == "bpe" else Handed(name, lang)
    return {"il_sentence": sentence, "il_mode": MODE_FOR.get(name, "random"), FROM: handed.text}


def read_from(text: str | None) -> Handed | None:
    """A hand-off's cut from the link (Handed.text; "words" alone is English's); None when malformed."""
    if text is None:
        return None
    if text in ("wordpiece", "characters", "bytes", "words"):
        return Handed(text)
    parts = text.split("-")
    if len(parts) == 2 and parts[0] == "words" and parts[1] in bpe.LANGS:
        return Handed("words", parts[1])
    numbers = all(p.isascii() and p.isdigit() and len(p) <= 6 for p in parts[2:])
    if len(parts) == 5 and parts[0] == "bpe" and parts[1] in bpe.LANGS and numbers:
        words, merges, step = map(int, parts[2:])
        if 0 < words <= 50_000 and step <= merges <= 60_000:
            return Handed("bpe", parts[1], words, merges, step)
    return None
