"""Rotary position embeddings (RoFormer, Su et al. 2021), context-extension scalings, and ALiBi.

Each pair of dimensions of q and k is rotated by m * theta_i at position m, so q_m . k_n depends only on m - n.
Scalings follow transformers' modeling_rope_utils, the YaRN paper (Peng et al. 2023) and Meta's Llama 3.1 code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from core.problems import Problem

SCALINGS = ("default", "linear", "dynamic", "yarn", "llama3")
# Past any real model (head_dim 64-256; ALiBi models use up to 112 heads), and small enough that a typo on a shared
# server does not allocate gigabytes: the distance figures' (4,097 x head_dim / 2) tables take ~20 MB at 1,024.
MAX_HEAD_DIM = 1024
MAX_HEADS = 256
# Positions per turn: past any context a model reads, and within the float32 the charts are drawn in (issue 40: a
# factor of 1e100 left half the wavelengths infinite, off the chart without a word).
MAX_WAVELENGTH = 1e30


def check_rope(head_dim: int, base: float, scaling: dict | None = None) -> None:
    """Raise Problem, saying what to change, for settings no method accepts."""
    if not 2 <= head_dim <= MAX_HEAD_DIM or head_dim % 2:
        raise Problem("rope_head_dim", value=head_dim, most=MAX_HEAD_DIM)
    if not (math.isfinite(base) and base > 1):
        raise Problem("rope_base", value=base)
    scaling = scaling or {}
    if scaling.get("rope_type", "default") not in SCALINGS:
        raise Problem("rope_type", choices=", ".join(SCALINGS), value=repr(scaling["rope_type"]))
    if not 1 <= scaling.get("factor", 1.0) < math.inf:  # nan too
        raise Problem("rope_factor", value=scaling["factor"])
    if (
        scaling.get("rope_type") == "llama3"
        and not 0 < scaling["low_freq_factor"] < scaling["high_freq_factor"] < math.inf
    ):
        raise Problem("rope_llama3_factors", low=scaling["low_freq_factor"], high=scaling["high_freq_factor"])


def check_extension(original: int, target: int) -> None:
    """Raise Problem unless the context is extended: the original (trained) length below the target."""
    if not 1 <= original < target:
        raise Problem("rope_extension", original=original, target=target)


def rope_inv_freq(
    head_dim: int, base: float = 10000.0, scaling: dict | None = None, *, seq_len: int | None = None, device=None
) -> Tensor:
    """theta_i for each pair, after the scaling a Hugging Face config names.

    Args:
        scaling: None, or e.g. {"rope_type": "linear", "factor": 4.0}; "dynamic" and "yarn" also read
            "original_max_position_embeddings"; "llama3" also "low_freq_factor" and "high_freq_factor".
        seq_len: the length in use (dynamic NTK only changes the base past the original length).
    Returns:
        (head_dim // 2,) float64 (float32 on mps).
    """
    check_rope(head_dim, base, scaling)
    dtype = torch.float32 if torch.device(device or "cpu").type == "mps" else torch.float64
    two_i = torch.arange(0, head_dim, 2, device=device, dtype=dtype)  # (head_dim // 2,)
    inv_freq = 1.0 / base ** (two_i / head_dim)
    scaling = scaling or {}
    kind = scaling.get("rope_type", "default")
    if kind == "default":
        return inv_freq
    factor = scaling["factor"]
    if kind == "linear":  # position interpolation (Chen et al. 2023): positions / factor
        return inv_freq / factor
    original = scaling["original_max_position_embeddings"]
    if kind == "dynamic":  # NTK-aware: a larger base once the sequence is longer than the original
        if seq_len is None or seq_len <= original or head_dim == 2:  # one pair: theta_0 = 1 for every base
            return inv_freq
        try:
            new_base = base * ((factor * seq_len / original) - (factor - 1)) ** (head_dim / (head_dim - 2))
        except OverflowError:  # a float's ** raises where * gives inf: theta_i = 0 past pair 0 (check_wavelengths)
            new_base = math.inf
        return 1.0 / new_base ** (two_i / head_dim)
    if kind == "yarn":  # NTK-by-parts: keep fast pairs, interpolate slow ones, ramp between
        beta_fast, beta_slow = scaling.get("beta_fast", 32), scaling.get("beta_slow", 1)

        def correction_dim(rotations: float) -> float:
            return head_dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

        low = max(math.floor(correction_dim(beta_fast)), 0)
        high: float = min(math.ceil(correction_dim(beta_slow)), head_dim - 1)
        high = high + 0.001 if low == high else high
        ramp = ((torch.arange(head_dim // 2, device=device, dtype=dtype) - low) / (high - low)).clamp(0, 1)
        keep = 1 - ramp  # 1: extrapolate (unchanged), 0: interpolate (divided by factor)
        return inv_freq / factor * (1 - keep) + inv_freq * keep
    if kind == "llama3":  # three bands by wavelength
        low_freq_wavelen = original / scaling["low_freq_factor"]
        high_freq_wavelen = original / scaling["high_freq_factor"]
        wavelen = 2 * math.pi / inv_freq
        scaled = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
        smooth = (original / wavelen - scaling["low_freq_factor"]) / (
            scaling["high_freq_factor"] - scaling["low_freq_factor"]
        )
        blended = (1 - smooth) * scaled / factor + smooth * scaled
        medium = (wavelen >= high_freq_wavelen) & (wavelen <= low_freq_wavelen)
        return torch.where(medium, blended, scaled)
    raise ValueError(f"rope_type must be one of {SCALINGS}; it is {kind!r}.")


@dataclass(frozen=True)
class RopeConfig:
    """The rotary page's settings: one head's RoPE, the method it is scaled by, and the context extension.

    `method` is the scaling a single configuration uses (one of SCALINGS); the page draws all five besides.
    Raises Problem with what to change, for the method in use and for llama3's factors (which every page draws).
    """

    head_dim: int = 128
    base: float = 10000.0
    method: str = "default"
    original: int = 4096
    target: int = 16384
    factor: float = 4.0
    low_freq: float = 1.0
    high_freq: float = 4.0

    def __post_init__(self) -> None:
        check_rope(self.head_dim, self.base, self.scaling(self.method))
        check_rope(self.head_dim, self.base, self.scaling("llama3"))
        check_extension(self.original, self.target)
        check_wavelengths(self)

    def scaling(self, method: str) -> dict | None:
        """The Hugging Face rope_scaling dict of `method` with these settings (None for "default")."""
        if method == "default":
            return None
        cfg = {"rope_type": method, "factor": self.factor}
        if method in ("dynamic", "yarn", "llama3"):
            cfg["original_max_position_embeddings"] = self.original
        if method == "llama3":
            cfg.update(low_freq_factor=self.low_freq, high_freq_factor=self.high_freq)
        return cfg

    def inv_freq(self, method: str | None = None, *, device=None) -> Tensor:
        """theta_i of `method` (default: this configuration's own), at the target length. (head_dim // 2,)"""
        method = self.method if method is None else method
        return rope_inv_freq(self.head_dim, self.base, self.scaling(method), seq_len=self.target, device=device)


def check_wavelengths(cfg: RopeConfig) -> None:
    """Raise Problem, naming the setting to change, unless every method's wavelengths (the page draws all five) are
    positive numbers up to MAX_WAVELENGTH."""
    for method in dict.fromkeys(("default", cfg.method, *SCALINGS)):  # the base first, then the method in use
        wavelength = 2 * math.pi / cfg.inv_freq(method)  # (head_dim // 2,)
        longest = float(torch.where(wavelength > 0, wavelength, math.inf).max())  # nan is not > 0
        if longest <= MAX_WAVELENGTH:
            continue
        values = dict(wavelength=f"{longest:.3g}", most=f"{MAX_WAVELENGTH:.0e}", factor=f"{cfg.factor:g}")
        if method == "default":
            raise Problem("rope_slow_base", base=f"{cfg.base:g}", head_dim=cfg.head_dim, **values)
        if method == "dynamic":
            raise Problem("rope_slow_dynamic", target=cfg.target, original=cfg.original, **values)
        raise Problem("rope_slow_factor", method=method, **values)


def wavelengths(cfg: RopeConfig, *, device=None) -> Tensor:
    """Positions per full turn of each pair, 2 pi / theta_i, under the configuration's own method. (head_dim // 2,)"""
    return 2 * math.pi / cfg.inv_freq(device=device)


def wavelength_ratio(a: RopeConfig, b: RopeConfig, *, device=None) -> Tensor | None:
    """B's wavelength over A's, pair by pair: above 1 where B turns slower. None when head_dim differs (the pairs
    are not the same pairs). (head_dim // 2,)"""
    if a.head_dim != b.head_dim:
        return None
    return wavelengths(b, device=device) / wavelengths(a, device=device)


def score_curves(cfg: RopeConfig, max_distance: int, seed: int, *, device=None) -> tuple[Tensor, Tensor]:
    """q_m . k_n against m - n, for q = k and for a random q, k drawn from `seed` (on the cpu, so that every
    device draws the same), rotated by the configuration's own method.

    Returns:
        two (max_distance + 1,) tensors: q = k, then random q, k.
    """
    inv_freq = cfg.inv_freq(device=device)  # (head_dim // 2,)
    generator = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, cfg.head_dim, generator=generator, dtype=torch.float64).to(inv_freq)  # (head_dim,) each
    return scores_by_distance(q, q, inv_freq, max_distance), scores_by_distance(q, k, inv_freq, max_distance)


def attention_scaling(scaling: dict | None) -> float:
    """The factor YaRN multiplies cos and sin by (0.1 ln(factor) + 1 by default); 1 for the other methods."""
    scaling = scaling or {}
    if scaling.get("rope_type") != "yarn":
        return 1.0
    if scaling.get("attention_factor") is not None:
        return scaling["attention_factor"]
    factor = scaling["factor"]
    return 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0


def apply_rope(x: Tensor, positions: Tensor, inv_freq: Tensor) -> Tensor:
    """Rotate each (x_i, x_{i + d/2}) pair by position * theta_i (the rotate-half layout of GPT-NeoX and LLaMA in HF).

    Args:
        x: (..., seq, head_dim); positions: (seq,).
    Returns:
        (..., seq, head_dim), same dtype as x.
    """
    angles = positions.to(inv_freq.dtype)[:, None] * inv_freq[None, :]  # (seq, head_dim // 2)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2 = x[..., : x.size(-1) // 2], x[..., x.size(-1) // 2 :]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


def scores_by_distance(q: Tensor, k: Tensor, inv_freq: Tensor, max_distance: int) -> Tensor:
    """q_m . k_n with q at position m = max_distance and k at n = m - distance, for distance 0..max_distance.

    Returns:
        (max_distance + 1,)
    """
    m = max_distance
    q_rot = apply_rope(q[None, :], torch.tensor([m], device=q.device), inv_freq)[0]  # (head_dim,)
    n = m - torch.arange(max_distance + 1, device=q.device)
    k_rot = apply_rope(k[None, :].expand(len(n), -1), n, inv_freq)  # (max_distance + 1, head_dim)
    return k_rot @ q_rot


def long_term_decay(head_dim: int, base: float = 10000.0, max_distance: int = 256, *, device=None) -> Tensor:
    """RoFormer 3.4.3: (1 / (d/2)) sum_j |S_j|, S_j = sum_{k<j} exp(i * r * theta_k), against distance r.

    It bounds how large q . k can be at distance r: it falls as r grows.

    Returns:
        (max_distance + 1,)
    """
    inv_freq = rope_inv_freq(head_dim, base, device=device)  # (d/2,)
    r = torch.arange(max_distance + 1, device=device, dtype=inv_freq.dtype)[:, None]
    partial = torch.polar(torch.ones_like(r * inv_freq), r * inv_freq).cumsum(dim=1)  # (r, d/2): S_1 .. S_{d/2}
    return partial.abs().mean(dim=1)


def alibi_slopes(n_heads: int) -> list[float]:
    """ALiBi's head slopes (Press et al. 2022): 2^(-8/n), 2^(-16/n), ...; other head counts take the reference code's
    interleaving of the next power of two's slopes."""
    if not 1 <= n_heads <= MAX_HEADS:
        raise Problem("alibi_heads", value=n_heads, most=MAX_HEADS)

    def power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n_heads).is_integer():
        return power_of_2(n_heads)
    closest = 2 ** math.floor(math.log2(n_heads))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: n_heads - closest]


def alibi_bias(slope: float, length: int, *, device=None) -> Tensor:
    """Causal ALiBi bias -slope * (i - j) for key j <= query i; -inf above the diagonal.

    Returns:
        (length, length)
    """
    i = torch.arange(length, device=device)
    distance = (i[:, None] - i[None, :]).float()  # (length, length)
    return torch.where(distance >= 0, -slope * distance, -torch.inf)
