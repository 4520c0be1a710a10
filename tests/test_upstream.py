"""docs/upstream.md names every reach into a library's internals: each private name the code takes from a module or
an object that is not the project's own, in Python and in the JavaScript the lab and its tools run in the browser.

Python files are read with `ast`: an attribute `x._name` (not a dunder) on an object other than `self`/`cls`, a
`getattr(x, "_name")`, an import from (or of) a module with a `_private` part, a keyword `_name=` to a call, a string
that names a private module (`"torch._utils"`) or a private name of a module the file names, and a URL path with a
private part (`/_stcore/`). A private name the file itself, or a project module it imports, defines is the project's
own. JavaScript files are read with a regular expression: `._name` that the file never assigns.

A reach is named when one row of docs/upstream.md's tables names both the file (or a folder above it) and the name.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT / "docs" / "upstream.md"
PRIVATE = re.compile(r"_[A-Za-z0-9]\w*")  # one leading underscore, not a dunder
DOTTED_MODULE = re.compile(r"[A-Za-z]\w*(?:\.\w+)+")
URL_PART = re.compile(r"(?:^|/)(_[A-Za-z]\w*)(?=/|$)")
JS_PRIVATE = re.compile(r"\.(_[A-Za-z]\w*)")
# Private by name only, and documented as the way to use them: not a reach.
DOCUMENTED = {
    "_typeshed": "typeshed's helper types, to import under TYPE_CHECKING (typeshed's README: `_typeshed`)",
    "_replace": "a namedtuple's documented method",
    "_asdict": "a namedtuple's documented method",
    "_fields": "a namedtuple's documented attribute",
}


@functools.cache
def own_routes() -> frozenset[str]:
    """The private parts of the lab's own routes beside Streamlit's (serve.ROUTES: `/_class/<code>/view`)."""
    from serve import ROUTES

    return frozenset(part for route in ROUTES for part in route.path.split("/") if PRIVATE.fullmatch(part))


def private(name: str) -> bool:
    return bool(PRIVATE.fullmatch(name)) and name not in DOCUMENTED


def source_files(suffix: str, root: Path = ROOT) -> list[Path]:
    """Every file of the repository with this suffix, outside hidden folders (.venv, .git, .axe-core)."""
    return sorted(
        path for path in root.rglob(f"*{suffix}") if not any(p.startswith(".") for p in path.relative_to(root).parts)
    )


@functools.cache
def project_tops(root: Path = ROOT) -> frozenset[str]:
    """The repository's own top-level modules and packages: app, serve, core, ui, tests, ..."""
    folders = {p.relative_to(root).parts[0] for p in source_files(".py", root) if p.parent != root}
    return frozenset({p.stem for p in root.glob("*.py")} | folders)


@functools.cache
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@functools.cache
def defined_in(path: Path) -> frozenset[str]:
    return frozenset(defined(parsed(path)))


def defined(tree: ast.AST) -> set[str]:
    """The private names a module defines anywhere: functions, classes, arguments, names and attributes assigned."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.alias) and node.asname:
            out.add(node.asname)
    return {name for name in out if PRIVATE.fullmatch(name)}


def imported(tree: ast.AST) -> list[str]:
    """The dotted names of the modules a file imports, anywhere in it."""
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names]
    return out


def module_names(tree: ast.AST, root: Path) -> set[str]:
    """The third-party modules a file names in a string ("torch._utils", "torch.serialization"), as a pickle's
    globals are named: a private name in a string beside them is that module's."""
    tops = project_tops(root)
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return {
        s for s in strings if DOTTED_MODULE.fullmatch(s) and s.split(".")[0] not in tops and installed(s.split(".")[0])
    }


@functools.cache
def installed(top: str) -> bool:
    """Whether a top-level package is installed (a dotted file name, "data.pkl", or a text key names none)."""
    return importlib.util.find_spec(top) is not None


@functools.cache
def has_private(module: str, name: str) -> bool:
    """Whether an installed module's source defines `name`, read without importing it (torch would take seconds)."""
    top, *rest = module.split(".")
    spec = importlib.util.find_spec(top)
    if spec is None or not spec.submodule_search_locations:
        return False
    base = Path(next(iter(spec.submodule_search_locations))).joinpath(*rest)
    for file in (base.with_suffix(".py"), base / "__init__.py"):
        if file.is_file():
            return re.search(rf"^\s*(?:def|class)\s+{name}\b|^\s*{name}\s*[:=]", file.read_text(), re.M) is not None
    return False


