"""A live class's figures: the room's answers to one exercise (ui.class_answers, the leader's presenter view)."""

from __future__ import annotations

import plotly.graph_objects as go

RIGHT, WRONG = "#2e7d32", "#9e9e9e"  # a right answer's bar, any other's


def answers_figure(answers: list[str], counts: list[int], right: list[bool], title: str, axis: str) -> go.Figure:
    """A horizontal bar per answer given (most given on top), its length the learners who gave it, right answers
    in green.

    Args:
        answers: the answers as shown, one per bar; counts: how many learners gave each; right: whether each is right.
        title: the chart's title; axis: the count axis's title.
    """
    if not len(answers) == len(counts) == len(right):
        raise ValueError("answers, counts and right must be as long as each other")
    order = sorted(range(len(answers)), key=lambda i: counts[i])  # plotly draws the first bar at the bottom
    figure = go.Figure(
        go.Bar(
            x=[counts[i] for i in order],
            y=[answers[i] for i in order],
            orientation="h",
            marker_color=[RIGHT if right[i] else WRONG for i in order],
            text=[counts[i] for i in order],
            textposition="auto",
            hovertemplate="%{y}: %{x}<extra></extra>",
        )
    )
    figure.update_layout(
        title=title,
        xaxis=dict(title=axis, rangemode="tozero", dtick=1 if max(counts, default=0) <= 10 else None),
        yaxis=dict(type="category", automargin=True),
        height=max(160, 60 + 28 * len(answers)),
        margin=dict(l=10, r=10, t=40, b=40),
        showlegend=False,
    )
    return figure
