"""The rotary page's figures, each a function of the settings it shows, returning the figure's text
(ui.live_chart.figure_json), which the page hands to ui.live_chart.chart: each is built and serialised once per server
for those settings and the language it reads (ui.cache), and no setting can be left out of its key."""

from __future__ import annotations

import math

import numpy as np

from core import rotary
from core.rotary import SCALINGS, RopeConfig
from figures.rotary import ab_figure, alibi_figure, rotation_figure
from figures.training import lines_figure
from lessons.rotary.settings import SETTINGS
from ui.cache import cached
from ui.device import device
from ui.i18n import t
from ui.live_chart import figure_json


@cached(max_entries=64)
def rotation_chart(theta: float, pair: int, count: int) -> str:
    """One pair's rotation over `count` positions, by theta a position."""
    return figure_json(rotation_figure(np.arange(count) * theta, t("rp.rotation_title", pair=pair), t("rp.position_m")))


@cached(max_entries=64)
def wavelengths_chart(cfg: RopeConfig) -> str:
    """The five methods' wavelengths, pair by pair, with the original and target lengths."""
    method = SETTINGS["rp_method"]  # the methods' names as the method box shows them
    curves = {
        method.format_option(code): (2 * math.pi / cfg.inv_freq(code, device=device())).cpu().numpy()
        for code in SCALINGS
    }
    lines = {
        t("rp.original_line", n=f"{cfg.original:,}"): cfg.original,
        t("rp.target_line", n=f"{cfg.target:,}"): cfg.target,
    }
    return figure_json(
        lines_figure(curves, t("rp.wl_title"), t("rp.ax_pair"), t("rp.ax_wavelength"), log_y=True, hlines=lines)
    )


@cached(max_entries=64)
def ab_wavelengths_chart(a: RopeConfig, b: RopeConfig) -> str:
    """A's wavelengths dashed against B's."""
    wavelength = t("rp.ax_wavelength")
    return figure_json(
        ab_figure(
            {wavelength: rotary.wavelengths(a, device=device()).cpu().numpy()},
            {wavelength: rotary.wavelengths(b, device=device()).cpu().numpy()},
            t("rp.ab_wl_title"),
            t("rp.ax_pair"),
            wavelength,
            log_y=True,
        )
    )


@cached(max_entries=64)
def ab_ratio_chart(a: RopeConfig, b: RopeConfig) -> str:
    """B's wavelengths over A's, pair by pair (the same head_dim: the page draws it only then)."""
    ratio = rotary.wavelength_ratio(a, b, device=device())
    if ratio is None:
        raise ValueError("A and B have different head_dim: their pairs are not the same pairs")
    return figure_json(
        lines_figure(
            {t("rp.ab_ratio"): ratio.cpu().numpy()},
            t("rp.ab_ratio_title"),
            t("rp.ax_pair"),
            t("rp.ab_ratio"),
            log_y=True,
            hlines={t("rp.ab_equal"): 1.0},
        )
    )


@cached(max_entries=64)
def score_lines(cfg: RopeConfig, distance: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """q = k, and a random q and k drawn from the seed (of cfg's head_dim), against distance (read-only arrays)."""
    lines = tuple(line.cpu().numpy() for line in rotary.score_curves(cfg, distance, seed, device=device()))
    for line in lines:
        line.flags.writeable = False
    return lines  # type: ignore[return-value]


@cached(max_entries=64)
def scores_chart(b: RopeConfig, a: RopeConfig | None, distance: int, seed: int) -> str:
    """The score against distance for B's settings, or A's dashed against B's."""

    def curves(c: RopeConfig) -> dict:
        same, random = score_lines(c, distance, seed)
        return {"q = k": same, t("rp.random_qk"): random}

    axes = (t("rp.score_title"), t("rp.ax_distance") + " m − n", t("rp.ax_score"))
    return figure_json(lines_figure(curves(b), *axes) if a is None else ab_figure(curves(a), curves(b), *axes))


@cached(max_entries=64)
def decay_chart(b: tuple[int, float], a: tuple[int, float] | None, distance: int) -> str:
    """The long-term decay bound for B's (head_dim, base), or A's dashed against B's: all the bound depends on."""

    def bound(head_dim: int, base: float) -> dict:
        return {t("rp.bound"): rotary.long_term_decay(head_dim, base, distance, device=device()).cpu().numpy()}

    axes = (t("rp.decay_title"), t("rp.ax_distance"), t("rp.ax_bound"))
    return figure_json(lines_figure(bound(*b), *axes) if a is None else ab_figure(bound(*a), bound(*b), *axes))


@cached(max_entries=64)
def alibi_chart(slope: float, length: int) -> str:
    """ALiBi's bias for one head's slope over `length` tokens."""
    return figure_json(
        alibi_figure(
            rotary.alibi_bias(slope, length, device=device()).cpu().numpy(),
            t("rp.alibi_title", slope=f"{slope:.4g}"),
            (t("rp.ax_key"), t("rp.ax_query")),
        )
    )
