"""The lessons, in the order of the learning path: the one list the sidebar, the overview and links read.

Adding a lesson is one entry here and one folder, lessons/<folder>/, whose <folder>.py is the page script (its texts go
under [<key>] in locales/, its settings in lessons/<folder>/settings.py). The page is served at /<folder>. The script
is named after its folder, not page.py: AppTest finds a page by its file's name before the first run.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import streamlit as st

from ui.i18n import t


@dataclass(frozen=True)
class Lesson:
    """A page of the lab.

    key: its settings' prefix in the link, its texts' section in locales/ and its title, t("app.<key>").
    folder: its folder under lessons/, and its address (/<folder>).
    seeds: the tutorials (shared/seeds/) it teaches.
    """

    key: str
    folder: str
    icon: str
    seeds: tuple[str, ...] = ()

    @property
    def script(self) -> str:
        """The page script, as Streamlit names it (relative to app.py)."""
        return f"lessons/{self.folder}/{self.folder}.py"

    @property
    def title(self) -> str:
        return t(f"app.{self.key}")


OVERVIEW = Lesson("ov", "overview", ":material/route:")
PATH = (  # from text to the vectors a Transformer reads, one step per lesson
    Lesson("tt", "text_to_tokens", ":material/text_fields:", seeds=("seed003", "seed004")),
    Lesson("il", "input_layer", ":material/stacks:", seeds=("seed000", "seed003", "seed004")),
    Lesson("we", "word_embeddings", ":material/translate:", seeds=("seed003",)),
    Lesson("es", "embedding_space", ":material/scatter_plot:", seeds=("seed004",)),
    Lesson("pe", "positional_encoding", ":material/waves:", seeds=("seed000",)),
    Lesson("rp", "rotary", ":material/autorenew:", seeds=("seed004",)),
    Lesson("at", "attention", ":material/grid_view:", seeds=("seed004",)),
    Lesson("tf", "real_transformer", ":material/hub:", seeds=("seed000", "seed002", "seed003", "seed004")),
    Lesson("lv", "learned_vs_sinusoidal", ":material/straighten:", seeds=("seed002", "seed004")),
    Lesson("sv", "sentence_vectors", ":material/notes:", seeds=("seed003", "seed004")),
)
LESSONS = {lesson.key: lesson for lesson in PATH}


def navigation():
    """The sidebar's pages (the overview, then the path) and the page this run shows."""
    pages = {
        lesson.script: st.Page(
            lesson.script,
            title=lesson.title,
            icon=lesson.icon,
            url_path=lesson.folder,
            default=lesson is OVERVIEW,
        )
        for lesson in (OVERVIEW, *PATH)
    }
    page = st.navigation(list(pages.values()))
    key = next(lesson.key for lesson in (OVERVIEW, *PATH) if pages[lesson.script] is page)
    return page, key


def lesson(key: str) -> Lesson:
    """The lesson `key` (the overview's too): its folder holds its script and its settings (app.py reads them)."""
    return OVERVIEW if key == OVERVIEW.key else LESSONS[key]


def page_link(key: str, label: str | None = None, where=st) -> None:
    """A link to the lesson `key`, with its icon, and its title unless a label says more."""
    lesson = LESSONS[key]
    where.page_link(lesson.script, label=label or lesson.title, icon=lesson.icon)


def asked_path(page) -> str | None:
    """The page path of the browser's address when it names no page (Streamlit then shows the overview without a
    word); None when it names this run's page, or when it is not known (AppTest has no address). The overview, the
    default page, is served at / and, as every page, at /<folder> (/overview)."""
    url = st.context.url
    if not url:
        return None
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    path = urlsplit(url).path.strip("/")
    path = path[len(base) :].strip("/") if base and path.startswith(base) else path
    own = {page.url_path, OVERVIEW.folder} if page.url_path == "" else {page.url_path}  # "": the default page
    return None if path in own else path
