"""Where the lab computes: cuda, then mps, then cpu, unless EMBLAB_DEVICE says otherwise."""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from core.problems import Problem

CHOICES = ("auto", "cpu", "cuda", "mps")
ENV_VAR = "EMBLAB_DEVICE"


@dataclass(frozen=True)
class DeviceChoice:
    """The device in use, what was asked for, and a warning when the two differ."""

    device: torch.device
    requested: str
    warning: Problem | None = None


def _available(kind: str) -> bool:
    if kind == "cuda":
        return torch.cuda.is_available()
    if kind == "mps":
        return torch.backends.mps.is_available()
    return kind == "cpu"


def choose_device(preference: str | None = None) -> DeviceChoice:
    """Resolve a preference (argument, else $EMBLAB_DEVICE, else auto) to an available device.

    Args:
        preference: "auto", "cpu", "cuda" or "mps"; None reads $EMBLAB_DEVICE.
    Returns:
        DeviceChoice; an unknown or absent device falls back to cpu with a warning.
    """
    requested = (preference or os.environ.get(ENV_VAR) or "auto").strip().lower()
    if requested == "auto":
        for kind in ("cuda", "mps"):
            if _available(kind):
                return DeviceChoice(torch.device(kind), requested)
        return DeviceChoice(torch.device("cpu"), requested)
    if requested not in CHOICES:
        return DeviceChoice(
            torch.device("cpu"),
            requested,
            Problem("device_unknown", requested=repr(requested), choices=", ".join(CHOICES)),
        )
    if not _available(requested):
        return DeviceChoice(torch.device("cpu"), requested, Problem("device_missing", requested=requested))
    return DeviceChoice(torch.device(requested), requested)


def pick_device(preference: str | None = None) -> torch.device:
    """The torch.device to compute on (see choose_device)."""
    return choose_device(preference).device


def float64_ok(device: torch.device) -> bool:
    """Whether the device computes in float64 (mps does not)."""
    return device.type != "mps"
