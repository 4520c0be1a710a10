"""Nothing from a link or a box renders as Markdown or HTML: a value is shown as text in every notice, caption,
label and chart (ui.i18n.escaped for Markdown, figures.markup.escaped for plotly's HTML).

Generated values (Hypothesis) mix what Markdown and HTML would turn into a link or an image to a foreign host
(links, images, autolinks, bare URLs, www. and e-mail addresses, reference links, raw tags), LaTeX and emphasis.
`escaped` alone is checked on many of them, rendered by markdown-it-py (CommonMark, as Streamlit's renderer reads
it) and by the GFM autolink patterns Streamlit's renderer adds; then every page is opened from a link that puts
them into every setting and a few unknown names, and every Markdown text and every figure of the page is checked.
tests/browser/test_across_pages.py opens such a link in Chromium and looks at the DOM itself.
"""

import html
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from figures.markup import escaped as html_escaped
from tests.app import APP
from tests.app.test_link_fuzz import EXAMPLES, GENERATE, PAGES
from tests.app.test_links import SHARED
from ui.i18n import JOINER, Message, escaped, shown, t

HOST = "evil.example"
PIECES = (
    f"[CLICK ME](https://{HOST}/phish)",
    f"![x](http://{HOST}/track.png)",
    f"<https://{HOST}/auto>",
    f"https://{HOST}/bare",
    f"HTTP://{HOST}",
    f"www.{HOST}",
    f"me@{HOST}",
    f"[x][1]\n\n[1]: http://{HOST}/ref",
    f'<a href="http://{HOST}">a</a>',
    f'<img src="http://{HOST}/i.png">',
    f"[x]: http://{HOST}\n[x]",
    "$x^2$",
    "$$\\int$$",
    "*em* _em_ **b** __b__ ~~s~~",
    "`code` ```fence```",
    "# heading",
    "> quote",
    "\n- item\n1. item\n===\n---",
    "| a | b |\n|---|---|",
    "&lt;b&gt; &#91;x&#93;",
    ":red[colour]",
    "\\",
)
HOSTILE = st.lists(
    st.one_of(st.sampled_from(PIECES), st.text(st.characters(exclude_categories=["Cs"]), max_size=6)),
    min_size=1,
    max_size=5,
).map("".join)
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
# remark-gfm's literal autolinks, as Streamlit's renderer finds them in text (see ui/i18n.py)
AUTOLINK = re.compile(r"(?i)(https?://|www\.)[-.\w]+|[-.\w+]+@[-\w]+(\.[-\w]+)+")


def problems(markdown: str) -> list[str]:
    """What in a Markdown text would render as a link, an image, a formula or markup from a foreign host's text."""
    rendered = MD.render(markdown)
    found = re.findall(r"<(?:a|img)\b[^>]*>", rendered)
    found += [m[0] for m in AUTOLINK.finditer(html.unescape(re.sub(r"<[^>]+>", "", rendered))) if HOST in m[0]]
    found += re.findall(r"(?<!\\)\$(?:x\^2|\$\\int)", markdown)  # the hostile formulas, not escaped
    return found


def visible(markdown: str) -> str:
    """The text a Markdown text shows, whitespace collapsed (Markdown collapses it too) and joiners left out."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", MD.render(markdown))).replace(JOINER, "")
    return " ".join(text.split())


@settings(max_examples=300)
@given(text=HOSTILE)
def test_an_escaped_text_renders_as_the_text_itself_with_no_link_image_or_markup(text):
    markdown = escaped(text)
    assert not problems(markdown), (text, markdown)
    assert visible(markdown) == " ".join(text.replace("\x00", "\ufffd").split())  # CommonMark: NUL shown as U+FFFD
    assert not re.search(r"<(?!/?p>)[a-z/]", MD.render(markdown)), MD.render(markdown)  # no tag but paragraphs


def test_a_value_is_escaped_once_and_a_message_is_kept_whole():
    value = f"[x](http://{HOST}) *a* es_size"
    once = shown(value)
    assert isinstance(once, Message) and shown(once) is once and escaped(once) is once
    assert t("ui.link_ignored", items=once) == f"Parts of the link were not used as given: {once}."
    assert "es_size" in once  # an underscore inside a word is no emphasis: left as it is
    long = shown("[" * 500)
    assert "(500 characters in all)" in long and not problems(long)


def test_a_figure_text_is_escaped_for_html():
    assert html_escaped('<a href="http://h">x</a> & y') == '&lt;a href="http://h"&gt;x&lt;/a&gt; &amp; y'


FIGURE_HTML = ("name", "hovertext", "text", "hovertemplate", "title", "ticktext")


def figure_problems(spec: str) -> list[str]:
    """The strings of a figure where plotly reads HTML that hold a tag (`<a `, `<img`, `<b>`...) from a user."""
    found: list[str] = []

    def walk(value, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key in FIGURE_HTML and re.search(r"(?i)<(a|img)\b|\$x\^2", value):
            found.append(value)

    figure = json.loads(spec)
    for trace in figure.get("data", []):
        gl = trace.get("type") in ("scattergl", "scatter3d") and "hovertext" in trace
        walk({k: v for k, v in trace.items() if not (gl and k == "text")})  # WebGL draws `text`: no HTML read
    walk(figure.get("layout", {}))
    return found


def chart_figures(data) -> list[str]:
    """The figures' JSON texts that ui.live_chart sends its component: figure, figures, overlay (traces alone)."""
    if not isinstance(data, dict):
        return []
    figures = [data["figure"]] if isinstance(data.get("figure"), str) else []
    figures += [f for f in data.get("figures", []) if isinstance(f, str)]
    if isinstance(data.get("overlay"), str):
        traces = json.loads(data["overlay"])
        figures.append(json.dumps(traces if isinstance(traces, dict) else {"data": traces}))
    return figures


