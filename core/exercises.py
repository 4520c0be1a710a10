"""The "Try this" exercises: every expected answer is computed here from core, never typed in by hand.

Each exercise's question, hint and explanation live in locales/<lang>.toml under [ex] as <key>_q, <key>_hint
and <key>_why ({answer} in the explanation is this module's answer). `check` compares what a learner typed.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from core import (
    bpe,
    cloud,
    embeddings,
    neighbours,
    positional,
    pretrained,
    projection,
    rotary,
    tokens,
    training,
)
from core.attention import checks as attention_checks
from core.attention import head as attention_head
from core.vectors import WordVectors

Answer = float | int | str


@dataclass(frozen=True)
class Exercise:
    """One exercise: `answer(wv)` computes the expected answer (wv: the word vectors, for the pages that use them).

    tolerance: for numbers, the largest accepted |typed - answer|; words are compared lowercased.
    """

    key: str
    answer: Callable[[WordVectors | None], Answer]
    tolerance: float = 0.0


def parse_answer(typed: str) -> float | str:
    """A typed answer: a number when it reads as one ("1,024", "1e3", "51"), else the lowercased word."""
    text = typed.strip().lower()
    try:
        return float(text.replace(",", "").replace("_", ""))
    except ValueError:
        return text


def check(exercise: Exercise, typed: str, wv: WordVectors | None = None) -> bool:
    """Whether `typed` is the exercise's answer (numbers within its tolerance)."""
    return matches(exercise, typed, exercise.answer(wv))


def matches(exercise: Exercise, typed: str, expected: Answer) -> bool:
    """Whether `typed` is `expected`, the exercise's answer computed once by the caller."""
    given = parse_answer(typed)
    if isinstance(expected, str):
        return given == expected.lower()
    return isinstance(given, float) and math.isfinite(given) and abs(given - expected) <= exercise.tolerance


# --- The answers, one function each ------------------------------------------------------------------------


def pairs_repeating_within(d_model: int, base: float, positions: float) -> int:
    """How many sin/cos pairs have a wavelength shorter than `positions` (they repeat within it)."""
    return int((positional.wavelengths(d_model, base) < positions).sum())


def longest_wavelength(d_model: int, base: float) -> float:
    return float(positional.wavelengths(d_model, base)[-1])


def dot_at(d_model: int, m: int, n: int) -> float:
    table = positional.sinusoidal_encoding(max(m, n) + 1, d_model)
    return float(table[m] @ table[n])


def with_vectors(answer: Callable[[WordVectors], Answer]) -> Callable[[WordVectors | None], Answer]:
    """An answer that reads the word vectors: a ValueError saying so when a page calls it without them."""

    def checked(wv: WordVectors | None) -> Answer:
        if wv is None:
            raise ValueError("this exercise's answer needs the word vectors (wv).")
        return answer(wv)

    return checked


def analogy_answer(wv: WordVectors, a: str, b: str, c: str) -> str:
    return projection.analogy(wv, a, b, c, 1)[0][0]


def nearest_word(wv: WordVectors, word: str) -> str:
    return cloud.neighbours(wv, word, 1)[0][0]


def default_cloud_rows(wv: WordVectors) -> list[int]:
    """The rows the embedding-space page draws at its defaults: 5,000 words, four chosen words, four groups."""
    chosen = ["man", "woman", "king", "queen"]
    grouped = [w for name in ("animals", "countries", "capitals", "numbers") for w in cloud.GROUPS[name]]
    return cloud.cloud_rows(wv, 5000, chosen + grouped)[0]


def default_cloud_points(wv: WordVectors) -> int:
    return len(default_cloud_rows(wv))


def kept_gained_in_3d(wv: WordVectors) -> float:
    """Percentage points of neighbours kept (k = neighbours.K) that PCA in 3D gains over 2D on the default cloud."""
    x = wv.vectors[default_cloud_rows(wv)].cpu().numpy()
    kept = [neighbours.preservation(x, cloud.project(x, cloud.CloudConfig("PCA", d))).mean for d in (2, 3)]
    return 100 * (kept[1] - kept[0])


def learned_accuracy_past(train_len: int, test_len: int) -> float:
    """Mean accuracy of a learned-table model at positions train_len..test_len-1 (no row: always 0)."""
    model = training.TinyAttention(training.TrainConfig(position="learned", train_len=train_len))
    accuracy = training.accuracy_by_position(model, test_len, samples=32)
    return float(sum(accuracy[train_len:]) / (test_len - train_len))


