"""The layout check itself (labtools/layout.js) on pages built here, without a server: it sees what a learner sees
(issue 51): a colour bar over another panel, a legend over a chart's labels, a chart's or a table's toolbar over a
text, a label cut with an ellipsis, a formula wrapped inside an expression. And the figures that did so on the
lab's pages on a phone (Sentence vectors' cosine matrices, Text to tokens' price of a table) pass it, at the widths
of a phone, a column and a laptop.

The pages mimic Streamlit's main column (the data-testid names layout.js reads) and draw with the plotly.js that the
plotly package ships (the same major version as Streamlit's)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import numpy as np
import plotly
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from plotly.subplots import make_subplots

from figures.sentences import similarity_figure
from figures.tokens import price_figure
from labtools.browser import LAYOUT, layout_problems, new_context
from ui.i18n import catalog

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
PHONE = 358  # px: a phone's main column (390 px screen)


@pytest.fixture(scope="module")
def bare(screens):
    """A page of its own, plotly.js loaded into it once; each test writes its column into it."""
    context = new_context(screens, viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_content("<html><body style='margin:0;font-family:sans-serif'></body></html>")
    page.add_script_tag(path=str(PLOTLY_JS))
    yield page
    context.close()


def column(page, width: int, html: str) -> None:
    """Streamlit's main column, `width` px wide, holding `html` (element containers)."""
    page.set_viewport_size({"width": width + 32, "height": 1000})
    page.evaluate(
        """([width, html]) => { document.body.innerHTML = `<div data-testid="stMain"><div
        data-testid="stMainBlockContainer" style="width:${width}px;padding:0 16px">${html}</div></div>`; }""",
        [width, html],
    )


def charts(page, figures: list[go.Figure], width: int = PHONE) -> list[str]:
    """The layout check's problems on a column of `width` px holding `figures`, each in an element container as
    st.plotly_chart draws it (the modebar laid out, shown on hover)."""
    box = '<div data-testid="stElementContainer"><div data-testid="stPlotlyChart"><div class="js-plotly-plot"></div></div></div>'
    column(page, width, box * len(figures))
    page.evaluate(
        """figs => Promise.all([...document.querySelectorAll('.js-plotly-plot')].map((gd, i) =>
        Plotly.newPlot(gd, figs[i].data, figs[i].layout, {displaylogo: false})))""",
        [json.loads(pio.to_json(fig)) for fig in figures],
    )
    return settled(page)


def settled(page, timeout: float = 3_000) -> list[str]:
    """The layout check's problems once it holds, or after `timeout` ms: plotly may draw a chart again after its
    first drawing (its margins grown to fit a legend), as assert_layout waits for."""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(f"({LAYOUT})().length === 0", timeout=timeout, polling=100)
    return layout_problems(page)


def test_a_colour_bar_over_the_next_panel_is_seen(bare):
    """As Sentence vectors' matrices were drawn on a phone: the left panel's colour bar beside it, over the right."""
    fig = make_subplots(1, 2, horizontal_spacing=0.14)
    for c in (1, 2):
        fig.add_trace(go.Heatmap(z=np.eye(6), coloraxis=f"coloraxis{c if c > 1 else ''}"), 1, c)
    fig.update_layout(
        coloraxis=dict(colorbar=dict(x=0.49, len=0.8, thickness=12)),
        coloraxis2=dict(colorbar=dict(x=0.99, len=0.8, thickness=12)),
        height=420,
    )
    assert any("colour bar" in p and "plot area" in p for p in charts(bare, [fig]))


def test_a_legend_over_slanted_tick_labels_is_seen(bare):
    """As Text to tokens' price was drawn on a phone: "+ its own output layer" slanted into the legend."""
    bars = ["MiniLM", "+ its own output layer", "+ output tied to the table"]
    fig = go.Figure(
        [go.Bar(x=bars, y=[1, 2, 1], name=f"part {i} of the parameters, a long name") for i in range(3)],
        layout=dict(barmode="stack", legend=dict(orientation="h", y=-0.2), height=360, margin=dict(b=10)),
    )
    assert any("its legend" in p and "is drawn over its text" in p for p in charts(bare, [fig]))


