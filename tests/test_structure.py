"""The shape of the code: layers import downwards only, no import circle, nothing over its length.

The layers, each importing only those before it: core <- figures <- ui <- lessons <- app.py. core and figures never
import streamlit (figures may import core; none does today, since they take arrays). Every import counts, those
inside functions too: core.cloud and core.warmup once imported each other from inside functions.

Lengths: core is measured by concept, one top-level module (core/glove.py) or one package's modules together
(core/attention/), so that a concept is never split into files only to meet a limit; ui by module; lessons have no
limit (a page is as long as it reads well).
"""

from __future__ import annotations

import ast
import functools
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("core", "figures", "ui", "lessons", "app")  # each may import the ones before it
NO_STREAMLIT = ("core", "figures")
LIMITS = {"core": 700, "ui": 300}  # most lines, by layer; a lesson's page is as long as it reads well
# (issue 43): a long lesson is split by chapter inside its folder, never by moving its parts to ui/
BY_CONCEPT = ("core",)  # layers whose limit holds for a concept (a top-level module or package), not for each file


def modules(root: Path = ROOT) -> dict[str, Path]:
    """The project's modules by dotted name: every .py file under the layers' folders (a package's __init__.py by
    the package's name), and app.py."""
    found = {"app": root / "app.py"}
    for layer in LAYERS[:-1]:
        for path in sorted((root / layer).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(path: Path, known: set[str]) -> set[str]:
    """Every module a file imports, anywhere in it: a project module's dotted name, else the top-level package."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name if a.name in known else a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module, f"{path}: a relative import"
            for alias in node.names:  # `from core import cloud` imports the module core.cloud
                name = f"{node.module}.{alias.name}"
                out.add(name if name in known else node.module if node.module in known else node.module.split(".")[0])
    return out


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Each project module -> every module it imports (the project's by dotted name, others by package)."""
    found = modules(root)
    return {name: imports(path, set(found)) for name, path in found.items()}


def circle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import circle among the graph's modules ([a, b, ..., a]), or None when there is none."""
    state: dict[str, str] = {}  # "open" while on the path, "done" once every module it reaches is explored
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(edges.get(node, ()) & edges.keys()):
            if state.get(nxt) == "open":
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = "done"
        return None

    for start in sorted(edges):
        if start not in state and (found := visit(start)):
            return found
    return None


def sizes(root: Path = ROOT) -> dict[str, int]:
    """{path: lines} of what each layer's limit holds for: in BY_CONCEPT's layers each top-level module or package
    (its modules' lines together, keyed by its folder), elsewhere each module."""
    out: dict[str, int] = {}
    for path in modules(root).values():
        key = path.relative_to(root)
        if key.parts[0] in BY_CONCEPT and len(key.parts) > 2:  # a module of a package: its package's folder
            key = Path(*key.parts[:2])
        out[str(key)] = out.get(str(key), 0) + len(path.read_text().splitlines())
    return out


def oversized(limits: dict[str, int], root: Path = ROOT) -> dict[str, int]:
    """{module, or package in BY_CONCEPT's layers: lines} for those longer than their layer's limit."""
    return {key: n for key, n in sizes(root).items() if n > limits.get(Path(key).parts[0], n)}


def test_the_circle_finder_finds_the_circle_that_was():
    assert circle({"core.cloud": {"core.warmup", "numpy"}, "core.warmup": {"core.cloud"}}) == [
        "core.cloud",
        "core.warmup",
        "core.cloud",
    ]
    assert circle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_circle():
    assert circle(graph()) is None


def test_every_layer_imports_only_the_layers_before_it():
    wrong = []
    for name, imported in graph().items():
        layer = LAYERS.index(name.split(".")[0])
        for other in imported:
            top = other.split(".")[0]
            if top in LAYERS and LAYERS.index(top) > layer:
                wrong.append(f"{name} imports {other}")
    assert wrong == []


def test_core_and_figures_never_import_streamlit():
    wrong = [
        name for name, imported in graph().items() if name.split(".")[0] in NO_STREAMLIT and "streamlit" in imported
    ]
    assert wrong == []


def test_the_graph_sees_imports_inside_functions_and_from_packages():
    edges = graph()
    assert "core.glove" in edges["core.evaluate"]  # imported inside a function
    assert {"core.attention.head", "core.attention.view", "lessons.attention.charts"} <= edges[
        "lessons.attention.attention"
    ]
    assert "streamlit" in edges["ui.explain"]


def test_no_module_over_its_layers_limit():
    assert oversized(LIMITS) == {}


# --- ui/ holds what two or more pages use, counted by the names they use ----------------------------------------------
# A ui module's parts are its top-level names. A page uses a name when one of its lesson folder's modules reads it
# (`from ui.x import a`, `x.a` after `from ui import x`), or reads a ui name that reads it (in its module or another ui
# module's). A name app.py uses serves every page. A module most of whose used names serve one page alone is that
# page's part, however many pages import one name of it: ui/minilm.py was the real-Transformer page's caches, passed by
# the input layer's one notice (issue 54).


def user(module: str) -> str | None:
    """Who a module's reads count for: "app", a lesson ("lessons.attention", any module of its folder), or None."""
    if module == "app":
        return "app"
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "lessons" and len(parts) > 1 else None


def top_level_names(tree: ast.Module) -> set[str]:
    """The names a module defines at its top: functions, classes, assigned names."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out |= {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}
    return out


def ui_reads(tree: ast.Module, module: str, ui: dict[str, set[str]]) -> list[tuple[str | None, str, str]]:
    """Every ui name a module reads: (its top-level name that reads it, or None at module level; ui module; name).
    In a ui module its own top-level names count too."""
    modules_as: dict[str, str] = {}  # local name -> ui module (`from ui import tokens as shared`, `import ui.x`)
    names_as: dict[str, tuple[str, str]] = {}  # local name -> (ui module, name) (`from ui.x import a`)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if f"{node.module}.{alias.name}" in ui:
                    modules_as[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif node.module in ui:
                    names_as[alias.asname or alias.name] = (node.module, alias.name)
        elif isinstance(node, ast.Import):
            modules_as |= {alias.asname or alias.name: alias.name for alias in node.names if alias.name in ui}
    own = ui.get(module, set())

    def read(node: ast.AST) -> list[tuple[str, str]]:
        found = []
        for n in ast.walk(node):
            if isinstance(n, ast.Attribute):
                dotted = ast.unparse(n.value)
                if dotted in ui or dotted in modules_as:
                    found.append((modules_as.get(dotted, dotted), n.attr))
            elif isinstance(n, ast.Name) and n.id in names_as:
                found.append(names_as[n.id])
            elif isinstance(n, ast.ImportFrom) and n.module in ui:  # a name imported is read
                found += [(n.module, alias.name) for alias in n.names]
            elif isinstance(n, ast.Name) and n.id in own:
                found.append((module, n.id))
        return found

    out: list[tuple[str | None, str, str]] = []
    for node in tree.body:
        owners: set[str | None] = (
            set(top_level_names(ast.Module(body=[node], type_ignores=[]))) if module in ui else set()
        )
        for owner in owners or {None}:
            out += [(owner, m, name) for m, name in read(node) if (m, name) != (module, owner)]
    return out


@functools.cache
def name_users(root: Path = ROOT) -> dict[str, dict[str, set[str]]]:
    """{ui module: {public name: the users (app.py, lessons) that read it, directly or through ui names}} for the
    names someone reads."""
    found = modules(root)
    trees = {
        name: ast.parse(path.read_text(), str(path)) for name, path in found.items() if user(name) or name[:3] == "ui."
    }
    ui = {name: top_level_names(tree) for name, tree in trees.items() if name.startswith("ui.")}
    users: dict[tuple[str, str], set[str]] = {}
    through: dict[tuple[str, str], set[tuple[str, str]]] = {}  # a ui name -> the ui names it reads
    for name, tree in trees.items():
        who = user(name)
        for owner, module, read in ui_reads(tree, name, ui):
            if who is not None:
                users.setdefault((module, read), set()).add(who)
            elif owner is not None:
                through.setdefault((name, owner), set()).add((module, read))
    changed = True
    while changed:  # a name read by a ui name serves that name's users
        changed = False
        for source, reads in through.items():
            for target in reads:
                if not users.get(source, set()) <= users.setdefault(target, set()):
                    users[target] |= users[source]
                    changed = True
    out: dict[str, dict[str, set[str]]] = {}
    for (module, name), readers in users.items():
        if readers and not name.startswith("_") and name in ui.get(module, ()):
            out.setdefault(module, {})[name] = readers
    return out


def one_pages_part(names: dict[str, set[str]]) -> tuple[str, list[str]] | None:
    """(the lesson, the names it alone reads) when one lesson alone reads more than half of a ui module's read names
    (a name app.py reads serves every page); else None."""
    alone: dict[str, list[str]] = {}
    for name, who in sorted(names.items()):
        if len(who) == 1 and "app" not in who:
            alone.setdefault(next(iter(who)), []).append(name)
    for lesson, own in alone.items():
        if 2 * len(own) > len(names):
            return lesson, own
    return None


UI_MODULES = sorted(name for name in modules() if name.startswith("ui."))


def test_the_name_counter_sees_a_module_one_page_uses_by_most_of_its_names(tmp_path):
    files = {
        "app.py": "from ui import shared\nshared.a()\n",
        "ui/one.py": "from ui.shared import a\ndef notice(): pass\ndef view(): return _run()\ndef _run(): return b\nb = 1\n",
        "ui/shared.py": "def a(): pass\ndef b(): pass\n",
        "ui/two.py": "def x(): pass\ndef y(): pass\n",
        "lessons/big/big.py": "from ui.one import notice, view\nfrom ui import two\ntwo.x()\n",
        "lessons/big/parts.py": "import ui.one\nui.one.b\n",
        "lessons/small/small.py": "from ui.one import notice\nfrom ui.two import y\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    for layer in ("core", "figures"):
        (tmp_path / layer).mkdir()
    found = name_users(tmp_path)
    assert found["ui.one"] == {
        "notice": {"lessons.big", "lessons.small"},
        "view": {"lessons.big"},
        "b": {"lessons.big"},
    }
    assert found["ui.shared"] == {"a": {"app"}}
    assert one_pages_part(found["ui.one"]) == ("lessons.big", ["b", "view"])  # two imports, two of three names one's
    assert one_pages_part(found["ui.two"]) is None  # each page reads one of its two names


@pytest.mark.parametrize("module", UI_MODULES)
def test_every_ui_module_serves_two_pages_or_the_app_by_most_of_its_names(module):
    """ui/ holds what two or more pages use (or app.py and the pages): a part of one lesson lives in its folder."""
    names = name_users().get(module, {})
    assert names, f"{module}: no page reads it"
    assert one_pages_part(names) is None


def test_core_is_measured_by_concept_and_the_others_by_module(tmp_path):
    for name, lines in {
        "core/glove.py": 3,
        "core/attention/__init__.py": 1,
        "core/attention/head.py": 2,
        "core/attention/view.py": 4,
        "ui/a.py": 5,
        "ui/b/c.py": 6,
        "app.py": 1,
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n" * lines)
    assert sizes(tmp_path) == {"app.py": 1, "core/glove.py": 3, "core/attention": 7, "ui/a.py": 5, "ui/b/c.py": 6}
    assert oversized({"core": 6, "ui": 5}, tmp_path) == {"core/attention": 7, "ui/b/c.py": 6}


# --- Tools apart from tests ---------------------------------------------------------------------------------------
# What the tests, benchmarks and scripts share (a server, a browser, a learner's moves) is labtools/, which drives the
# lab from outside as a browser does: it imports none of the lab's layers, and the tools import nothing from tests/.
TOOLS = ("benchmarks", "scripts", "loadtest", "labtools")


def tool_imports(root: Path = ROOT) -> dict[str, set[str]]:
    """Each tool file (a .py under TOOLS) -> the dotted names it imports anywhere in it; a shell script under them ->
    the Python modules it names (`-m pkg.mod`, `from pkg.mod import`, `import pkg.mod` in an inline script)."""
    out: dict[str, set[str]] = {}
    for folder in TOOLS:
        for path in sorted((root / folder).rglob("*.py")):
            names: set[str] = set()
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names |= {a.name for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names.add(node.module)
            out[str(path.relative_to(root))] = names
        for path in sorted((root / folder).rglob("*.sh")):
            text = path.read_text()
            found = re.findall(r"(?:-m|\bfrom|^\s*import)\s+([A-Za-z_][\w.]*)", text, re.MULTILINE)
            out[str(path.relative_to(root))] = set(found)
    return out


def test_the_tool_import_finder_sees_what_the_tools_once_imported(tmp_path):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "scripts").mkdir()
    (tmp_path / "benchmarks" / "b.py").write_text("def f():\n    from tests.browser.harness import free_port\n")
    (tmp_path / "scripts" / "s.sh").write_text("python -m tests.browser.axe\n$PY - <<'PY'\nfrom tests.x import y\nPY\n")
    found = tool_imports(tmp_path)
    assert found == {"benchmarks/b.py": {"tests.browser.harness"}, "scripts/s.sh": {"tests.browser.axe", "tests.x"}}


def test_benchmarks_scripts_and_labtools_import_nothing_from_tests():
    wrong = [f"{path} imports {name}" for path, names in tool_imports().items() for name in sorted(names)
             if name == "tests" or name.startswith("tests.")]  # fmt: skip
    assert wrong == []


def test_labtools_imports_none_of_the_labs_layers():
    wrong = [f"{path} imports {name}" for path, names in tool_imports().items() if path.startswith("labtools/")
             for name in sorted(names) if name.split(".")[0] in LAYERS]  # fmt: skip
    assert wrong == []


# --- Types: mypy reads every Python file --------------------------------------------------------------------------


def unchecked(root: Path = ROOT) -> list[str]:
    """The Python files of the repository (outside hidden folders: .venv, .git) that pyproject.toml's [tool.mypy]
    `files` leaves out: neither named nor under a folder named there."""
    with open(root / "pyproject.toml", "rb") as f:
        mypy = tomllib.load(f)["tool"]["mypy"]
    assert "exclude" not in mypy, "mypy's files are every Python file: nothing excluded"
    checked = [Path(name) for name in mypy["files"]]
    out = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if not any(relative == named or named in relative.parents for named in checked):
            out.append(str(relative))
    return out


def test_the_unchecked_finder_sees_a_file_outside_mypys_files(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.mypy]\nfiles = ["app.py", "core"]\n')
    for name in ("app.py", "core/a.py", "core/b/c.py", "tools/d.py", "e.py", ".venv/lib/f.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert unchecked(tmp_path) == ["e.py", "tools/d.py"]


def test_mypy_checks_every_python_file_of_the_repository():
    """scripts/test.sh runs mypy with pyproject.toml's `files`: a new folder of Python files must be named there."""
    assert unchecked() == []


# --- One fact in one place: the token hand-off (issue 54) ---------------------------------------------------------
# The hand-off from the text-to-tokens page to the input layer is declared once, in lessons/input_layer/handoff.py:
# its keys are the input layer's declared settings, the cut names core.tokens' (grouped once there), the cut-to-table
# map the schema's, the limits the text-to-tokens declaration's bounds. Elsewhere the code reads them.
APP_LAYERS = ("core", "figures", "ui", "lessons")
HANDOFF = "lessons/input_layer/handoff.py"


@functools.cache
def app_files(root: Path = ROOT) -> dict[str, ast.Module]:
    """Every Python file of the lab's layers and app.py, parsed, by its path from the root."""
    paths = [root / "app.py", *(p for layer in APP_LAYERS for p in sorted((root / layer).rglob("*.py")))]
    return {str(p.relative_to(root)): ast.parse(p.read_text(), str(p)) for p in paths if p.is_file()}


def spelled_keys(files: dict[str, ast.Module], keys: set[str], declared_in: str) -> list[str]:
    """Where a key is written as a string but in its declaration or a lookup into a declaration (`SETTINGS["il_from"]`,
    `INPUT_LAYER["il_from"]`) in its lesson's folder."""
    folder = str(Path(declared_in).parent)
    wrong = []
    for path, tree in files.items():
        lookups = {
            id(n.slice)
            for n in ast.walk(tree)
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id.isupper()
        }
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and n.value in keys and path != declared_in:
                if not (id(n) in lookups and str(Path(path).parent) == folder):
                    wrong.append(f"{path}:{n.lineno} {n.value!r}")
    return wrong


def listed_cuts(files: dict[str, ast.Module], cuts: set[str]) -> list[str]:
    """Where the cut names are listed (a tuple, list or set of two or more of them) or mapped (a dict keyed by one)
    outside core/tokens.py's list and the hand-off's map."""
    wrong = []
    for path, tree in files.items():
        for n in ast.walk(tree):
            names = []
            if isinstance(n, (ast.Tuple, ast.List, ast.Set)) and path != "core/tokens.py":
                names = [e.value for e in n.elts if isinstance(e, ast.Constant) and e.value in cuts]
                names = names if len(names) > 1 else []
            elif isinstance(n, ast.Dict) and path != HANDOFF:
                names = [k.value for k in n.keys if isinstance(k, ast.Constant) and k.value in cuts]
            if names:
                wrong.append(f"{path}:{getattr(n, 'lineno', 0)} {names}")
    return wrong


def test_the_hand_off_finders_see_what_the_old_tree_wrote(tmp_path):
    old = {
        "ui/tokens.py": 'MODE_FOR = {"wordpiece": "minilm"}\ndef f(s):\n    return {"il_sentence": s}, s in ("bytes", "words")\n',
        "lessons/input_layer/handed.py": 'import streamlit as st\nst.session_state["il_mode"] = 1\n',
        "lessons/input_layer/input_layer.py": 'SETTINGS["il_mode"].draw()\n',
        "lessons/text_to_tokens/views.py": 'FOUR = ("characters", "bytes")\nSETTINGS["il_mode"]\n',
    }
    files = {path: ast.parse(text) for path, text in old.items()}
    keys = {"il_sentence", "il_mode"}
    assert spelled_keys(files, keys, "lessons/input_layer/settings.py") == [
        "ui/tokens.py:3 'il_sentence'",
        "lessons/input_layer/handed.py:2 'il_mode'",
        "lessons/text_to_tokens/views.py:2 'il_mode'",  # a lookup, but from another lesson: through the schema
    ]
    assert listed_cuts(files, {"bytes", "words", "wordpiece", "characters"}) == [
        "ui/tokens.py:1 ['wordpiece']",
        "ui/tokens.py:3 ['bytes', 'words']",
        "lessons/text_to_tokens/views.py:1 ['characters', 'bytes']",
    ]


def test_the_hand_offs_keys_are_read_from_the_input_layers_declaration():
    from lessons.input_layer import handoff

    keys = {handoff.SENTENCE.key, handoff.TABLE.key, handoff.CUT.key}
    assert spelled_keys(app_files(), keys, "lessons/input_layer/settings.py") == []


def test_the_cut_names_are_listed_once_and_mapped_to_tables_once():
    from core.tokens import CUTS

    assert listed_cuts(app_files(), set(CUTS)) == []


def test_the_hand_offs_limits_are_the_text_to_tokens_declarations():
    """50,000 words and 60,000 merges are written in the text-to-tokens declaration alone among the modules of the
    two pages and ui/ (the fertility curve's 50,000 words are its own fact: views.CURVE_WORDS)."""
    from lessons.input_layer import handoff

    limits = {handoff.MOST_WORDS, handoff.MOST_MERGES}
    files = app_files()
    scanned = [p for p in files if p.startswith(("ui/", "lessons/input_layer/", "lessons/text_to_tokens/"))]
    wrong = []
    for path in scanned:
        curve = {  # the curve's own sizes
            id(c)
            for n in ast.walk(files[path])
            if isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id.startswith("CURVE_") for t in n.targets)
            for c in ast.walk(n.value)
        }
        for n in ast.walk(files[path]):
            if isinstance(n, ast.Constant) and type(n.value) is int and n.value in limits and id(n) not in curve:
                wrong.append(f"{path}:{n.lineno} {n.value}")
    assert [w for w in wrong if not w.startswith("lessons/text_to_tokens/settings.py:")] == []


