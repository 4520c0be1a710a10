"""Tokenizers the pages share: the text-to-tokens lesson cuts a sentence, and "Use these tokens" hands the sentence
and the chosen cut to the input layer (lessons.input_layer.handoff), which cuts it again the same way; the input
layer and the real-Transformer page say which pieces MiniLM's tokenizer reads as [UNK] (`unknown_notice`).

The cuts (core.tokens, core.bpe) and what they need, loaded once per server: MiniLM's WordPiece vocabulary, wordfreq's
word counts, and BPE trainings, which run in the shared "tokens" queue (ui.jobs), one per (language, words, merges),
so that a class asking for the same training trains once.
"""

from __future__ import annotations

from collections.abc import Hashable

import streamlit as st

from core import bpe, minilm, pretrained, tokens
from core.jobs import Job, JobRunner, in_child
from ui.cache import cached
from ui.i18n import t
from ui.jobs import held, job_runner, press, session_id

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


def training(lang: str, words: int, merges: int, refused_key: str, wait: float = WAIT_S) -> Job | None:
    """The training of `merges` merges on `words` words of `lang`: submitted unless it is queued, running or done,
    then awaited up to `wait` seconds. None when the queue refuses it: the page says why where it asked
    (ui.jobs.refusal_notice with its own `refused_key`)."""
    key = training_key(lang, words, merges)
    job = held(runner(), key)
    if job is None or job.error:
        counts = word_counts(lang, words)
        if words * merges >= CHILD_FROM:  # pure Python: in a thread it would hold the GIL against the event loop
            work = in_child(bpe.train, counts, merges)
        else:  # done in milliseconds: a child's start would only delay it

            def work(progress) -> bpe.Merges:
                return bpe.train(counts, merges, on_step=lambda step, total: progress(step, 0.0))

        jobs = press(runner(), [(key, work, max(merges, 1))], session_id(), st.session_state, refused_key)
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


def unknown_notice(tokenizer, sentence: str, pair: str = "", *, where=st, line: int | None = None) -> None:
    """A warning when MiniLM's tokenizer reads part of the text as [UNK]: that its vocabulary is English, how many of
    the text's pieces were unknown, and which characters they were (the tokenizer's offsets into the text typed).

    Args:
        tokenizer: the model's tokenizers.Tokenizer; line: the text's number in a list of sentences, if any.
    """
    enc = tokenizer.encode(sentence, pair) if pair else tokenizer.encode(sentence)
    texts = (sentence, pair)
    inner = [
        (tok, at, seq)
        for tok, at, seq in zip(enc.tokens, enc.offsets, enc.sequence_ids, strict=True)
        if seq is not None
    ]
    unknown = [texts[seq][a:b] for tok, (a, b), seq in inner if tok == minilm.UNKNOWN]
    if unknown:
        text = ", ".join(f"“{piece}”" for piece in unknown)
        where_ = t("tf.unknown_use", n=line) if line is not None else ""
        where.warning(t("tf.unknown_pieces", where=where_, n=len(unknown), total=len(inner), text=text))
