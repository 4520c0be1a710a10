"""The evaluation CLI on tiny files whose answers were checked by hand (see tests/fixtures/make_fixtures.py)."""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr

from core.evaluate import Question, evaluate_analogies, main, read_pairs, read_questions
from core.glove import load_glove
from core.vectors import WordVectors
from labtools.server import ROOT
from tests.fixtures import FIXTURES


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "tiny.txt").write_bytes((FIXTURES / "tiny_glove.4d.txt").read_bytes())
    monkeypatch.setenv("EMBLAB_VECTORS_DIR", str(tmp_path))
    return tmp_path


def run_cli(capsys, *args) -> dict:
    main([*map(str, args)])
    return json.loads(capsys.readouterr().out)


def test_analogies_cli_case_sensitive(folder, capsys):
    out = run_cli(capsys, "analogies", FIXTURES / "analogies_tiny.txt", "--vectors", "tiny.txt")
    # family: 3 of 3 right (empress and the capitalised line skipped); mixed: cat:dog::man:? -> boy, wrong
    assert (out["correct"], out["total"], out["skipped"]) == (3, 4, 2)
    assert out["accuracy"] == 0.75 and out["seconds"] >= 0
    assert out["sections"] == [
        {"section": "family", "correct": 3, "total": 3, "accuracy": 1.0},
        {"section": "mixed", "correct": 0, "total": 1, "accuracy": 0.0},
    ]


def test_analogies_cli_case_insensitive_counts_the_capitalised_line(folder, capsys):
    out = run_cli(capsys, "analogies", FIXTURES / "analogies_tiny.txt", "--vectors", "tiny.txt", "--case-insensitive")
    assert (out["correct"], out["total"], out["skipped"]) == (4, 5, 1)


def test_restrict_skips_questions_outside_the_most_frequent_words(folder):
    wv = load_glove("tiny.txt")
    questions = read_questions((FIXTURES / "analogies_tiny.txt").read_text())
    out = evaluate_analogies(wv, questions, restrict=5)  # the, man, woman, king, queen
    assert (out["correct"], out["total"]) == (2, 2)
    assert out["predictions"] == [(0, "queen"), (2, "woman")]


def test_similarity_cli_equals_scipy_spearman(folder, capsys):
    out = run_cli(capsys, "similarity", FIXTURES / "pairs_tiny.tsv", "--vectors", "tiny.txt")
    wv = load_glove("tiny.txt")
    pairs = read_pairs((FIXTURES / "pairs_tiny.tsv").read_text())[:5]  # the unicorn pair is skipped
    unit = wv.vectors.numpy() / np.linalg.norm(wv.vectors.numpy(), axis=1, keepdims=True)
    cos = [unit[wv.stoi[a]] @ unit[wv.stoi[b]] for a, b, _ in pairs]
    assert out["spearman"] == pytest.approx(spearmanr(cos, [s for *_, s in pairs]).statistic)
    assert (out["total"], out["skipped"]) == (5, 1)


def test_bad_lines_are_named():
    with pytest.raises(ValueError, match="line 2"):
        read_questions(": s\na b c\n")
    with pytest.raises(ValueError, match="line 1"):
        read_pairs("a b notanumber\n")


def brute_force(itos, vectors, questions, restrict, case_insensitive):
    """Each question answered one at a time in float64 numpy: every row scored, every spelling of a, b and c
    excluded, the first row of the maximum taken. Returns the predictions and the smallest gap between a
    question's best score and the best score of a row with another vector (0 would make the test ambiguous)."""
    key = str.upper if case_insensitive else str
    ok = itos[:restrict]
    unit = vectors[:restrict].astype(np.float64)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    first: dict[str, int] = {}
    for i, w in enumerate(ok):
        first.setdefault(key(w), i)
    predictions, gap = [], np.inf
    for qi, q in enumerate(questions):
        words = [key(w) for w in (q.a, q.b, q.c, q.expected)]
        if any(w not in first for w in words):
            continue
        a, b, c = (unit[first[w]] for w in words[:3])
        scores = unit @ (b - a + c)
        scores[[i for i, w in enumerate(ok) if key(w) in words[:3]]] = -np.inf
        best = int(np.argmax(scores))  # numpy: the first index of the maximum
        predictions.append((qi, ok[best]))
        different = ~np.all(vectors[:restrict] == vectors[best], axis=1)
        gap = min(gap, scores[best] - scores[different].max())
    return predictions, gap


@pytest.mark.parametrize("case_insensitive", [False, True])
@pytest.mark.parametrize("tile_cols", [None, 1, 7, 64])
def test_analogies_equal_a_brute_force_reference_with_ties_and_other_spellings(case_insensitive, tile_cols):
    rng = np.random.default_rng(0)
    base = [f"w{i}" for i in range(40)]
    itos = base + ["W3", "w5", "W7", "W7", "w20x", "w21x", "w22x"]  # other spellings of w3, w5, w7 (w5 twice)
    vectors = rng.normal(size=(len(itos), 6)).astype(np.float32)
    vectors[43] = vectors[7]  # W7 twice, the same vector: a tie
    vectors[44:47] = vectors[20:23]  # copies after their originals: exact ties the first row must win
    vectors[30] = vectors[2]  # a copy of a frequent word
    wv = WordVectors(itos, torch.from_numpy(vectors), "random")
    words = base + ["W3", "W7", "w20x", "missing"]
    questions = [
        Question("s", *rng.choice(words, 4, replace=False)) if i % 5 else Question("s", "w3", "w5", "w7", "w20")
        for i in range(300)
    ]
    for restrict in (len(itos), 45):
        expected, gap = brute_force(itos, vectors, questions, restrict, case_insensitive)
        assert gap > 1e-5  # no near-ties but the exact ones the copies make
        out = evaluate_analogies(
            wv, questions, restrict=restrict, case_insensitive=case_insensitive, batch_size=32, tile_cols=tile_cols
        )
        assert out["predictions"] == expected
        key = str.upper if case_insensitive else str
        right = sum(key(p) == key(questions[qi].expected) for qi, p in expected)
        assert (out["correct"], out["total"], out["skipped"]) == (right, len(expected), len(questions) - len(expected))


def test_progress_is_reported_after_each_batch(folder):
    wv = load_glove("tiny.txt")
    questions = read_questions((FIXTURES / "analogies_tiny.txt").read_text()) * 3
    calls = []
    out = evaluate_analogies(wv, questions, case_insensitive=True, batch_size=4, on_batch=lambda *a: calls.append(a))
    assert out["total"] == 15 and calls == [(4, 15), (8, 15), (12, 15), (15, 15)]


def test_the_command_line_starts_without_docstrings():
    """Found by pyright: `python -OO` strips __doc__, and the parser's description read __doc__.splitlines()."""
    out = subprocess.run(
        [sys.executable, "-OO", "-m", "core.evaluate", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0 and "usage: python -m core.evaluate" in out.stdout, out.stderr
