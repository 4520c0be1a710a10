"""The Locust user classes against a real server for a few seconds, a few users: reruns happen, none fails.

Locust runs in its own process (`locust --headless`): it monkey-patches the standard library for gevent on
import, which the other tests must not see. No timing is asserted.
"""

import csv
import os
import subprocess
import sys
from pathlib import Path

from labtools.server import ROOT
from loadtest.protocol import Session

# one learner of each: issue 27's three (the pages that open fastest) and issue 34's two beyond them, the attention
# page's seed and the embedding-space page's "find a word"
CLASSES = ["PEDModel", "PEWindow", "RotaryBase", "AttentionSeed", "EmbeddingFind"]


def run_locust(server_url: str, tmp_path: Path, classes: list[str], seconds: int) -> dict:
    """`locust --headless` with one user of each class for `seconds`; its stats CSV rows by (type, name)."""
    run = subprocess.run(
        [
            str(Path(sys.executable).with_name("locust")),
            "-f",
            "loadtest/locustfile.py",
            "--headless",
            "--users",
            str(len(classes)),
            "--spawn-rate",
            str(len(classes)),
            "--run-time",
            f"{seconds}s",
            "--host",
            server_url,
            "--csv",
            str(tmp_path / "run"),
            "--only-summary",
            *classes,
        ],
        cwd=ROOT,
        env={**os.environ, "EMBLAB_THINK_S": "1.5"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    with open(tmp_path / "run_stats.csv") as f:
        return {(r["Type"], r["Name"]): r for r in csv.DictReader(f)}


def test_five_learners_on_four_pages_rerun_without_failures(server_url, tmp_path):
    # The two slow pages opened once first: a cold server's first open of the embedding space (GloVe, the cloud's
    # PCA) can take most of the run on 2 busy cores
    for page in ("attention", "embedding_space"):
        with Session.open(server_url, page) as session:
            assert session.last_open is not None
            assert session.last_open.ok, session.last_open.errors
    rows = run_locust(server_url, tmp_path, CLASSES, 25)
    reruns = {name: int(r["Request Count"]) for (kind, name), r in rows.items() if kind == "rerun"}
    assert set(reruns) == {
        "positional_encoding:pe_d_model",
        "positional_encoding:pe_table_chart",
        "rotary:rp_base",
        "attention:at_seed",
        "embedding_space:es_find",
    }
    assert all(count > 0 for count in reruns.values()), reruns
    assert int(rows[("", "Aggregated")]["Failure Count"]) == 0, rows
