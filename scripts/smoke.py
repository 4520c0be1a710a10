"""What scripts/docker_smoke.sh checks that needs no Docker, in one place: CI runs it (tests/deploy/test_smoke.py,
against `streamlit run`), the script runs it against the image.

    python scripts/smoke.py imports [ROOT]   # every module the lab's sources import, imported (in the image:
                                             # docker exec -i NAME python3 - imports /app < scripts/smoke.py)
    python scripts/smoke.py charts URL       # Chromium: the PE page draws its heatmap, the word page its chart
    python scripts/smoke.py pages URL        # Streamlit's protocol: every page opens with no error
    python scripts/smoke.py jobs URL         # the three long jobs run to the end with no error

`imported_modules` is also what tests/test_requirements.py checks against requirements.txt: one list of what the
lab imports, which leaves out what only a type checker reads (`if TYPE_CHECKING:` blocks, typeshed's `_typeshed`).
Each check prints what it found and raises AssertionError on a failure. The module imports nothing outside the
standard library at import time: in the image it runs from stdin, without the repository's tests or loadtest.
"""

from __future__ import annotations

import ast
import importlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] if "__file__" in globals() else Path.cwd()
PACKAGES = ("core", "figures", "lessons", "ui")  # the lab's own, beside app.py
SCRIPTS = ("serve.py", "scripts/warm_up.py", "scripts/docker_healthcheck.py")  # what the image runs beside app.py
# Modules only a type checker has: typeshed's stubs. Imported under `if TYPE_CHECKING:`, which the walk skips too.
TYPE_CHECKER_ONLY = frozenset({"_typeshed", "typing_extensions._typeshed"})
# The long jobs: (page, widget moves before the press, the button)
JOBS: tuple[tuple[str, dict[str, str], str], ...] = (
    ("embedding_space", {"es_method": "UMAP"}, "es_run"),
    ("word_embeddings", {}, "we_eval_go"),
    ("learned_vs_sinusoidal", {}, "lv_train"),
)


