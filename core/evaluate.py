"""Evaluate word vectors: analogies (questions-words format) and word-pair similarity (Spearman).

Semantics follow gensim's `evaluate_word_analogies`: only the `restrict` most frequent words count; a question
with a word outside them is skipped; the answer is the nearest word to b - a + c (unit vectors, cosine)
among those words, a, b and c excluded. Batched on the device.

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

from core.glove import WordVectors
from core.problems import Problem


@dataclass(frozen=True)
class Question:
    section: str
    a: str
    b: str
    c: str
    expected: str


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


BLOCK = 128


def first_argmax(scores: torch.Tensor, block: int = BLOCK) -> torch.Tensor:
    """scores.argmax(dim=1), the first index of each row's maximum, for rows whose length is a multiple of `block`.

    On CPU, torch's argmax along a long row is ~5x slower than its max (amax): the blocks' maxima find
    the first block holding the maximum, and an argmax over that one block the index inside it.
    """
    rows, n = scores.shape
    blocks = scores.view(rows, n // block, block)
    which = blocks.amax(dim=2).argmax(dim=1)  # (rows,)
    inside = blocks[torch.arange(rows, device=scores.device), which].argmax(dim=1)  # (rows,)
    return which * block + inside


def evaluate_analogies(
    wv: WordVectors,
    questions: list[Question],
    *,
    restrict: int = 300_000,
    case_insensitive: bool = False,
    batch_size: int = 256,
    on_batch: Callable[[int, int], None] | None = None,
) -> dict:
    """Accuracy of 3CosAdd on the questions, gensim's rules, batched on wv's device.

    Returns:
        {"accuracy", "correct", "total", "skipped", "sections": [{"section", "correct", "total", "accuracy"}],
         "predictions": [(question index, predicted word)]}
    """
    n = min(restrict, len(wv))
    ok_vocab = wv.itos[:n]
    key = str.upper if case_insensitive else str
    index: dict[str, int] = {}
    for i, w in enumerate(ok_vocab):
        index.setdefault(key(w), i)  # the most frequent spelling wins, as in gensim
    canon = [index[key(w)] for w in ok_vocab]  # each word -> the row of its key's most frequent spelling
    spellings: dict[int, list[int]] = {}
    for i, ci in enumerate(canon):
        spellings.setdefault(ci, []).append(i)  # every row sharing a key: all are excluded with it
    width = max(len(rows) for rows in spellings.values())

    word_ids = ([index.get(key(w)) for w in (q.a, q.b, q.c, q.expected)] for q in questions)
    kept = [(qi, q, ids) for qi, (q, ids) in enumerate(zip(questions, word_ids, strict=True)) if None not in ids]
    device = wv.vectors.device
    abcd = torch.tensor([ids for _, _, ids in kept], dtype=torch.long, device=device).view(-1, 4)
    abc, expected = abcd[:, :3], abcd[:, 3]  # (Q, 3), (Q,)
    same_key = torch.arange(n, device=device).unsqueeze(1).repeat(1, width)  # (n, width): rows spelled like row i
    for ci, rows in spellings.items():
        if len(rows) > 1:
            same_key[ci, : len(rows)] = torch.tensor(rows)
    excluded = same_key[abc].view(-1, 3 * width)  # (Q, 3 * width): a, b, c and their other spellings
    unit = wv.unit[:n]  # (n, dim)
    # (dim, n rounded up to BLOCK): contiguous, which makes the matmul ~1.6x faster; the padding scores -inf below
    unit_t = torch.nn.functional.pad(unit.T, (0, -n % BLOCK)).contiguous()
    best = torch.empty(len(kept), dtype=torch.long, device=device)  # (Q,)
    for start in range(0, len(kept), batch_size):
        stop = min(start + batch_size, len(kept))
        q = abc[start:stop]
        scores = (unit[q[:, 1]] - unit[q[:, 0]] + unit[q[:, 2]]) @ unit_t  # (B, n)
        scores[:, n:] = -torch.inf
        scores.scatter_(1, excluded[start:stop], -torch.inf)
        best[start:stop] = first_argmax(scores)
        if on_batch:
            on_batch(stop, len(kept))
    correct_flags = (torch.tensor(canon, device=device)[best] == expected).cpu().numpy()  # (Q,)
    predictions = [(qi, ok_vocab[i]) for (qi, _, _), i in zip(kept, best.tolist(), strict=True)]

    sections: dict[str, list[int]] = {}
    for flag, (_, q, _) in zip(correct_flags, kept, strict=True):
        sections.setdefault(q.section, [0, 0])
        sections[q.section][0] += int(flag)
        sections[q.section][1] += 1
    total, correct = len(kept), int(correct_flags.sum())
    return {
        "accuracy": correct / total if total else float("nan"),
        "correct": correct,
        "total": total,
        "skipped": len(questions) - total,
        "sections": [{"section": s, "correct": c, "total": t, "accuracy": c / t} for s, (c, t) in sections.items()],
        "predictions": predictions,
    }


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

    parser = argparse.ArgumentParser(prog="python -m core.evaluate", description=__doc__.splitlines()[0])
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
