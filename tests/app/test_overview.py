"""The overview page: the first in the sidebar, a link per step, the seeds table, in both languages."""

import pytest
from streamlit.runtime.context import ContextProxy
from streamlit.testing.v1 import AppTest

from tests.app import APP
from ui.i18n import LANGUAGES, catalog
from ui.pages import PATH


def test_the_overview_is_the_first_page_with_a_link_per_step_and_the_seeds():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception
    assert at.title[0].value == "Overview: from text to vectors"
    assert len(at.get("page_link")) == len(PATH)  # one per lesson of the registry
    seeds = at.table[0].value
    assert len(seeds) == 4 and "Rotary & long context" in str(seeds.iloc[3, 0])
    assert len(at.latex) == 5
    at.session_state["lang"] = "zh"  # the sidebar's language switch
    at.run()
    assert at.title[0].value == "概览：从文本到向量" and "旋转位置编码与长上下文" in str(at.table[0].value.iloc[3, 0])


@pytest.mark.parametrize(("path", "warned"), [("", False), ("overview", False), ("overviews", True)])
def test_the_overview_opens_at_its_own_address_without_a_warning(monkeypatch, path, warned):
    # issue 51: /overview warned "The link asks for the page overview, which the lab does not have", while every other
    # page is served at /<folder>; an address that names no page still says so
    monkeypatch.setattr(ContextProxy, "url", property(lambda self: f"http://localhost:8501/{path}"))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception and at.title[0].value == "Overview: from text to vectors"
    assert [w.value for w in at.warning if "does not have" in w.value] == (
        ["The link asks for the page overviews, which the lab does not have: Overview is shown."] if warned else []
    )


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_each_steps_heading_names_the_page_its_link_opens(lang):
    # the link's page is read off the link itself (its url path), its title off the locale file: a heading that
    # names another page, or a step whose link goes elsewhere, fails here, for every lesson the registry gains
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    by_path = {lesson.folder: lesson.key for lesson in PATH}
    links = [by_path[link.proto.page] for link in at.get("page_link")]
    headings = [h.value for h in at.subheader]
    assert links == [lesson.key for lesson in PATH]  # one step per lesson, in the path's order
    for step, (key, heading) in enumerate(zip(links, headings, strict=True), start=1):
        assert heading == f"{step}. {catalog(lang)[f'app.{key}']}", (heading, key)
