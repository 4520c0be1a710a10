"""The lessons, in the order of the learning path: the one list the sidebar, the overview and links read.

Adding a lesson is one entry here and one page file in lessons/ (its texts go under [<key>] in locales/).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import streamlit as st

from ui.i18n import t


@dataclass(frozen=True)
class Lesson:
    """A page of the lab.

    key: its settings' prefix in the link, its texts' section in locales/ and its title, t("app.<key>").
    seeds: the tutorials (shared/seeds/) it teaches.
    """

    key: str
    script: str
    icon: str
    seeds: tuple[str, ...] = ()

    @property
    def url_path(self) -> str | None:
        """Where Streamlit serves it: a lesson folder's page.py at the folder's name (else the script's name)."""
        path = Path(self.script)
        return path.parent.name if path.name == "page.py" else None

    @property
    def title(self) -> str:
        return t(f"app.{self.key}")


OVERVIEW = Lesson("ov", "lessons/overview.py", ":material/route:")
PATH = (  # from text to the vectors a Transformer reads, one step per lesson
    Lesson("tt", "lessons/text_to_tokens/page.py", ":material/text_fields:", seeds=("seed003", "seed004")),
    Lesson("il", "lessons/input_layer.py", ":material/stacks:", seeds=("seed000", "seed003", "seed004")),
    Lesson("we", "lessons/word_embeddings.py", ":material/translate:", seeds=("seed003",)),
    Lesson("es", "lessons/embedding_space.py", ":material/scatter_plot:", seeds=("seed004",)),
    Lesson("pe", "lessons/positional_encoding.py", ":material/waves:", seeds=("seed000",)),
    Lesson("rp", "lessons/rotary.py", ":material/autorenew:", seeds=("seed004",)),
    Lesson("at", "lessons/attention.py", ":material/grid_view:", seeds=("seed004",)),
    Lesson("tf", "lessons/real_transformer.py", ":material/hub:", seeds=("seed000", "seed002", "seed003", "seed004")),
    Lesson("lv", "lessons/learned_vs_sinusoidal.py", ":material/straighten:", seeds=("seed002", "seed004")),
)
LESSONS = {lesson.key: lesson for lesson in PATH}


def navigation():
    """The sidebar's pages (the overview, then the path) and the page this run shows."""
    pages = {
        lesson.script: st.Page(
            lesson.script, title=lesson.title, icon=lesson.icon, default=lesson is OVERVIEW, url_path=lesson.url_path
        )
        for lesson in (OVERVIEW, *PATH)
    }
    page = st.navigation(list(pages.values()))
    key = next(lesson.key for lesson in (OVERVIEW, *PATH) if pages[lesson.script] is page)
    return page, key


def page_script(key: str) -> str:
    """The script of the page `key` (the overview's too)."""
    return OVERVIEW.script if key == OVERVIEW.key else LESSONS[key].script


def page_link(key: str, label: str | None = None, where=st) -> None:
    """A link to the lesson `key`, with its icon, and its title unless a label says more."""
    lesson = LESSONS[key]
    where.page_link(lesson.script, label=label or lesson.title, icon=lesson.icon)


def asked_path(page) -> str | None:
    """The page path of the browser's address when it names no page (Streamlit then shows the overview without a
    word); None when it names this run's page, or when it is not known (AppTest has no address)."""
    url = st.context.url
    if not url:
        return None
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    path = urlsplit(url).path.strip("/")
    path = path[len(base) :].strip("/") if base and path.startswith(base) else path
    return None if path == page.url_path else path
