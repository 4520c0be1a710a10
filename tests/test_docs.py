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


def declared_chapters(folder: str) -> tuple[str, ...]:
    """The options of a lesson's declared chapter setting (`<key>_chapter` in lessons/<folder>/settings.py); () when
    it declares none."""
    try:
        settings = importlib.import_module(f"lessons.{folder}.settings").SETTINGS
    except (ModuleNotFoundError, AttributeError):
        return ()
    return next((tuple(s.options) for s in settings if s.key.endswith("_chapter")), ())


def chapters(script: str) -> tuple[str, ...]:
    """A lesson's chapters: its declared chapter setting's options, else its CHAPTERS tuple read without running the
    page; () when it has none."""
    if declared := declared_chapters(Path(script).parent.name):
        return declared
    for node in ast.parse((ROOT / script).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CHAPTERS" for t in node.targets):
            return ast.literal_eval(node.value)
    return ()


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
