"""The lessons, one folder each (lessons/<folder>/<folder>.py, its page script); `declared` finds a lesson's
settings for app.py, which reads and checks the link with them (ui.link)."""

from __future__ import annotations

import functools
import importlib

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
    return {} if settings is None else settings.kinds()


def chapters(folder: str) -> tuple[str, ...]:
    """A lesson's chapters, its declared `<prefix>_chapter` setting's options (the first its default); () for a
    lesson without chapters. Read without running the page (the screenshots, the docs' test)."""
    settings = declared(folder)
    if settings is None:
        return ()
    return next((s.options for s in settings if s.key == f"{settings.prefix}_chapter"), ())


@functools.cache  # not ui.cache: the lessons' declarations are constants of the process
def every_declared() -> dict[str, Settings]:
    """Every lesson's declared settings, by folder (a live class's bar names the leader's view with them)."""
    from ui.pages import PATH

    return {lesson.folder: settings for lesson in PATH if (settings := declared(lesson.folder)) is not None}