def source_files(root: Path = ROOT) -> list[Path]:
    """The lab's Python sources: app.py, its packages, and the scripts the image runs."""
    files = [root / "app.py", *(path for package in PACKAGES for path in sorted((root / package).rglob("*.py")))]
    return files + [root / script for script in SCRIPTS if (root / script).exists()]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> set[str]:
    """Dotted names imported under `node` ("x.y" for `import x.y` and for `from x import y`), what runs only for a
    type checker left out."""
    names: set[str] = set()
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        children: list[ast.AST] = list(node.orelse)
    else:
        children = list(ast.iter_child_nodes(node))
    if isinstance(node, ast.Import):
        names.update(alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        names.update(f"{node.module}.{alias.name}" for alias in node.names)
    for child in children:
        names |= _imports(child)
    return names


def imported_names(root: Path = ROOT) -> set[str]:
    """Every dotted name the lab's sources import from outside the lab and the standard library."""
    own = {*PACKAGES, "app", "scripts"}
    names: set[str] = set()
    for path in source_files(root):
        names |= _imports(ast.parse(path.read_text(encoding="utf-8")))
    return {
        name
        for name in names
        if name.split(".")[0] not in own
        and name.split(".")[0] not in sys.stdlib_module_names
        and not any(name == m or name.startswith(m + ".") for m in TYPE_CHECKER_ONLY)
    }


def imported_modules(root: Path = ROOT) -> set[str]:
    """The top-level modules of `imported_names`: what requirements.txt must provide."""
    return {name.split(".")[0] for name in imported_names(root)}


def check_imports(root: Path = ROOT) -> None:
    """Import every name the sources import: `from x import f` where x.f is not a module needs x to have f."""
    names = imported_names(root)
    failed = []
    for name in sorted(names):
        try:
            importlib.import_module(name)
        except ImportError:
            module, _, attr = name.rpartition(".")
            try:
                getattr(importlib.import_module(module), attr)
            except (ImportError, AttributeError, ValueError) as err:
                failed.append(f"{name}: {err}")
    print(f"Imports: {len(names)} named by the lab's sources, {len(failed)} failed")
    assert not failed, "\n".join(failed)


def page_names() -> list[str]:
    from ui.pages import OVERVIEW, PATH

    return [lesson.folder for lesson in (OVERVIEW, *PATH)]


def _errors(session) -> list[str]:
    alerts = [e.value for e in session.page_elements() if e.kind == "alert" and e.proto.format == 1]  # st.error
    return session.exceptions() + alerts


def check_pages(url: str, timeout: float = 300) -> None:
    """Every page opened over Streamlit's protocol (loadtest/protocol.py): no exception, no st.error."""
    from loadtest.protocol import Session

    pages = page_names()
    for name in pages:
        with Session.open(url, "" if name == "overview" else name, timeout=timeout) as session:
            assert not _errors(session), (name, _errors(session))
    print(f"Protocol: {len(pages)} pages opened, no error")


def check_jobs(url: str, limit: float = 600) -> None:
    """The long jobs pressed and followed to the end (their progress gone), no error."""
    from loadtest.protocol import Session

    for name, moves, button in JOBS:
        with Session.open(url, name, timeout=300) as session:
            for widget, value in moves.items():
                session.set(widget, value)
            start = time.monotonic()
            session.set(button, True)
            while any(e.kind == "progress" for e in session.page_elements()) and time.monotonic() - start < limit:
                time.sleep(1)
                session.rerun()
            assert not _errors(session), (name, _errors(session))
            assert not any(e.kind == "progress" for e in session.page_elements()), f"{name}: {button} never finished"
            print(f"Protocol: {name}: {button} ran to the end in {time.monotonic() - start:.0f} s, no error")


# The heatmap as plotly holds it in the page, whatever element the chart is drawn in (ui.live_chart's <div>).
HEATMAP = """() => [...document.querySelectorAll('.js-plotly-plot')].map(p => (p._fullData || [])
    .find(t => t.type === 'heatmap' && t.z && t.z.length) && p.querySelector('.main-svg') ? p : null)
    .filter(Boolean).map(p => { const z = p._fullData.find(t => t.type === 'heatmap').z;
    return `${z.length} x ${z[0].length}`; })[0] || null"""


def check_charts(url: str, context=None) -> None:
    """In Chromium: the PE page draws its heatmap, the word page its chart; no exception on either.

    Args:
        context: a Playwright browser context to open the pages in (the tests'); None starts Chromium here.
    """
    import tempfile

    from playwright.sync_api import sync_playwright

    from labtools.browser import launch_chromium

    if context is not None:
        _draw_charts(url, context)
        return
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        context = launch_chromium(p, profile)
        _draw_charts(url, context)
        context.close()


def _draw_charts(url: str, context) -> None:
    from labtools.browser import EXCEPTION, wait_until_idle

    page = context.new_page()
    try:
        page.set_default_timeout(120_000)
        page.goto(f"{url}/positional_encoding")
        shape = page.wait_for_function(HEATMAP).json_value()
        wait_until_idle(page)
        assert page.locator(EXCEPTION).count() == 0, "an exception on the PE page"
        print(f"Chromium: the PE page drew its heatmap ({shape} cells shown)")
        page.goto(f"{url}/word_embeddings")
        page.wait_for_selector(".js-plotly-plot")
        wait_until_idle(page)
        assert page.locator(EXCEPTION).count() == 0, "an exception on the word page"
        print("Chromium: the word page drew its chart:", page.locator("h1").first.inner_text())
    finally:
        page.close()


def main(argv: list[str]) -> int:
    on_url: dict[str, Callable[[str], None]] = {"charts": check_charts, "pages": check_pages, "jobs": check_jobs}
    if not argv or argv[0] not in ("imports", *on_url):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] == "imports":
        check_imports(Path(argv[1]) if len(argv) > 1 else ROOT)
    else:
        sys.path.insert(0, str(ROOT))
        on_url[argv[0]](argv[1])
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except AssertionError as err:
        sys.exit(f"FAIL: {err}")
