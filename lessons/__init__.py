"""The lessons, one folder each (lessons/<folder>/<folder>.py, its page script); `declared` finds a lesson's
settings for app.py, which reads and checks the link with them (ui.link)."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

from ui.settings import Settings


def declared(folder: str) -> Settings | None:
    """The settings lessons/<folder>/settings.py declares (`SETTINGS`), or None for a lesson without settings (the
    overview)."""
    name = f"lessons.{folder}.settings"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name != name:
            raise
        return None
    return getattr(module, "SETTINGS", None)


def link_kinds(folder: str) -> dict[str, str]:
    """{key: kind} of every setting a lesson's link may hold (ui.link.read_link, check_link): its declaration's."""
    settings = declared(folder)
    if settings is not None:
        return settings.kinds()
    return _undeclared_kinds(folder)  # BRIDGE: {} once every lesson but the overview declares its settings


# BRIDGE: until the input-layer, word-embeddings, embedding-space and real-transformer lessons declare their settings
# (lessons/<folder>/settings.py), their links are read as before: from the widget calls with a literal key in the
# page script and the lessons and ui modules it imports, and every name those quote (a value kept by hand). Remove
# this function and its use in link_kinds once they declare them.
def _undeclared_kinds(folder: str) -> dict[str, str]:
    root = Path(__file__).parents[1]
    script = root / "lessons" / folder / f"{folder}.py"
    if folder == "overview" or not script.is_file():
        return {}
    texts = [script.read_text(encoding="utf-8")]
    for node in ast.walk(ast.parse(texts[0])):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(("ui.", "lessons.")):
            path = root / f"{node.module.replace('.', '/')}.py"
            if path.is_file():
                texts.append(path.read_text(encoding="utf-8"))
    kinds = {name: "by hand" for text in texts for name in re.findall(r'"(\w+)"', text)}
    for node in (node for text in texts for node in ast.walk(ast.parse(text))):
        if isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            words = {w.arg: w.value.value for w in node.keywords if isinstance(w.value, ast.Constant)}
            if isinstance(key := words.get("key"), str):
                several = called in ("multiselect", "translated_choices") or words.get("selection_mode") == "multi"
                kinds[key] = "multi" if several else called
    return kinds


def chapters(folder: str) -> tuple[str, ...]:
    """A lesson's chapters, its declared `<prefix>_chapter` setting's options (the first its default); () for a
    lesson without chapters. Read without running the page (the screenshots, the docs' test)."""
    settings = declared(folder)
    if settings is not None:
        return next((s.options for s in settings if s.key == f"{settings.prefix}_chapter"), ())
    # BRIDGE: a lesson that does not declare its settings yet: its script's CHAPTERS tuple
    script = Path(__file__).parent / folder / f"{folder}.py"
    for node in ast.parse(script.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CHAPTERS" for t in node.targets):
            return ast.literal_eval(node.value)
    return ()