def utf8_bytes(text: str) -> int:
    return len(tokens.utf8_bytes(text))


def wordpiece_pieces(word: str) -> int:
    """How many pieces MiniLM's WordPiece cuts `word` into."""
    vocabulary = tokens.WordPiece.from_file(pretrained.minilm_weights_path().with_name("tokenizer.json"))
    return len(vocabulary.cut(word))


def first_merge(lang: str, words: int) -> str:
    """The token BPE's first merge makes on `lang`'s most frequent words, as text."""
    return tokens.shown_bytes(bpe.train(bpe.word_counts(lang, words), 1)[0].token)


def embedding_table_size() -> int:
    """The values of MiniLM's embedding table (vocabulary x d_model), read from its weights."""
    return tokens.price_from_file(pretrained.minilm_weights_path()).table


def minilm_positions() -> int:
    return int(pretrained.minilm_position_table().shape[0])


def pe_over_token_norm(d_model: int) -> float:
    """At d_model, how many times longer a PE row is than an unscaled xavier-initialised token vector."""
    norms = embeddings.norms_against_d_model([d_model], "xavier")
    return norms["PE row"][0] / norms["token"][0]


def tying_saves(vocab: int, d_model: int) -> int:
    counts = embeddings.parameter_counts(vocab, d_model)
    return counts["untied"]["total"] - counts["tied"]["total"]


def are_you_ok_value(row: int, col: int) -> float:
    return float((embeddings.ARE_YOU_OK + positional.sinusoidal_encoding(5, 4)[:4])[row, col])


def rope_pairs_longer_than(head_dim: int, base: float, length: int) -> int:
    """RoPE pairs whose wavelength exceeds `length`: they never make a full turn in a context of that length."""
    wavelengths = 2 * math.pi / rotary.rope_inv_freq(head_dim, base)
    return int((wavelengths > length).sum())


def attention_shift_difference(wv: WordVectors, scheme: str) -> float:
    """The attention page's shift check at its defaults: the largest change of a scheme's logits when every
    position moves by AttentionConfig().shift."""
    cfg = attention_head.AttentionConfig()
    head = attention_head.make_head(cfg, wv)
    return attention_checks.shift_check(head, cfg, scheme).max_diff


def attention_beyond(scheme: str, value: str) -> float | int:
    """A number of the attention page's "past the trained length" line at its defaults (twice the trained length)."""
    cfg = attention_head.AttentionConfig()
    return attention_checks.beyond(cfg, scheme, attention_checks.BEYOND * cfg.trained_len).values[value]


# Not a cached result of a learner's input (ui.cache caches those): constants of the shipped weights, with no
# arguments, computed once per process for the "Try this" checks of every page, the tests and the scripts alike.
@functools.cache
def minilm_answers() -> dict[str, float | int]:
    """The "Inside a real Transformer" page's numbers at its defaults (probes.ProbeConfig), from MiniLM's weights:
    loaded here once for the three answers and let go (the page keeps its own copy)."""
    from core import minilm, probes

    model, cfg = minilm.load_minilm(), probes.ProbeConfig()
    named = probes.positional_heads(probes.offset_profile(probes.run_sentences(model, probes.read_sentences())))
    taken = probes.take_positions_away(model, minilm.encode(model, cfg.sentence, cfg.pair or None), cfg.seed)
    uses = probes.word_uses(model, cfg.word, cfg.use_list)
    last = {b: float(c[-1]) for (a, b), c in probes.use_cosines(uses.vectors).items() if a == 0}  # to the first use
    return {
        "prev": sum(h.offset == -1 for h in named),
        "none": float(taken.cosine["none"][-1]),
        "bank": uses.uses[max(last, key=lambda b: last[b])][0] + 1,  # its sentence, counted from 1
    }