# --- A page reads top to bottom: one function per chapter, settings that only declare (issue 54) -----------------
MOST_FUNCTION_LINES = 60
LESSON_FOLDERS = sorted(p.name for p in (ROOT / "lessons").iterdir() if p.is_dir() and any(p.glob("*.py")))


def long_functions(folder: Path, most: int = MOST_FUNCTION_LINES) -> dict[str, int]:
    """{"file.py:function": lines} for every function (nested ones too) of a folder's modules longer than `most`
    lines, from its `def` to its last line."""
    out = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > most:
                    out[f"{path.name}:{node.name}"] = lines
    return out


def beyond_declaring(path: Path) -> list[str]:
    """What a settings module does beyond declaring, by line: importing streamlit or ui.presets, drawing a widget
    (`.draw(`), changing the session's state (`session_state[...] = `, `session_state.x = `)."""
    wrong: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            wrong += [
                (node.lineno, f"imports {n}") for n in names if n.split(".")[0] == "streamlit" or n == "ui.presets"
            ]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "draw":
            wrong.append((node.lineno, "draws a widget"))
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any("session_state" in ast.unparse(t) for t in targets):
                wrong.append((node.lineno, "changes the session's state"))
    return [f"{line}: {what}" for line, what in sorted(wrong)]


def test_the_finders_see_a_long_function_and_a_settings_module_that_draws(tmp_path):
    (tmp_path / "page.py").write_text("def short():\n    pass\n\n\ndef long():\n" + "    x = 1\n" * 60)
    (tmp_path / "settings.py").write_text(
        "import streamlit as st\nfrom ui.presets import take_pick\nSETTINGS = 1\n"
        "def ui():\n    SETTINGS['a'].draw()\n    st.session_state['a'] = 1\n"
    )
    assert long_functions(tmp_path) == {"page.py:long": 61}
    assert beyond_declaring(tmp_path / "settings.py") == [
        "1: imports streamlit",
        "2: imports ui.presets",
        "5: draws a widget",
        "6: changes the session's state",
    ]


@pytest.mark.parametrize("folder", LESSON_FOLDERS)
def test_no_function_of_a_lesson_is_over_60_lines(folder):
    """A page reads top to bottom, one function per chapter: a longer one is split by what it shows."""
    assert long_functions(ROOT / "lessons" / folder) == {}


@pytest.mark.parametrize("folder", [f for f in LESSON_FOLDERS if f != "overview"])
def test_a_lessons_settings_only_declare(folder):
    """Widgets are drawn, presets applied and the session's state changed by the page (or a ui helper several pages
    use), never by the declaration every other module reads."""
    assert beyond_declaring(ROOT / "lessons" / folder / "settings.py") == []
