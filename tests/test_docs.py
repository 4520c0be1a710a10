"""The README and docs/: every relative link and picture resolves, the README stays short, shows only the pictures
scripts/screenshots.py makes, and names every lesson of ui/pages.py's registry, in the path's order.

Links are read from the Markdown (`[text](target)`, `![alt](path)`, outside code), anchors (`file.md#part`) are
matched against the GitHub slugs of the target's headings.
"""

from __future__ import annotations

import ast
import importlib
import re
import tomllib
from pathlib import Path

import pytest

import lessons
from ui.i18n import LANGUAGES
from ui.pages import OVERVIEW, PATH

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MAX_README_LINES = 150
IMAGES = "docs/img"  # where scripts/screenshots.py writes its pictures
# A screenshot's name: <page key>[-<chapter>]-<lang>[-phone].<png|webp>, e.g. pe-similarity-zh.webp, pe-en-phone.webp
# (scripts/screenshots.py, --phone)
SHOT = re.compile(r"(?P<key>[a-z]+)(?:-(?P<chapter>[a-z]+))?-(?P<lang>[a-z]{2})(?:-phone)?\.(?:png|webp)")

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"(?P<image>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
HTML_IMAGE = re.compile(r"<img\b[^>]*\bsrc=\"(?P<target>[^\"]+)\"", re.I)
HEADING = re.compile(r"^(#{1,6})[ \t]+(?P<text>.+?)[ \t#]*$", re.M)


def prose(text: str) -> str:
    """The Markdown without its code: fenced blocks and inline code spans, where a link is no link."""
    return CODE.sub("", FENCE.sub("", text))


