"""Presenter mode: everything in the main column a third larger, charts included, and the exercises' answers
hidden, for a projector (the sidebar's toggle, ?present=true)."""

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
# The px Streamlit's theme sets a st.plotly_chart figure's texts in: ticks, legend, hover (its "twoSm"), axis titles
# ("sm"), the title ("md"); plotly's own default for a panel title (an annotation)
THEME_PX = dict(small=12, axis_title=14, title=16)


def presented(figure: go.Figure) -> go.Figure:
    """The figure st.plotly_chart is given: in presenter mode a copy whose texts (ticks, legend, hover, titles, panel
    titles, colour bars, cell texts) are ZOOM times their size, as the body text is (presenter.css zooms the column
    but not the charts, where plotly maps the mouse wrongly under zoom); else the figure itself.
    ui/live_chart.js scales ui.live_chart's charts in the browser alike."""
    if not presenting():
        return figure
    fig = go.Figure(figure)

    def size(px: float | None, default: float) -> float:
        return round((px or default) * ZOOM, 1)

    small = THEME_PX["small"]
    layout = fig.layout
    fig.update_layout(
        font_size=size(layout.font.size, small),
        legend_font_size=size(layout.legend.font.size, small),
        legend_title_font_size=size(layout.legend.title.font.size, small),
        hoverlabel_font_size=size(layout.hoverlabel.font.size, small),
        title_font_size=size(layout.title.font.size, THEME_PX["title"]),
    )
    for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
        axis.tickfont.size = size(axis.tickfont.size, small)
        axis.title.font.size = size(axis.title.font.size, THEME_PX["axis_title"])
    for note in layout.annotations:
        note.font.size = size(note.font.size, 16)  # plotly's subplot titles are 16 px
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
    return fig
