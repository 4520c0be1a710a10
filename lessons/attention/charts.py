"""The attention page's figures, each a function of what it shows: the configuration, the vectors, the learned tables
and the device (the view they are read from, lessons.attention.views), and the chosen tokens. Each returns the
figure's text (ui.live_chart.figure_json), built once per server for those inputs and the language it reads
(ui.cache), with none of them left out of the key; the page hands the text to ui.live_chart.chart."""

from __future__ import annotations

import torch

from core.attention.head import AttentionConfig
from figures.attention import distance_figure, heatmaps_figure, terms_figure
from lessons.attention.views import TRAINED, curves, view
from ui.cache import cached
from ui.i18n import figure_text, t
from ui.live_chart import figure_json

Tables = dict[str, torch.Tensor]


def table_name(name: str) -> str:
    """A learned table's name as shown: MiniLM's is a name; the one trained on the other page is said in words."""
    return t("at.name_trained") if name == TRAINED else name


def scheme_name(label: str) -> str:
    """A scheme's or a term's label in core ("rope", "learned: MiniLM", "content-position") in the reader's words."""
    kind, _, table = label.partition(": ")
    if table:
        return t("at.name_learned_table", table=table_name(table))
    return t(f"at.name_{kind.replace('-', '_')}")


def named(values: dict) -> dict:
    """A figure's panels or lines, keyed by core's labels, keyed by what the reader reads instead."""
    return {scheme_name(label): value for label, value in values.items()}


def _axes() -> tuple[str, str]:
    return t("at.ax_key"), t("at.ax_query")


@cached(max_entries=64)
def logits_chart(cfg: AttentionConfig, wv, tables: Tables, where: str) -> str:
    """Every scheme's logits, one heatmap each."""
    result = view(cfg, wv, tables, where)
    return figure_json(
        heatmaps_figure(named(result.matrices("logits")), result.head.tokens, t("at.logits_title"), axis_titles=_axes())
    )


@cached(max_entries=64)
def weights_chart(cfg: AttentionConfig, wv, tables: Tables, where: str) -> str:
    """Every scheme's attention weights (after softmax), on one colour scale."""
    result = view(cfg, wv, tables, where)
    return figure_json(
        heatmaps_figure(
            named(result.matrices("weights")),
            result.head.tokens,
            t("at.weights_title"),
            shared=True,
            colorscale="Blues",
            zmid=None,
            axis_titles=_axes(),
        )
    )


@cached(max_entries=64)
def terms_chart(cfg: AttentionConfig, wv, tables: Tables, where: str, label: str, title: str) -> str:
    """The four terms of scheme `label`'s logits (positions added to the input) and their sum."""
    result = view(cfg, wv, tables, where)
    logits = result.result(label).logits.cpu().numpy()
    return figure_json(
        terms_figure(
            named(result.terms(label)), logits, result.head.tokens, title, t("at.terms_sum"), axis_titles=_axes()
        )
    )


@cached(max_entries=64)
def distance_chart(
    cfg: AttentionConfig, wv, tables: Tables, where: str, query: int, key: int, pos: int, far: int
) -> str:
    """Every scheme's logit of token `query` at position `pos` against token `key` as it moves `far` away."""
    tokens = view(cfg, wv, tables, where).head.tokens
    distances, lines = curves(cfg, wv, tables, where, query, key, pos, far)
    title = figure_text("at.distance_title", query=tokens[query], other=tokens[key], pos=pos)
    return figure_json(
        distance_figure(distances, named(lines), title, t("at.ax_distance"), t("at.ax_logit"), revision="at")
    )
