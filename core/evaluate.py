"""Evaluate word vectors: analogies (questions-words format) and word-pair similarity (Spearman).

Semantics follow gensim's `evaluate_word_analogies`: only the `restrict` most frequent words count; a question
with a word outside them is skipped; the answer is the nearest word to b - a + c (unit vectors, cosine)
among those words, a, b and c excluded. Batched on the device; on the CPU the scores are made in tiles that stay
in cache, not as a (batch, vocabulary) matrix written to memory and read back.

    python -m core.evaluate analogies FILE [--vectors SOURCE] [--restrict N] [--case-insensitive]
    python -m core.evaluate similarity FILE [--vectors SOURCE] [--restrict N]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from core.problems import Problem
from core.vectors import WordVectors


@dataclass(frozen=True)
class Question:
    section: str
    a: str
    b: str
    c: str
    expected: str


# gensim's questions-words.txt is 0.6 MB; a file is read whole and each question becomes an object, so its bytes are
# checked on the server (decode_questions) whatever the upload widget's own cap said.
MAX_QUESTIONS_BYTES = 2 * 2**20


def decode_questions(data: bytes, name: str, *, max_bytes: int = MAX_QUESTIONS_BYTES) -> str:
    """An uploaded questions file's text, its size checked before it is decoded. Raises Problem when too big."""
    if len(data) > max_bytes:
        raise Problem("questions_too_big", name=name, mb=f"{len(data) / 2**20:.1f}", cap=f"{max_bytes / 2**20:g}")
    return data.decode("utf-8", errors="replace")


def read_questions(text: str) -> list[Question]:
    """questions-words format: `: section` headers, then `a b c expected` per line. Raises ValueError naming a bad line."""
    questions, section = [], ""
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(":"):
            section = line[1:].strip()
            continue
        words = line.split()
        if len(words) != 4:
            raise Problem("questions_line", number=number, line=repr(line[:80]))
        questions.append(Question(section, *words))
    return questions


TILE_ROWS = 512  # questions per batch
# vocabulary columns per score tile on the CPU: a (TILE_ROWS, TILE_COLS) float32 tile (1 MiB) stays in a core's L2
# cache from the matmul that writes it to the passes that read it, instead of going out to memory and back
TILE_COLS = 512


def evaluate_analogies(
    wv: WordVectors,
    questions: list[Question],
    *,
    restrict: int = 300_000,
    case_insensitive: bool = False,
    batch_size: int = TILE_ROWS,
    tile_cols: int | None = None,
    on_batch: Callable[[int, int], None] | None = None,
) -> dict:
    """Accuracy of 3CosAdd on the questions, gensim's rules, batched on wv's device.

    The answer to a question is the first index of the largest cosine with b - a + c among the `restrict` most
    frequent words, a, b and c excluded (with every other spelling of theirs when case_insensitive).

    Args:
        batch_size: questions scored at once.
        tile_cols: vocabulary columns scored at once; default TILE_COLS on the CPU, the whole vocabulary elsewhere.
        on_batch: called with (questions done, questions asked) after each batch.

    Returns:
        {"accuracy", "correct", "total", "skipped", "sections": [{"section", "correct", "total", "accuracy"}],
         "predictions": [(question index, predicted word)]}
    """
    n = min(restrict, len(wv))
    ok_vocab = wv.itos[:n]
    keys = list(map(str.upper, ok_vocab)) if case_insensitive else ok_vocab
    # key -> its first row, so the most frequent spelling wins (as in gensim): later rows are written first
    index = dict(zip(reversed(keys), range(n - 1, -1, -1), strict=True))
    others: dict[int, list[int]] = {}  # a key's first row -> its other rows, excluded with it
    if len(index) < n:
        for i, k in enumerate(keys):
            if index[k] != i:
                others.setdefault(index[k], []).append(i)
    width = 1 + max(map(len, others.values()), default=0)

    kept, abcd, excluded = [], [], []
    for qi, q in enumerate(questions):
        found = [index.get(w.upper() if case_insensitive else w) for w in (q.a, q.b, q.c, q.expected)]
        ids = [i for i in found if i is not None]
        if len(ids) < len(found):
            continue
        kept.append((qi, q))
        abcd.append(ids)
        row = []
        for i in ids[:3]:
            spelled = [i, *others.get(i, ())]
            row += spelled + [i] * (width - len(spelled))  # padded with a repeat: excluding twice changes nothing
        excluded.append(row)
    device = wv.vectors.device
    abcd_t = torch.tensor(abcd, dtype=torch.long, device=device).view(-1, 4)  # (Q, 4)
    excluded_t = torch.tensor(excluded, dtype=torch.long, device=device).view(-1, 3 * width)  # (Q, 3 * width)
    unit = wv.unit[:n]  # (n, dim)
    unit_t = unit.T.contiguous()  # (dim, n): contiguous rows make each tile's matmul faster
    cols = tile_cols or (TILE_COLS if device.type == "cpu" else n)
    best = torch.empty(len(kept), dtype=torch.long, device=device)  # (Q,)
    for start in range(0, len(kept), batch_size):
        stop = min(start + batch_size, len(kept))
        batch = abcd_t[start:stop]  # (B, 4)
        query = unit[batch[:, 1]] - unit[batch[:, 0]] + unit[batch[:, 2]]  # (B, dim)
        best[start:stop] = _first_best(query, unit_t, excluded_t[start:stop], cols)
        if on_batch:
            on_batch(stop, len(kept))
    predicted = best.tolist()
    correct_flags = [index[keys[p]] == ids[3] for p, ids in zip(predicted, abcd, strict=True)]
    predictions = [(qi, ok_vocab[p]) for (qi, _), p in zip(kept, predicted, strict=True)]

    sections: dict[str, list[int]] = {}
    for flag, (_, q) in zip(correct_flags, kept, strict=True):
        sections.setdefault(q.section, [0, 0])
        sections[q.section][0] += int(flag)
        sections[q.section][1] += 1
    total, correct = len(kept), sum(correct_flags)
    return {
        "accuracy": correct / total if total else float("nan"),
        "correct": correct,
        "total": total,
        "skipped": len(questions) - total,
        "sections": [{"section": s, "correct": c, "total": t, "accuracy": c / t} for s, (c, t) in sections.items()],
        "predictions": predictions,
    }