def python_reaches(path: Path, root: Path = ROOT) -> set[str]:
    """The private names a Python file takes from what is not the project's own."""
    tree = parsed(path)
    tops = project_tops(root)
    own = defined(tree)
    for module in imported(tree):  # what the project's modules it imports define is its own too
        parts = module.split(".")
        if parts[0] in tops:
            for i in range(len(parts), 0, -1):
                candidate = root.joinpath(*parts[:i])
                for file in (candidate.with_suffix(".py"), candidate / "__init__.py"):
                    if file.is_file():
                        own |= defined_in(file)
    found: set[str] = set()
    modules = module_names(tree, root)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr) and node.attr not in own:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.add(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("getattr", "hasattr", "setattr", "delattr") and len(node.args) >= 2:
                name = node.args[1]
                if isinstance(name, ast.Constant) and isinstance(name.value, str) and private(name.value):
                    found |= {name.value} - own
            found |= {k.arg for k in node.keywords if k.arg and private(k.arg) and k.arg not in own}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            found |= {k.arg for k in node.keywords if k.arg and private(k.arg) and k.arg not in own}
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in tops:
                    found |= {part for part in alias.name.split(".") if private(part)}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] not in tops:
            for dotted in [node.module, *(a.name for a in node.names)]:
                found |= {part for part in dotted.split(".") if private(part)}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if DOTTED_MODULE.fullmatch(text) and text.split(".")[0] not in tops:
                found |= {part for part in text.split(".")[1:] if private(part)}
            elif private(text) and text not in own and any(has_private(m, text) for m in modules):
                found.add(text)
            if "/" in text:
                found |= {m[1] for m in URL_PART.finditer(text) if private(m[1]) and m[1] not in own_routes()}
    return found


def js_reaches(path: Path) -> set[str]:
    """The private properties a JavaScript file reads and never assigns (plotly's `_fullLayout`, ...)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    assigned = set(re.findall(r"\.(_[A-Za-z]\w*)\s*=(?!=)", text))
    return set(JS_PRIVATE.findall(text)) - assigned


def reaches(root: Path = ROOT) -> dict[str, set[str]]:
    """{file: the private names it reaches} for every Python and JavaScript file of the repository."""
    python = [p for p in source_files(".py", root) if p != Path(__file__).resolve()]  # not this file's examples
    out = {str(p.relative_to(root)): python_reaches(p, root) for p in python}
    out |= {str(p.relative_to(root)): js_reaches(p) for p in source_files(".js", root)}
    # a string of Python code run in the browser (page.evaluate("() => p._fullData")) reads JavaScript's names
    for p in python:
        for node in ast.walk(parsed(p)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "=>" in node.value:
                out[str(p.relative_to(root))] |= set(JS_PRIVATE.findall(node.value))
    return {path: names for path, names in out.items() if names}


def rows(text: str) -> list[str]:
    """The table rows of a Markdown text (header and rule lines included: they name no file)."""
    return [line for line in text.splitlines() if line.startswith("|")]


def unnamed(found: dict[str, set[str]], doc: str) -> list[str]:
    """`file: name` for each reach no row of the doc names together with its file (or a folder above it)."""
    table = rows(doc)
    out = []
    for path, names in sorted(found.items()):
        places = {f"`{path}`", *(f"`{'/'.join(path.split('/')[:i])}/`" for i in range(1, path.count("/") + 1))}
        for name in sorted(names):
            if not any(name in row and any(place in row for place in places) for row in table):
                out.append(f"{path}: {name}")
    return out


def test_the_reach_finder_sees_each_kind_of_reach(tmp_path):
    (tmp_path / "own").mkdir()
    (tmp_path / "own" / "__init__.py").write_text("def _helper():\n    pass\n")
    (tmp_path / "a.py").write_text(
        "import torch\n"
        "from streamlit.runtime.scriptrunner_utils import _private_thing\n"
        "import own\n"
        "from own import _helper\n"
        "class A:\n"
        "    def f(self, x):\n"
        "        self._mine = x._version\n"
        "        return getattr(x, '_session_mgr', None), self._mine, own._helper\n"
        "def g(fig):\n"
        "    return go.Figure(fig, _validate=False), 'torch._utils', '_rebuild_tensor_v2', '/_stcore/health'\n"
        "KEY = '_link_asked'\n"
        "JS = '() => p._fullData'\n"
    )
    (tmp_path / "b.js").write_text("// gd._notThis\nconst h = gd._fullLayout._size; gd._ours = 1; gd._ours;\n")
    assert reaches(tmp_path) == {
        "a.py": {
            "_private_thing",
            "_version",
            "_session_mgr",
            "_validate",
            "_utils",
            "_rebuild_tensor_v2",
            "_stcore",
            "_fullData",
        },
        "b.js": {"_fullLayout", "_size"},
    }
    doc = "| x | `a.py` | `_version`, `_session_mgr` |\n| y | `b.js` and `c/` | `_fullLayout` |\n"
    assert unnamed({"a.py": {"_version", "_validate"}, "b.js": {"_size"}, "c/d.py": {"_fullLayout"}}, doc) == [
        "a.py: _validate",
        "b.js: _size",
    ]


def test_docs_upstream_names_every_reach_into_a_librarys_internals():
    assert unnamed(reaches(), UPSTREAM.read_text(encoding="utf-8")) == []