def test_the_toolbar_over_a_long_title_is_seen(bare):
    """As Streamlit's theme and figures.titles set a title: from the left, at the chart's top."""
    title = dict(text="MiniLM's parameters, read from its weights", x=0, xanchor="left", yref="container", y=1)
    fig = go.Figure(go.Scatter(y=[1, 2]), layout=dict(title={**title, "yanchor": "top", "pad": dict(t=8)}))
    assert any("its toolbar" in p for p in charts(bare, [fig]))


def test_a_tables_toolbar_over_the_text_above_is_seen(bare):
    """Streamlit's element toolbar sits above its table's top right corner, over the line above ("最近的合并：")."""
    column(
        bare,
        PHONE,
        '<div data-testid="stElementContainer"><div data-testid="stMarkdown"><p>The vocabulary now: 306 tokens. The '
        "last merges:</p></div></div>"
        '<div data-testid="stElementContainer"><div data-testid="stFullScreenFrame"><div data-testid="stDataFrame" '
        'style="position:relative;height:150px"><div data-testid="stElementToolbar" style="position:absolute;'
        'top:-44px;right:0;width:112px;height:44px"></div></div></div></div>',
    )
    assert any(p.startswith("the toolbar of") and "The vocabulary now" in p for p in layout_problems(bare))


def test_a_label_cut_with_an_ellipsis_is_seen(bare):
    """Presenter mode's "Check" read "C..."."""
    style = "width:27px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap"
    column(
        bare,
        PHONE,
        f'<div data-testid="stElementContainer"><div data-testid="stButton"><button><div style="{style}">Check'
        "</div></button></div></div>",
    )
    assert any("cut with an ellipsis" in p and '"Check"' in p for p in layout_problems(bare))


SIGN = {"mbin": "+", "mrel": "="}


def katex(pieces: list[tuple[str, str]], width: int) -> str:
    """A display formula laid out as KaTeX lays one out: pieces (.base) that end at an operator or a relation
    (its class: mbin, mrel, mord, or "mspace allowbreak": \\allowbreak), wrapping between them as ui/theme.css lets a display formula wrap."""
    bases = "".join(
        f'<span class="base" style="display:inline-block;white-space:nowrap"><span class="strut"></span>'
        f'<span class="mord">{text}</span><span class="{kind}">{SIGN.get(kind, "")}</span></span>'
        for text, kind in pieces
    )
    return (
        f'<div data-testid="stElementContainer"><div class="katex-display" style="width:{width}px"><span '
        f'class="katex"><span class="katex-html" style="white-space:normal">{bases}</span></span></div></div>'
    )


def test_a_formula_wrapped_after_an_operator_is_seen_and_after_a_relation_or_a_break_allowed_is_not(bare):
    long = "x" * 30
    column(bare, PHONE, katex([(long, "mbin"), (long, "mord")], 300))
    assert any("wrapped inside an expression" in p for p in layout_problems(bare))
    column(bare, PHONE, katex([(long, "mrel"), (long, "mord")], 300))
    assert not any("formula" in p for p in layout_problems(bare))
    column(bare, PHONE, katex([(long, "mspace allowbreak"), (long, "mord")], 300))  # where the formula allows it
    assert not any("formula" in p for p in layout_problems(bare))
    column(bare, PHONE, katex([(long, "mbin"), (long, "mord")], 1000))  # on one line
    assert not any("formula" in p for p in layout_problems(bare))


@pytest.mark.parametrize("width", [PHONE, 700, 1100])
def test_the_sentence_matrices_colour_bars_cover_neither_panel(bare, width):
    """Issue 51: on a phone MiniLM's colour bar was drawn over the GloVe heatmap's first column and its row labels."""
    matrices = {"MiniLM as trained": 0.5 + 0.5 * np.eye(6), "GloVe mean": 0.9 + 0.1 * np.eye(6)}
    sentences = [f"sentence {i}" for i in range(6)]
    fig = similarity_figure(matrices, sentences, "Cosine of every pair")
    assert not [p for p in charts(bare, [fig], width) if "colour bar" in p or "legend" in p]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [PHONE, 700, 1100])