def links(path: Path) -> list[tuple[bool, str]]:
    """(is a picture, target) for every link and picture of a Markdown file, in order."""
    text = prose(path.read_text(encoding="utf-8"))
    found = [(m["image"] == "!", m["target"]) for m in LINK.finditer(text)]
    return found + [(True, m["target"]) for m in HTML_IMAGE.finditer(text)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text without Markdown, lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays, its target goes
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    return "".join(c for c in text if c.isalnum() or c in "-_ ").replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a Markdown file; a repeated heading gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    out = set()
    for m in HEADING.finditer(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(m["text"])
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def relative(target: str) -> bool:
    """Whether a link points into the repository (not a web address, mail or the like)."""
    return not re.match(r"[a-z][a-z0-9+.-]*:|//", target, re.I)


def resolve(source: Path, target: str) -> str | None:
    """None when `target`, linked from `source`, exists (and its anchor too), else what is wrong."""
    path_part, _, anchor = target.partition("#")
    path = (source.parent / path_part).resolve() if path_part else source
    if not path.exists():
        return f"{path_part} does not exist"
    if anchor and path.suffix == ".md" and anchor not in anchors(path):
        return f"#{anchor} is no heading of {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}"
    return None


def cases(pictures: bool) -> list:
    """(file, target) for every relative link (or picture) of README.md and docs/*.md."""
    return [
        pytest.param(doc, target, id=f"{doc.relative_to(ROOT)}->{target}")
        for doc in (README, *DOCS)
        for image, target in links(doc)
        if image == pictures and relative(target)
    ]


def english_titles() -> dict[str, str]:
    """{lesson key: its title in English}, as the sidebar shows it (locales/en.toml's [app])."""
    with open(ROOT / "locales" / "en.toml", "rb") as f:
        return tomllib.load(f)["app"]


def chapters(script: str) -> tuple[str, ...]:
    """A lesson's chapters, read from its declaration without running the page; () when it has none."""
    return lessons.chapters(Path(script).parent.name)


def test_the_link_reader_finds_links_pictures_and_anchors_but_not_code(tmp_path):
    doc = tmp_path / "a.md"
    doc.write_text(
        "# Run a class\n\n## Rotary & long context\n\n## `core/` and figures\n\n## Run a class\n\n"
        '[ok](#run-a-class) ![p](img/x.png "title") [web](https://example.com) `[no](code.md)`\n'
        '<img src="img/y.webp" width="300">\n\n```bash\n[neither](fenced.md)\n# not a heading\n```\n'
    )
    assert links(doc) == [
        (False, "#run-a-class"),
        (True, "img/x.png"),
        (False, "https://example.com"),
        (True, "img/y.webp"),
    ]
    assert anchors(doc) == {"run-a-class", "rotary--long-context", "core-and-figures", "run-a-class-1"}
    assert resolve(doc, "#run-a-class-1") is None
    assert resolve(doc, "#not-there") == "#not-there is no heading of a.md"
    assert resolve(doc, "missing.md") == "missing.md does not exist"
    assert not relative("https://example.com") and relative("docs/x.md")


@pytest.mark.parametrize(("doc", "target"), cases(pictures=False))
def test_every_relative_link_resolves(doc, target):
    assert resolve(doc, target) is None, resolve(doc, target)


@pytest.mark.parametrize(("doc", "target"), cases(pictures=True))
def test_every_picture_exists(doc, target):
    assert resolve(doc, target) is None, resolve(doc, target)


def test_the_readme_is_at_most_150_lines():
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines: move detail into docs/"


def test_the_readme_shows_only_screenshots_the_script_makes():
    lessons = {lesson.key: lesson for lesson in (OVERVIEW, *PATH)}
    wrong = []
    pictures = [target for image, target in links(README) if image]
    assert pictures, "the README shows no picture"
    for target in pictures:
        folder, _, name = target.rpartition("/")
        shot = SHOT.fullmatch(name)
        if (
            folder != IMAGES
            or not shot
            or shot["key"] not in lessons
            or shot["lang"] not in LANGUAGES
            or (shot["chapter"] and shot["chapter"] not in chapters(lessons[shot["key"]].script)[1:])
        ):
            wrong.append(target)
    assert wrong == [], f"not a picture scripts/screenshots.py makes ({IMAGES}/<key>[-<chapter>]-<lang>.webp)"


def test_the_readme_names_every_lesson_in_the_paths_order():
    titles = english_titles()
    headings = [m["text"] for m in HEADING.finditer(FENCE.sub("", README.read_text(encoding="utf-8")))]
    lessons = [titles[lesson.key] for lesson in PATH]
    assert [h for h in headings if h in lessons] == lessons
    assert titles[OVERVIEW.key] in README.read_text(encoding="utf-8")


def test_the_readme_links_to_every_docs_file():
    linked = {(README.parent / target.partition("#")[0]).resolve() for _, target in links(README) if relative(target)}
    assert [doc.name for doc in DOCS if doc.resolve() not in linked] == []


# A test the docs name: `tests/<path>.py::<name>` or `tests/<path>.py` (docs/upstream.md names the test that fails
# when a library changes under each reach into its internals)
NAMED_TEST = re.compile(r"`(?P<file>tests/[\w/]+\.py)(?:::(?P<name>\w+))?`")


def test_every_test_the_docs_name_exists():
    missing = []
    for doc in DOCS:
        for m in NAMED_TEST.finditer(doc.read_text(encoding="utf-8")):
            path = ROOT / m["file"]
            if not path.exists():
                missing.append(f"{doc.name}: {m['file']}")
            elif m["name"]:
                defined = {n.name for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if hasattr(n, "name")}
                if m["name"] not in defined:
                    missing.append(f"{doc.name}: {m['file']}::{m['name']}")
    assert missing == []


def test_docs_upstream_names_the_file_of_every_reach():
    text = (ROOT / "docs" / "upstream.md").read_text(encoding="utf-8")
    for where in re.findall(r"^\| [^|]+ \| `([^`]+)`", text, re.M):
        assert (ROOT / where).exists(), where


# --- docs/architecture.md names every module, and only what exists ------------------------------------------------

ARCHITECTURE = ROOT / "docs" / "architecture.md"
LAYERS = ("core", "figures", "ui", "lessons", "labtools")
# A module named in prose: `core.attention.head` (dotted) or core/attention/head.py, core/attention/ (a path)
DOTTED = re.compile(rf"\b(?:{'|'.join(LAYERS)})(?:\.\w+)+|\b(?:{'|'.join(LAYERS)})\b(?![/\w])")
PATHS = re.compile(rf"\b(?:{'|'.join(LAYERS)})(?:/\w+)*(?:\.py|/)")
# A backticked dotted name whose first part is a layer: `ui.cache.cached`, `lessons.attention.settings.SETTINGS`
SYMBOL = re.compile(rf"`(?P<name>(?:{'|'.join(LAYERS)})(?:\.\w+)+)")


def modules(layers: tuple[str, ...] = ("core", "figures", "ui", "lessons")) -> dict[str, Path]:
    """{dotted name: file} of every Python module under the layers, packages by their __init__.py."""
    out = {}
    for layer in layers:
        for path in sorted((ROOT / layer).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def named(text: str) -> set[str]:
    """Every module a text names, as a dotted name: each dotted name and each of its prefixes (`ui.cache.cached`
    names ui.cache and ui), each path (`core/attention/head.py`, `core/attention/`) and the folders above it."""
    names: set[str] = set()
    for m in DOTTED.finditer(text):
        parts = m[0].split(".")
        names.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    for m in PATHS.finditer(text):
        parts = m[0].removesuffix("/").removesuffix(".py").removesuffix("/__init__").split("/")
        names.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return names


def unnamed(text: str) -> list[str]:
    """The modules under core/, figures/, ui/ and lessons/ a text does not name."""
    said = named(text)
    return [name for name in modules() if name not in said]


def page_script(path: Path) -> bool:
    """Whether a file is a lesson's page script (lessons/<folder>/<folder>.py), which runs its page on import."""
    return path.parent.parent == ROOT / "lessons" and path.stem == path.parent.name


def top_level_names(path: Path) -> set[str]:
    """The names a module defines at its top level (functions, classes, assignments, imports), read without running
    it."""
    out: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
    return out


def module_file(dotted: str) -> Path | None:
    """The file of a dotted module name under the repository, or None when it is no module."""
    path = ROOT.joinpath(*dotted.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.exists():
            return candidate
    return path if path.is_dir() else None  # a folder without __init__.py: a namespace package


def missing(name: str) -> str | None:
    """None when the dotted `module.symbol` (or module) exists, else what is missing. The longest prefix that is a
    module is imported (a lesson's page script is parsed instead: it runs its page on import) and the rest looked
    up on it, attribute by attribute."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        if (path := module_file(".".join(parts[:i]))) is not None:
            break
    else:
        return f"{name}: no module {parts[0]}"
    module, rest = ".".join(parts[:i]), parts[i:]
    if not rest:
        return None
    if path.suffix == ".py" and page_script(path):
        defined = top_level_names(path)
        return None if rest[0] in defined and len(rest) == 1 else f"{name}: {module} defines no {'.'.join(rest)}"
    value: object = importlib.import_module(module)
    for j, attr in enumerate(rest):
        if not hasattr(value, attr):
            return f"{name}: {'.'.join(parts[: i + j])} has no {attr}"
        value = getattr(value, attr)
    return None


def wrong_symbols(text: str) -> list[str]:
    """What is missing for each backticked `module.symbol` a text names."""
    return [problem for m in SYMBOL.finditer(text) if (problem := missing(m["name"])) is not None]


def test_the_architecture_checker_finds_a_module_left_out_and_a_made_up_name():
    whole = ARCHITECTURE.read_text(encoding="utf-8")
    left_out = whole.replace("core.attention.head", "").replace("core/attention/head.py", "")
    assert "core.attention.head" in unnamed(left_out)
    assert "core.bpe" in named("`core/bpe.py`") and "core.attention" in named("`core/attention/`")
    assert "core.attention" in named("`core.attention.head.AttentionConfig`")
    assert wrong_symbols("`ui.cache.cached` `core.attention.head.AttentionConfig` `lessons.declared`") == []
    assert wrong_symbols("`ui.cache.no_such_thing`") == ["ui.cache.no_such_thing: ui.cache has no no_such_thing"]
    assert wrong_symbols("`ui.caching.page_cache_data`") == ["ui.caching.page_cache_data: ui has no caching"]
    assert wrong_symbols("`core.attention.head.AttentionConfig.no_field`") != []
    # a page script is read, not run: a name it defines passes, a made-up one fails
    assert wrong_symbols("`lessons.attention.attention.lesson`") == []
    assert wrong_symbols("`lessons.attention.attention.made_up`") == [
        "lessons.attention.attention.made_up: lessons.attention.attention defines no made_up"
    ]


def test_the_architecture_names_every_module_of_core_figures_ui_and_lessons():
    assert unnamed(ARCHITECTURE.read_text(encoding="utf-8")) == []


def test_every_module_and_symbol_the_architecture_names_exists():
    assert wrong_symbols(ARCHITECTURE.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("doc", [README, *DOCS], ids=lambda doc: doc.name)
def test_every_module_symbol_a_doc_names_exists(doc):
    assert wrong_symbols(doc.read_text(encoding="utf-8")) == []


# --- docs/architecture.md's claims hold, not only its names --------------------------------------------------------


def lesson_folders() -> list[Path]:
    return sorted(p for p in (ROOT / "lessons").iterdir() if p.is_dir() and any(p.glob("*.py")))


def test_every_lesson_folder_is_a_package_with_its_page_script_and_its_settings():
    """ "each folder imported as a package", "an empty `__init__.py` in it", "Each has its page script ... and, but
    the overview, its `settings.py`", one folder per lesson of `ui.pages.PATH` and the overview."""
    folders = lesson_folders()
    assert [p.name for p in folders] == sorted(lesson.folder for lesson in (OVERVIEW, *PATH))
    for folder in folders:
        init = folder / "__init__.py"
        assert init.is_file() and init.read_text() == "", f"{folder.name}: no empty __init__.py"
        assert (folder / f"{folder.name}.py").is_file(), f"{folder.name}: no page script named after its folder"
        has_settings = (folder / "settings.py").is_file()
        assert has_settings == (folder.name != OVERVIEW.folder), f"{folder.name}: settings.py"


def test_the_page_scripts_live_in_lessons_not_pages():
    """Streamlit would run a pages/ folder beside app.py as its older multipage mode."""
    assert not (ROOT / "pages").exists()


def test_figures_are_builders_returning_a_figure():
    """ "figures/ plotly figure builders: CPU arrays in, go.Figure out": every `*_figure` returns a go.Figure."""
    wrong = []
    for path in sorted((ROOT / "figures").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.endswith("_figure"):
                if node.returns is None or ast.unparse(node.returns) != "go.Figure":
                    wrong.append(f"{path.name}: {node.name}")
    assert wrong == []


def test_the_serving_settings_are_what_the_architecture_says():
    """ "`.streamlit/config.toml` turns off the file watcher ... and Streamlit's `gc.collect()` after every run"."""
    with open(ROOT / ".streamlit" / "config.toml", "rb") as f:
        config = tomllib.load(f)
    assert config["server"]["fileWatcherType"] == "none" and config["runner"]["postScriptGC"] is False


def test_the_architecture_says_what_mypy_checks():
    """The sentence about mypy names what pyproject.toml's `files` holds (tests/test_structure.py: every file)."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        files = tomllib.load(f)["tool"]["mypy"]["files"]
    text = " ".join(ARCHITECTURE.read_text(encoding="utf-8").split())
    assert "`mypy` checks every Python file of the repository" in text
    assert {"app.py", "serve.py", "tests"} <= set(files)
