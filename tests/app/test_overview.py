"""The overview page: the first in the sidebar, a link per step, the seeds table, in both languages."""

from streamlit.testing.v1 import AppTest

from tests.app import APP
from ui.pages import PATH


def test_the_overview_is_the_first_page_with_a_link_per_step_and_the_seeds():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception
    assert at.title[0].value == "Overview: from text to vectors"
    assert len(at.get("page_link")) == len(PATH)  # one per lesson of the registry
    seeds = at.table[0].value
    assert len(seeds) == 4 and "Rotary & long context" in seeds.iloc[3, 0]
    assert len(at.latex) == 5
    at.session_state["lang"] = "zh"  # the sidebar's language switch
    at.run()
    assert at.title[0].value == "概览：从文本到向量" and "旋转位置编码与长上下文" in at.table[0].value.iloc[3, 0]