def test_the_price_of_a_tables_bar_names_stay_out_of_its_legend(bare, width, lang):
    """Issue 51: on a phone the slanted "+ its own output layer" ran into the legend. The page's bars and parts."""
    t = catalog(lang)
    part = {t["tt.part_table"]: 11_720_448, t["tt.part_rest"]: 11_000_000}
    bars = {
        t["tt.bar_minilm"]: part,
        t["tt.bar_untied"]: {**part, t["tt.part_output"]: 11_720_448},
        t["tt.bar_tied"]: {**part, t["tt.part_output"]: 0},
    }
    fig = price_figure(bars, t["tt.price_title"], t["tt.ax_parameters"])
    assert not [p for p in charts(bare, [fig], width) if "legend" in p or "tick labels" in p]


# --- Presenter mode: chart and table text as large as the body text (issue 51) -----------------------------------
PRESENTER_CSS = Path(__file__).resolve().parents[2] / "ui" / "presenter.css"
BODY = '<div data-testid="stElementContainer"><div data-testid="stMarkdownContainer"><p>Body text.</p></div></div>'


@pytest.fixture
def presenter(bare):
    """The bare page with ui/presenter.css applied (the column zoomed, its charts' frames zoomed back), taken off
    afterwards."""
    bare.add_style_tag(content=PRESENTER_CSS.read_text())
    yield bare
    bare.evaluate("document.querySelectorAll('head style').forEach((s) => s.remove())")


def presenter_charts(page, figures: list[go.Figure], width: int = 1024) -> list[str]:
    """The layout check's problems on a presenter column of a 1024 px screen holding body text and `figures`, each
    in st.plotly_chart's frame (which presenter.css zooms back to 1)."""
    box = (
        '<div data-testid="stElementContainer"><div data-testid="stPlotlyChart"><div data-testid="stFullScreenFrame">'
        '<div class="js-plotly-plot"></div></div></div></div>'
    )
    presenter_column(page, BODY + box * len(figures), width)
    page.evaluate(
        """figs => Promise.all([...document.querySelectorAll('.js-plotly-plot')].map((gd, i) =>
        Plotly.newPlot(gd, figs[i].data, figs[i].layout, {displaylogo: false})))""",
        [json.loads(pio.to_json(fig)) for fig in figures],
    )
    return settled(page)


def presenter_column(page, html: str, width: int = 1024) -> None:
    """Streamlit's main column on a screen `width` px wide as presenter.css lays it out (zoomed, its own padding)."""
    page.set_viewport_size({"width": width, "height": 768})
    page.evaluate(
        """html => { document.body.innerHTML = `<div data-testid="stMain"><div
        data-testid="stMainBlockContainer">${html}</div></div>`; }""",
        html,
    )


def a_chart_of_every_text() -> go.Figure:
    """Ticks, axis titles, a title, a legend, a colour bar, a note and cell texts, at plotly's and the theme's sizes."""
    fig = make_subplots(1, 2, subplot_titles=["left panel", "right panel"])
    fig.add_trace(go.Bar(x=["a", "b"], y=[1, 2], name="bars", text=["1", "2"], textfont=dict(size=12)), 1, 1)
    fig.add_trace(go.Heatmap(z=np.eye(3), colorbar=dict(title=dict(text="cos"))), 1, 2)
    fig.update_layout(
        title=dict(text="A chart", font=dict(size=16)), height=480, legend=dict(orientation="h", yanchor="top", y=-0.25)
    )
    fig.update_xaxes(title_text="x")
    fig.update_yaxes(title_text="y")
    return fig


def small_text(problems: list[str]) -> list[str]:
    return [p for p in problems if "beside body text" in p]


def test_presenter_chart_text_under_the_body_texts_size_is_seen_and_the_presenter_figure_passes(presenter):
    """Issue 51: chart text (15.6 px: the laptop's 12 px scaled by the zoom) beside body text of 20.8 px."""
    from ui.presenter import ZOOM, presenter_figure

    laptop = a_chart_of_every_text()
    scaled_only = go.Figure(laptop)  # as presenter mode scaled it before: 1.3 times plotly's 12 px
    scaled_only.update_layout(font_size=12 * ZOOM, title_font_size=16 * ZOOM)
    scaled_only.update_annotations(font_size=16 * ZOOM)
    scaled_only.update_xaxes(tickfont_size=12 * ZOOM)
    scaled_only.update_yaxes(tickfont_size=12 * ZOOM)
    assert small_text(presenter_charts(presenter, [laptop]))
    scaled_only.update_traces(textfont_size=12 * ZOOM, selector=dict(type="bar"))
    problems = presenter_charts(presenter, [scaled_only])
    assert any("15.6 px, beside body text of 20.8 px" in p for p in problems), problems
    assert not presenter_charts(presenter, [presenter_figure(laptop)])


