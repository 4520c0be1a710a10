"""The "Inside a real Transformer" page's notices, what its figures show in words (core.claims), and its figures
kept once per server.

The figures a head move draws are kept (`draw`, `kept_figure`): building a plotly figure (its validation) was most of a
move's server CPU (benchmarks/minilm.py), and a class moves through the same few heads.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go

from core import claims
from core.minilm import HEADS, LAYERS
from core.probes import STAGES
from ui.cache import cached
from ui.i18n import Message, t

# --- Their notices: what the figures show, in words (core.claims) --------------------------------------------------


def heads_claim(listed: list[tuple[int, int, int, float]], source: str) -> str:
    """The grid's named heads in words: how many, in which layers, and the strongest (listed strongest first)."""
    if not listed:
        return t("tf.heads_none", source=source)
    layer, head, offset, weight = listed[0]
    numbers = sorted({la + 1 for la, *_ in listed})
    layers = t("tf.heads_layers", n=len(numbers), layers=t("tf.sep").join(map(str, numbers)))
    side = t("tf.heads_prev" if offset < 0 else "tf.heads_next")
    return t(
        "tf.heads_named", n=len(listed), source=source, layers=layers, layer=layer + 1, head=head + 1,
        weight=f"{weight:.0%}", side=side,
    )  # fmt: skip


def moved_claim(moved: dict[str, np.ndarray], labels: dict[str, str]) -> str:
    """The divergence grid in words: per variant, the head that moved most and the mean over every head."""
    said = []
    for variant, grid in moved.items():
        (layer, head), bits = claims.highest(
            {(la, h): float(grid[la, h]) for la in range(LAYERS) for h in range(HEADS)}
        )
        name = t("tf.head_name", layer=layer + 1, head=head + 1)
        said.append(
            t("tf.moved_most", variant=labels[variant], head=name, bits=f"{bits:.2f}", mean=f"{grid.mean():.2f}")
        )
    return t("tf.moved_claim", each=Message(t("tf.moved_sep").join(said)))


def uses_claims(cosines: dict[tuple[int, int], np.ndarray], names: list[str], last: str) -> str:
    """The uses' plot in words (core.claims): their cosines' range at the input and after the last layer, and which
    two uses end closest and which farthest apart."""
    at = {
        stage: {pair: float(c[STAGES.index(stage)]) for pair, c in cosines.items()} for stage in ("input", STAGES[-1])
    }
    ranges = {stage: (min(v.values()), max(v.values())) for stage, v in at.items()}
    (lo, hi), (lo_last, hi_last) = (tuple(f"{x:.2f}" for x in r) for r in ranges.values())
    text = t("tf.uses_ranges", lo=lo, hi=hi, lo_last=lo_last, hi_last=hi_last, last=last)
    if len(cosines) == 1:
        return text
    ends = claims.extremes(at[STAGES[-1]])
    (a, b), (c, d) = ends.closest, ends.farthest
    return text + t(
        "tf.uses_ends", a=names[a], b=names[b], closest=f"{ends.closest_value:.2f}", c=names[c], d=names[d],
        farthest=f"{ends.farthest_value:.2f}", last=last,
    )  # fmt: skip


def paths_claim(cosines: dict[tuple[int, int], np.ndarray], last: str) -> str:
    """Whether the uses' paths move apart or together from the input to the last layer: their mean cosine's trend."""
    mean = claims.mean_by_stage(cosines)[STAGES.index("input") :]
    seen = claims.trend(dict(enumerate(mean)))
    return t(f"tf.paths_{seen.direction}", first=f"{seen.first:.2f}", last=f"{seen.last:.2f}", stage=last)


# --- The figures ----------------------------------------------------------------------------------------------------


def kept_figure(build: Callable[[], go.Figure]) -> go.Figure:
    """The figure `build()` makes (a functools.partial of its builder and every input), made once per server and the
    language, and shared: never changed after. For a figure drawn by st.plotly_chart (the grid, which is clicked)."""
    return _kept(build)


@cached(max_entries=256, ttl=3600)
def _kept(build: Callable[[], go.Figure]) -> go.Figure:  # keyed by the language build's code reads (ui.cache_keys)
    return build()