@functools.cache  # constants of the shipped weights and GloVe, as minilm_answers'
def sentence_answers() -> dict[str, float | int]:
    """The "Sentence vectors" page's numbers, from MiniLM's weights and GloVe: loaded here once for the three answers
    and let go (the page keeps its own copies)."""
    from core import glove, minilm, sentences

    model, wv = minilm.load_minilm(), glove.load_bundled()
    pairs = sentences.read_pairs()
    vector = functools.partial(sentences.minilm_vector, model)
    learned = [sentences.cosine(vector(p.first), vector(p.second)) for p in pairs]  # as trained
    most = min(range(len(pairs)), key=learned.__getitem__)
    texts, topics = sentences.read_collection()
    means = torch.stack([sentences.glove_mean(wv, text) for text in texts])  # (n, 50)
    hits = sentences.search(means, sentences.glove_mean(wv, "a storm is coming tonight"), 10)
    return {"most": most + 1, "learned": learned[0], "storm": sum(topics[i] == "weather" for i, _ in hits)}


EXERCISES: dict[str, list[Exercise]] = {
    "pe": [
        Exercise("pe_repeat", lambda wv: pairs_repeating_within(128, 100.0, 50)),
        Exercise("pe_longest", lambda wv: longest_wavelength(512, 10000.0), tolerance=1.0),
        Exercise("pe_offset", lambda wv: dot_at(128, 10, 15), tolerance=0.01),
    ],
    "we": [
        Exercise("we_analogy", with_vectors(lambda wv: analogy_answer(wv, "paris", "france", "rome"))),
        Exercise("we_frog", with_vectors(lambda wv: nearest_word(wv, "frog"))),
        Exercise("we_king_row", with_vectors(lambda wv: wv.stoi["king"])),
    ],
    "es": [
        Exercise("es_queen", with_vectors(lambda wv: nearest_word(wv, "queen"))),
        Exercise("es_count", with_vectors(default_cloud_points)),
        Exercise("es_kept_3d", with_vectors(kept_gained_in_3d), tolerance=0.15),
    ],
    "lv": [
        Exercise("lv_past", lambda wv: learned_accuracy_past(16, 32), tolerance=0.005),
        Exercise("lv_minilm", lambda wv: minilm_positions()),
    ],
    "tt": [
        Exercise("tt_bytes", lambda wv: utf8_bytes("你好")),
        Exercise("tt_pieces", lambda wv: wordpiece_pieces("unbelievably")),
        Exercise("tt_first", lambda wv: first_merge("en", 10_000)),
        Exercise("tt_table", lambda wv: embedding_table_size()),
    ],
    "il": [
        Exercise("il_scale", lambda wv: pe_over_token_norm(512), tolerance=1.0),
        Exercise("il_tying", lambda wv: tying_saves(37_000, 512)),
        Exercise("il_ok", lambda wv: are_you_ok_value(1, 0), tolerance=0.00005),
    ],
    "rp": [
        Exercise("rp_slow", lambda wv: rope_pairs_longer_than(128, 10000.0, 4096)),
        Exercise("rp_llama3", lambda wv: rope_pairs_longer_than(128, 500000.0, 4096)),
        Exercise("rp_alibi", lambda wv: rotary.alibi_slopes(8)[0], tolerance=0.0005),
    ],
    "at": [
        Exercise("at_shift", with_vectors(lambda wv: attention_shift_difference(wv, "sinusoidal")), tolerance=0.005),
        Exercise("at_t5", lambda wv: attention_beyond("t5", "clips_from")),
        Exercise("at_alibi", lambda wv: attention_beyond("alibi", "at_length"), tolerance=0.05),
    ],
    "tf": [
        Exercise("tf_prev", lambda wv: minilm_answers()["prev"]),
        Exercise("tf_none", lambda wv: minilm_answers()["none"], tolerance=0.005),
        Exercise("tf_bank", lambda wv: minilm_answers()["bank"]),
    ],
    "sv": [
        Exercise("sv_most", lambda wv: sentence_answers()["most"]),
        Exercise("sv_learned", lambda wv: sentence_answers()["learned"], tolerance=0.0005),
        Exercise("sv_storm", lambda wv: sentence_answers()["storm"]),
    ],
}


def answer_text(exercise: Exercise, wv: WordVectors | None = None) -> str:
    """The expected answer as the explanation shows it: to the precision its tolerance asks for."""
    return formatted(exercise, exercise.answer(wv))


def formatted(exercise: Exercise, value: Answer) -> str:
    """An answer computed by the caller, to the precision the exercise's tolerance asks for."""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return f"{value:,}"
    decimals = 0 if exercise.tolerance >= 1 else max(0, math.ceil(-math.log10(2 * exercise.tolerance)))
    return f"{value:,.{decimals}f}"
