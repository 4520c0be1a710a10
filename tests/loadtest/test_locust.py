"""The Locust user classes against a real server for a few seconds with 3 users: reruns happen, none fails.

Locust runs in its own process (`locust --headless`): it monkey-patches the standard library for gevent on
import, which the other tests must not see. No timing is asserted.
"""

import csv
import os
import subprocess
import sys
from pathlib import Path

from tests.browser.harness import ROOT

CLASSES = ["PEDModel", "PEWindow", "RotaryBase"]  # three learners, one each; the pages that open fastest


def test_three_learners_rerun_without_failures(server_url, tmp_path):
    run = subprocess.run(
        [
            str(Path(sys.executable).with_name("locust")),
            "-f",
            "loadtest/locustfile.py",
            "--headless",
            "--users",
            "3",
            "--spawn-rate",
            "3",
            "--run-time",
            "25s",
            "--host",
            server_url,
            "--csv",
            str(tmp_path / "run"),
            "--only-summary",
            *CLASSES,
        ],
        cwd=ROOT,
        env={**os.environ, "EMBLAB_THINK_S": "1.5"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    with open(tmp_path / "run_stats.csv") as f:
        rows = {(r["Type"], r["Name"]): r for r in csv.DictReader(f)}
    reruns = {name: int(r["Request Count"]) for (kind, name), r in rows.items() if kind == "rerun"}
    assert set(reruns) == {"positional_encoding:pe_d_model", "positional_encoding:pe_table_chart", "rotary:rp_base"}
    assert all(count > 0 for count in reruns.values()), reruns
    assert int(rows[("", "Aggregated")]["Failure Count"]) == 0, rows