def _first_best(query: torch.Tensor, unit_t: torch.Tensor, excluded: torch.Tensor, cols: int) -> torch.Tensor:
    """Per row of query (B, dim), the first column of query @ unit_t (dim, n) holding its largest score, the
    columns in excluded (B, k) left out.

    The scores are made `cols` columns at a time, so that each tile stays in cache: its maximum per row is one
    cheap pass, and only the rows whose maximum grew (all of them in the first tile, few after) look for
    where it is. A later tile must beat the best so far strictly, so the first index of a tie wins.
    """
    rows, n = len(query), unit_t.shape[1]
    ex_rows = torch.arange(rows, device=query.device).repeat_interleave(excluded.shape[1])  # (B * k,)
    ex_cols, order = excluded.reshape(-1).sort()
    ex_rows = ex_rows[order]
    starts = torch.arange(0, n + cols, cols, device=query.device)
    bounds = torch.searchsorted(ex_cols, starts).tolist()  # excluded pairs [bounds[t], bounds[t + 1]) are in tile t
    top = torch.full((rows,), -torch.inf, device=query.device)  # (B,)
    at = torch.zeros(rows, dtype=torch.long, device=query.device)  # (B,)
    tile = torch.empty(rows, cols, device=query.device)
    for t, c0 in enumerate(range(0, n, cols)):
        c1 = min(c0 + cols, n)
        if c1 - c0 == cols:
            scores = torch.mm(query, unit_t[:, c0:c1], out=tile)  # (B, cols)
        else:
            scores = query @ unit_t[:, c0:c1]  # (B, c1 - c0)
        lo, hi = bounds[t], bounds[t + 1]
        if lo < hi:
            scores[ex_rows[lo:hi], ex_cols[lo:hi] - c0] = -torch.inf
        tile_top = scores.amax(dim=1)  # (B,)
        grew = (tile_top > top).nonzero().squeeze(1)
        if len(grew):
            top[grew] = tile_top[grew]
            at[grew] = c0 + scores[grew].argmax(dim=1)
    return at


def read_pairs(text: str) -> list[tuple[str, str, float]]:
    """Word-pair similarity files (WordSim353, SimLex): `word1 word2 score` per line, tab or space, `#` comments."""
    pairs = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.replace("\t", " ").split()
        try:
            pairs.append((parts[0], parts[1], float(parts[2])))
        except (IndexError, ValueError):
            raise Problem("pairs_line", number=number, line=repr(line[:80])) from None
    return pairs


def evaluate_similarity(wv: WordVectors, pairs: list[tuple[str, str, float]], *, restrict: int = 300_000) -> dict:
    """Spearman (and Pearson) correlation of cosine similarity with human scores; pairs outside the vocabulary skipped."""
    from scipy.stats import pearsonr, spearmanr

    n = min(restrict, len(wv))
    index = {w.lower(): i for i, w in reversed(list(enumerate(wv.itos[:n])))}
    kept = [(index[a.lower()], index[b.lower()], s) for a, b, s in pairs if a.lower() in index and b.lower() in index]
    if len(kept) < 2:
        return {
            "spearman": float("nan"),
            "pearson": float("nan"),
            "total": len(kept),
            "skipped": len(pairs) - len(kept),
        }
    ia, ib, human = zip(*kept, strict=True)
    cos = (wv.unit[list(ia)] * wv.unit[list(ib)]).sum(1).cpu().numpy()
    return {
        "spearman": float(spearmanr(cos, human).statistic),
        "pearson": float(pearsonr(cos, human).statistic),
        "total": len(kept),
        "skipped": len(pairs) - len(kept),
    }


def main(argv: list[str] | None = None) -> None:
    from core.device import pick_device
    from core.glove import load_glove

    parser = argparse.ArgumentParser(prog="python -m core.evaluate", description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("task", choices=["analogies", "similarity"])
    parser.add_argument("file", type=Path)
    parser.add_argument("--vectors", default=None, help="a file in the vectors folder; default: bundled GloVe 6B 50d")
    parser.add_argument("--restrict", type=int, default=300_000, help="only the N most frequent words")
    parser.add_argument("--case-insensitive", action="store_true")
    args = parser.parse_args(argv)

    wv = load_glove(args.vectors, device=pick_device())
    text = args.file.read_text(encoding="utf-8")
    start = time.perf_counter()
    if args.task == "analogies":
        result = evaluate_analogies(
            wv, read_questions(text), restrict=args.restrict, case_insensitive=args.case_insensitive
        )
        result.pop("predictions")
    else:
        result = evaluate_similarity(wv, read_pairs(text), restrict=args.restrict)
    result["seconds"] = round(time.perf_counter() - start, 4)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