@pytest.mark.parametrize("where", ["layout", "trace"])
def test_a_presenter_hover_label_under_the_body_texts_size_is_seen(presenter, where):
    """The hover label's size plotly will draw (its layout's, each trace's), read from the chart before any hover."""
    from ui.presenter import presenter_figure

    fig = presenter_figure(a_chart_of_every_text())
    if where == "layout":
        fig.update_layout(hoverlabel_font_size=13)
    else:
        fig.data[0].hoverlabel.font.size = 13
    assert any("hover label is 13.0 px" in p for p in small_text(presenter_charts(presenter, [fig])))


def test_a_presenter_hover_label_is_drawn_at_the_body_texts_size(presenter):
    """A point hovered: the label plotly draws (.hovertext) is as large as the body text."""
    from ui.presenter import presenter_figure

    points = go.Scatter(x=[0, 1, 2], y=[0, 1, 0], mode="markers", name="points")
    fig = presenter_figure(go.Figure(points, layout=dict(height=400)))
    assert not small_text(presenter_charts(presenter, [fig]))
    presenter.evaluate("Plotly.Fx.hover(document.querySelector('.js-plotly-plot'), [{curveNumber: 0, pointNumber: 1}])")
    sizes = presenter.evaluate(
        """() => [...document.querySelectorAll('.hovertext text')].map((t) =>
        parseFloat(getComputedStyle(t).fontSize) * (t.currentCSSZoom || 1))"""
    )
    body = presenter.evaluate(
        "(p => parseFloat(getComputedStyle(p).fontSize) * p.currentCSSZoom)(document.querySelector('p'))"
    )
    assert sizes and min(sizes) >= body - 0.5, (sizes, body)


def table_html(cell_style: str = "") -> str:
    return (
        '<div data-testid="stElementContainer"><div data-testid="stTable"><table><thead><tr><th>word</th>'
        f'<th>cosine</th></tr></thead><tbody><tr><td style="{cell_style}">king</td><td>0.71</td></tr></tbody>'
        "</table></div></div>"
    )


def test_presenter_table_cells_under_the_body_texts_size_and_a_canvas_table_are_seen(presenter):
    """Streamlit sets a st.table's cells at 14 px (presenter.css sets them at the body's size); st.dataframe draws
    its cells on a canvas, whose text no zoom reaches (ui.tables.table draws none in presenter mode)."""
    presenter_column(presenter, BODY + table_html())
    assert not small_text(layout_problems(presenter))
    presenter_column(presenter, BODY + table_html("font-size:14px"))
    assert any('table cell "king"' in p and "18.2 px" in p for p in small_text(layout_problems(presenter)))
    grid = '<div data-testid="stElementContainer"><div data-testid="stDataFrame" style="height:150px"></div></div>'
    presenter_column(presenter, BODY + grid)
    assert any("on a canvas" in p for p in small_text(layout_problems(presenter)))
    presenter.evaluate("document.querySelectorAll('head style').forEach((s) => s.remove())")
    presenter_column(presenter, BODY + grid + table_html("font-size:14px"))
    assert not small_text(layout_problems(presenter))  # on a laptop (no zoom) the check does not apply


def test_on_a_laptop_chart_text_under_three_quarters_of_the_body_text_is_seen(bare):
    """Off a projector the rule is a laptop's own: plotly's 12 px beside 16 px body text passes, 10 px does not."""
    box = '<div data-testid="stElementContainer"><div data-testid="stPlotlyChart"><div class="js-plotly-plot"></div></div></div>'

    def problems(fig: go.Figure) -> list[str]:
        column(bare, 1100, BODY + box)
        bare.evaluate(
            "fig => Plotly.newPlot(document.querySelector('.js-plotly-plot'), fig.data, fig.layout)",
            json.loads(pio.to_json(fig)),
        )
        return small_text(settled(bare))

    laptop = a_chart_of_every_text()
    assert not problems(laptop)
    laptop.update_xaxes(tickfont_size=10)
    assert any("10.0 px, beside body text of 16.0 px: under 11.5 px" in p for p in problems(laptop))