MARKDOWN = ("body", "label", "help", "captions", "options")  # the fields Streamlit renders as Markdown


def texts(at: AppTest) -> tuple[list[str], list[str]]:
    """Every Markdown text of the page as drawn (the elements' and blocks' markdown fields), and every figure."""
    markdown, figures = [], []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "ListFields"):
            if getattr(proto, "spec", "") and type(proto).__name__ == "PlotlyChart":
                figures.append(proto.spec)
            if getattr(proto, "json", "") and type(proto).__name__ == "BidiComponent":  # ui.live_chart's charts
                figures.extend(chart_figures(json.loads(proto.json)))
            for field, value in proto.ListFields():
                if field.name in MARKDOWN:
                    markdown.extend([value] if isinstance(value, str) else [v for v in value if isinstance(v, str)])
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return markdown, figures


@pytest.mark.parametrize("page", list(PAGES))
def test_a_hostile_link_plants_no_link_image_formula_or_tag_on_any_page(page):
    names = sorted(SHARED.get(page, {})) + ["zz", "yy"]

    @settings(max_examples=EXAMPLES, phases=GENERATE)
    @given(values=st.lists(HOSTILE, min_size=len(names), max_size=len(names)))
    def run(values):
        at = AppTest.from_file(APP, default_timeout=90)
        at.switch_page(page)
        for name, value in zip(names, values, strict=True):
            at.query_params[name] = value
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        markdown, figures = texts(at)
        assert markdown
        for text in markdown:
            assert not problems(text), (text, problems(text))
        for spec in figures:
            assert not figure_problems(spec), figure_problems(spec)

    run()


def test_the_issue_s_links_and_a_group_named_with_a_link_are_shown_as_text(open_page):
    for page, params in (
        (
            "lessons/overview/overview.py",
            {"zz": f"[CLICK ME](https://{HOST}/phish)", "yy": f"![x](http://{HOST}/t.png)"},
        ),
        (
            "lessons/word_embeddings/word_embeddings.py",
            {"we_words": f"cat, [CLICK](https://{HOST}), ![x](http://{HOST}/t.png)"},
        ),
        ("lessons/rotary/rotary.py", {"rp_a": f"[CLICK](https://{HOST}):1"}),
    ):
        at = AppTest.from_file(APP, default_timeout=90)
        at.switch_page(page)
        at.query_params.update(params)
        at.run()
        markdown, _ = texts(at)
        said = [text for text in markdown if HOST in text]
        assert said, page  # the value is named
        assert not [problems(text) for text in said if problems(text)], said
    at = AppTest.from_file(APP, default_timeout=90)
    at.switch_page("lessons/embedding_space/embedding_space.py")
    at.query_params["es_own_groups"] = f'<a href="//{HOST}/x">pets</a>: cat, dog\n<b>x</b>: red'
    at.run()
    specs = [spec for spec in texts(at)[1] if "pets" in spec]  # the cloud, and its labels' overlay
    names = [trace.get("name") for spec in specs for trace in json.loads(spec)["data"]]
    assert f'&lt;a href="//{HOST}/x"&gt;pets&lt;/a&gt;' in names and "&lt;b&gt;x&lt;/b&gt;" in names
    assert not [figure_problems(spec) for spec in specs if figure_problems(spec)]
