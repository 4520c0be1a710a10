"""The torch device of this server process, resolved once and shown in the sidebar."""

from __future__ import annotations

import torch

from core.device import DeviceChoice, choose_device
from ui.cache import cached


@cached()
def device_choice() -> DeviceChoice:
    """The device for this server process, resolved once ($EMBLAB_DEVICE, else cuda, mps, cpu)."""
    return choose_device()


def device() -> torch.device:
    """The torch.device every core call on a page receives."""
    return device_choice().device
