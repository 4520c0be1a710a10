"""The part of scripts/docker_smoke.sh that needs no Docker, from the same code (scripts/smoke.py), against
`streamlit run` on this machine: every module the lab's sources import imports, the PE page draws its heatmap and
the word page its chart in Chromium, every page opens with no error, the three long jobs run to the end."""

import subprocess
import sys

import pytest

from labtools.server import ROOT, serving
from scripts import smoke


@pytest.fixture(scope="module")
def url():
    with serving() as url:
        yield url


def test_every_module_the_sources_import_imports_as_the_image_runs_the_check():
    """As docker_smoke.sh runs it in the image: the module from stdin, `imports ROOT`."""
    result = subprocess.run(
        [sys.executable, "-", "imports", str(ROOT)],
        stdin=(ROOT / "scripts" / "smoke.py").open(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 failed" in result.stdout


def test_the_import_check_names_what_fails(tmp_path):
    (tmp_path / "app.py").write_text("import numpy\nfrom numpy import no_such_thing\nimport no_such_module_here\n")
    with pytest.raises(AssertionError) as failed:
        smoke.check_imports(tmp_path)
    assert "numpy.no_such_thing" in str(failed.value) and "no_such_module_here" in str(failed.value)


def test_the_pe_heatmap_and_the_word_chart_are_drawn(url, browser):
    smoke.check_charts(url, browser)


def test_every_page_opens_with_no_error(url):
    smoke.check_pages(url)


def test_the_long_jobs_run_to_the_end(url):
    smoke.check_jobs(url)
