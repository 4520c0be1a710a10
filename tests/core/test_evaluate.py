"""The evaluation CLI on tiny files whose answers were checked by hand (see tests/fixtures/make_fixtures.py)."""

import json

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr

from core.evaluate import evaluate_analogies, first_argmax, main, read_pairs, read_questions
from core.glove import load_glove
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


@pytest.mark.parametrize("block", [1, 4, 128])
def test_first_argmax_equals_torch_argmax_including_ties(block):
    scores = torch.randint(0, 5, (64, 256)).float()  # many ties: the first maximum must win
    scores[3] = -torch.inf
    scores[3, 200] = 1.0
    assert torch.equal(first_argmax(scores, block), scores.argmax(dim=1))
