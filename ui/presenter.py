"""Presenter mode: everything in the main column a third larger, chart and table text as large as the body text,
and the exercises' answers hidden, for a projector (the sidebar's toggle, ?present=true)."""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

PRESENT_KEY = "present"
CSS = Path(__file__).with_name("presenter.css")  # st.html puts a .css file's text in a <style>


def presenting() -> bool:
    """Whether presenter mode is on."""
    return bool(st.session_state.get(PRESENT_KEY, False))


ZOOM = 1.3  # presenter.css's zoom of the main column, whose charts it undoes
BODY_PX = 16  # px: Streamlit's body text (theme.baseFontSize, which .streamlit/config.toml leaves at its default)
# The px Streamlit's theme sets a st.plotly_chart figure's texts in: ticks, legend (its "twoSm"), axis titles ("sm"),
# the title ("md"); plotly's own hover label and subplot title (an annotation) sizes
THEME_PX = dict(small=12, hover=13, axis_title=14, title=16, panel_title=16)


def presented(figure: go.Figure) -> go.Figure:
    """The figure st.plotly_chart is given: in presenter mode presenter_figure(figure), else the figure itself."""
    return presenter_figure(figure) if presenting() else figure


def presenter_figure(figure: go.Figure) -> go.Figure:
    """A copy of `figure` whose texts (ticks, legend, hover, titles, panel titles, colour bars, cell texts) are at
    least as large as the body text beside it in presenter mode: ZOOM times the larger of their own size and BODY_PX
    (presenter.css zooms the column but not the charts, where plotly maps the mouse wrongly under zoom).
    labtools/layout.js checks it on every page; ui/live_chart.js scales ui.live_chart's charts in the browser alike."""
    fig = go.Figure(figure)

    def size(px: float | None, default: float) -> float:
        return round(max(px or default, BODY_PX) * ZOOM, 1)

    small = THEME_PX["small"]
    layout = fig.layout
    fig.update_layout(
        font_size=size(layout.font.size, small),
        legend_font_size=size(layout.legend.font.size, small),
        legend_title_font_size=size(layout.legend.title.font.size, small),
        hoverlabel_font_size=size(layout.hoverlabel.font.size, THEME_PX["hover"]),
        title_font_size=size(layout.title.font.size, THEME_PX["title"]),
    )
    for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
        axis.tickfont.size = size(axis.tickfont.size, small)
        axis.title.font.size = size(axis.title.font.size, THEME_PX["axis_title"])
    for note in layout.annotations:
        note.font.size = size(note.font.size, THEME_PX["panel_title"])
    for name in [k for k in layout.to_plotly_json() if k.startswith("coloraxis")]:
        bar = layout[name].colorbar
        bar.tickfont.size = size(bar.tickfont.size, small)
        bar.title.font.size = size(bar.title.font.size, small)
    for trace in fig.data:
        if "colorbar" in trace:
            trace.colorbar.tickfont.size = size(trace.colorbar.tickfont.size, small)
            trace.colorbar.title.font.size = size(trace.colorbar.title.font.size, small)
        if "textfont" in trace and trace.textfont.size:
            trace.textfont.size = size(trace.textfont.size, small)
        if "hoverlabel" in trace and trace.hoverlabel.font.size:
            trace.hoverlabel.font.size = size(trace.hoverlabel.font.size, THEME_PX["hover"])
    return fig
