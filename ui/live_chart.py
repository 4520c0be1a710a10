"""The chart component behind the PE page's window charts: a window on a table that the browser moves itself.

In Streamlit 1.67 st.plotly_chart's element id is a hash of its figure, so a new figure remounts the chart
and plotly draws it from scratch twice (before and after measuring the column's width), and its sliders are
Streamlit widgets, whose every step is a rerun. streamlit/streamlit#16052 would update charts in place. Until
then this component keeps one plotly <div> across reruns, holds a block of the table in the browser and moves
the window inside it as the slider is dragged (Plotly.react, with the plotly.js Streamlit already ships,
st.plotly_chart's modebar, a full-screen button in it, and the theme's colours, light or dark).
benchmarks/rerun.py measures the difference; the PE page's three window charts use it. Its plain mode (chart: a
figure, no window) keeps the same one <div> for a chart whose every new figure comes from the server: the attention
page's heatmaps and distance plot (benchmarks/attention_rerun.py). Every other chart is st.plotly_chart.

The browser works out no window itself: the page sends it, for every choice of spans, the rows and columns
shown and the last first index (lessons.positional_encoding.tables.extents), and live_chart.js only looks them up and
cuts the window out of the block it holds. Every function here takes data (a figure or its text, a window, a block
of values): none calls back into a page's code.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from ui.cache import cached

# The chart chunk of the installed Streamlit frontend: importing it in the browser loads Streamlit's plotly.js.
_FRONTEND_JS = Path(st.__file__).parent / "static" / "static" / "js"
try:
    PLOTLY_CHUNK = next(_FRONTEND_JS.glob("PlotlyChart.*.js"))
except StopIteration:
    raise RuntimeError(
        f"No PlotlyChart.*.js in {_FRONTEND_JS}: the live charts load the plotly.js of Streamlit's frontend, which "
        "this Streamlit does not ship (requirements.txt pins the one that does)"
    ) from None
TEMPLATE = pio.templates["plotly_white"].to_plotly_json()  # the page's font and colours are added in the browser
# A table of at most this many cells goes to the browser whole (256 kB of float32, 350 kB of base64), so that
# its window moves without a rerun; a larger one is sent a window at a time.
BLOCK_CELLS = 65_536

_component = st.components.v2.component(
    "live_chart",
    js=Path(__file__).with_name("live_chart.js").read_text(),
    css=Path(__file__).with_name("live_chart.css").read_text(),
    isolate_styles=False,
)


def figure_json(figure: go.Figure) -> str:
    """The text the component is sent for `figure` (its template added, which the browser does not have)."""
    spec = figure.to_plotly_json()
    spec["layout"]["template"] = TEMPLATE
    return pio.to_json(spec, validate=False)


def block_bounds(table: tuple[int, int], shown: tuple[int, int, int, int], budget: int = BLOCK_CELLS):
    """The part of the table the browser is sent: all of it when it has at most `budget` cells, else the window."""
    return (0, table[0], 0, table[1]) if table[0] * table[1] <= budget else shown


def draw(
    figure: go.Figure | str,
    window: dict,
    block: tuple[tuple[int, int], np.ndarray],
    key: str,
    keys: tuple[str, ...],
) -> None:
    """Send the chart without its values (a figure, or its figure_json text), the window (what
    lessons.positional_encoding.tables.place sends) and a block of the table, whose first cell is the table's (row,
    column) `block[0]`. A window the browser moved to goes into the session under `keys` (rows shown, first row[,
    columns shown, first column]), checked by asked_window."""
    origin, values = block
    values = np.ascontiguousarray(values, dtype="<f4")
    window = dict(
        window,
        block=dict(origin=list(origin), shape=list(values.shape), bdata=base64.b64encode(values.data).decode()),
    )
    text = figure if isinstance(figure, str) else figure_json(figure)
    data = dict(figure=text, plotly_chunk=PLOTLY_CHUNK.name, window=window)
    spans = tuple(tuple(s) for s in window["spans"])
    _component(data=data, key=key, on_window_change=functools.partial(_keep_window, key, tuple(keys), spans))


def _keep_window(key: str, keys: tuple[str, ...], spans: tuple[tuple[int, ...], ...]) -> None:
    """The window the browser moved to, into the session (the page then writes it into the link)."""
    if values := asked_window(st.session_state[key].get("window"), keys, spans):
        st.session_state.update(values)


def chart(figure: go.Figure | str, key: str) -> None:
    """A figure (or its figure_json text, kept by a page's cached function) without a window: the same one plotly
    <div>, kept across reruns, so that a new figure (a setting moved) is drawn into it by Plotly.react where
    st.plotly_chart would remount its element and draw it anew."""
    text = figure if isinstance(figure, str) else figure_json(figure)
    _component(data=dict(figure=text, plotly_chunk=PLOTLY_CHUNK.name), key=key)


# The figures' texts, each built and serialised once per server for its call and the language (ui.cache: keyed by the
# builder, every input given to it and the language its code reads, emptied by Streamlit's "Clear cache").
Build = Callable[[], go.Figure]


def _figures_call(build: Callable) -> Callable:
    """`build` itself, when it is a call of a figure builder of figures/: a lesson's own function (in a page script,
    whose module is `__main__`, or a lesson's module) or any other is refused, so that a page hands its chart data
    and never its code."""
    func = build.func if isinstance(build, functools.partial) else build
    where = getattr(func, "__module__", None) or ""
    if where.partition(".")[0] != "figures":
        raise TypeError(
            f"{where}.{getattr(func, '__qualname__', func)} is not a figure builder of figures/: a chart's call is "
            "functools.partial(builder, *inputs), the page's data as the inputs"
        )
    return build


@cached(max_entries=256)
def _figure_text(build: Build) -> str:
    return figure_json(build())


@cached(max_entries=256)
def _traces_text(build: Build) -> str:
    return pio.json.to_json_plotly(build().to_plotly_json()["data"])


# A figure of more values than this (a long sentence's heatmaps: the input layer's six stages of 512 tokens by 512
# dimensions are 8 MB of text) is built and sent on each run, not kept: the texts kept are bounded by their number,
# so each must be small.
KEPT_CELLS = 4 * 64 * 64


def cached_chart(key: str, build: Build, overlay: Build | None = None, *, cells: int = 0) -> None:
    """chart() for the figure `build()` makes: `build` is the figure as a call, `functools.partial(builder, *inputs)`
    of a builder of figures/ (a lesson's own function is refused: the page hands data), so that everything the figure
    shows is an input (ui.cache refuses a builder that closes over a run's values). It is built and serialised once per
    server for those inputs and the language, and its text is shared by every learner: building a go.Figure and its
    JSON was most of a move's server CPU on the pages that redraw several figures (benchmarks/cpu_per_move.py).

    overlay: a figure's call whose traces are drawn on top of this one's (its layout is not used), cached the same
    way: a small highlight that changes while the large figure under it stays the same text, which the browser
    neither parses nor lays out again.
    cells: the figure's values (a heatmap's cells); past KEPT_CELLS it is built and sent each time, not kept.
    """
    figure = _figures_call(build)
    text = _figure_text(figure) if cells <= KEPT_CELLS else figure_json(figure())
    data = dict(figure=text, plotly_chunk=PLOTLY_CHUNK.name)
    if overlay is not None:
        data["overlay"] = _traces_text(_figures_call(overlay))
    _component(data=data, key=key)


def charts(figures: list[go.Figure], key: str) -> None:
    """chart() for several figures, one under another in one component: one mount a run instead of one per figure
    (a component's mount was a large part of a move's server CPU where a section draws several charts)."""
    _component(data=dict(figures=[figure_json(f) for f in figures], plotly_chunk=PLOTLY_CHUNK.name), key=key)


@cached(max_entries=128)
def _figure_texts(build: Callable[[], list[go.Figure]]) -> tuple[str, ...]:
    return tuple(figure_json(figure) for figure in build())


def cached_charts(key: str, build: Callable[[], list[go.Figure]], *, cells: int = 0) -> None:
    """charts() for the figures `build()` makes, a call of its inputs, as cached_chart() keeps one figure's text
    (past KEPT_CELLS `cells`, their values in all, built and sent each time)."""
    figures = _figures_call(build)
    texts = _figure_texts(figures) if cells <= KEPT_CELLS else [figure_json(f) for f in figures()]
    _component(data=dict(figures=list(texts), plotly_chunk=PLOTLY_CHUNK.name), key=key)


def asked_window(asked, keys: tuple[str, ...], spans: tuple[tuple[int, ...], ...]) -> dict[str, int] | None:
    """The keys' values for the window the browser sent ({"start": [row, col], "span": [rows, cols]}), or None
    when it is malformed or its spans are not among the choices.

    keys: rows shown, first row[, columns shown, first column] (lessons.positional_encoding.settings.WindowConfig).
    A first index past the table's end is the page's to move back (ui.settings.Setting.keep_inside).
    """
    parts = [asked.get("start"), asked.get("span")] if isinstance(asked, dict) else []
    values = [v for part in parts if isinstance(part, list) and len(part) == 2 for v in part]
    if len(values) != 4 or not all(type(v) is int for v in values):
        return None
    r0, c0, rows, cols = values
    if r0 < 0 or rows not in spans[0]:
        return None
    if len(keys) == 2:  # a window over the rows alone
        return dict(zip(keys, (rows, r0), strict=True))
    if c0 < 0 or cols not in spans[1]:
        return None
    return dict(zip(keys, (rows, r0, cols, c0), strict=True))
