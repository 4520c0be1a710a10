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
