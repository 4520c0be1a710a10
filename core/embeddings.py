"""The Transformer's input layer, piece by piece (seeds 000, 003, 004).

x = LayerNorm(token(ids) * sqrt(d_model) + position + segment), then dropout
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from core.positional import sinusoidal_encoding
from core.vectors import WordVectors

PAD, UNK = "<pad>", "<unk>"
STAGES = ("token", "scaled", "+ position", "+ segment", "LayerNorm", "dropout")


@dataclass(frozen=True)
class LayerConfig:
    """The input layer's settings beside its token table: the width of its random tables, how many positions it
    holds, its positions ("sinusoidal" or "learned"), the token rows scaled by √d_model, the dropout, and the seed its
    random tables are drawn for. One record for build_input_layer, input_stages and table_stages (and the page's
    caches, which it keys)."""

    d_model: int = 64
    max_len: int = 32
    position: str = "sinusoidal"
    scale: bool = True
    dropout: float = 0.1
    seed: int = 0


LAYER = LayerConfig()  # the defaults

# Seed 003's "Are you OK ?" example: its 4 x 4 word matrix, embed_dim 4, max_pos 5.
ARE_YOU_OK_WORDS = ["Are", "you", "OK", "?"]
ARE_YOU_OK = torch.tensor(
    [
        [0.4002, 0.9882, 0.6261, 0.1502],
        [0.3413, 0.9284, 0.9349, 0.8958],
        [0.5347, 0.2969, 0.7019, 0.6293],
        [0.8704, 0.4956, 0.3794, 0.5646],
    ]
)


class TokenEmbedding(nn.Module):
    """Seed 000's Embeddings: a lookup table, times sqrt(d_model) when `scale`."""

    def __init__(self, vocab_size: int, d_model: int, padding_idx: int | None = None, scale: bool = True) -> None:
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model, padding_idx=padding_idx)
        self.d_model, self.scale = d_model, scale

    def forward(self, ids: Tensor) -> Tensor:
        """(batch, length) ids -> (batch, length, d_model)."""
        return self.lut(ids) * (math.sqrt(self.d_model) if self.scale else 1.0)


class InputLayer(nn.Module):
    """Seed 004's TransformerEmbedding: token + position + optional segment -> LayerNorm -> dropout."""

    sinusoid: Tensor  # (max_len, d_model) buffer, registered when position is "sinusoidal"

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        max_len: int = 512,
        *,
        position: str = "sinusoidal",
        segments: int = 2,
        padding_idx: int | None = 0,
        scale: bool = True,
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        self.token = TokenEmbedding(vocab_size, d_model, padding_idx, scale)
        self.position: nn.Embedding | None
        if position == "learned":
            self.position = nn.Embedding(max_len, d_model)
        else:
            self.register_buffer("sinusoid", sinusoidal_encoding(max_len, d_model))
            self.position = None
        self.segment = nn.Embedding(segments, d_model) if segments else None
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.max_len = max_len

    def forward(self, ids: Tensor, segment_ids: Tensor | None = None, *, stages: bool = False):
        """(batch, length) ids -> (batch, length, d_model); with stages=True, a dict of every stage in STAGES."""
        length = ids.size(1)
        if length > self.max_len:
            raise ValueError(f"{length} tokens but max_len is {self.max_len}")
        out = {"token": self.token.lut(ids)}
        out["scaled"] = self.token(ids)
        pos = (
            self.position(torch.arange(length, device=ids.device))
            if self.position is not None
            else self.sinusoid[:length]
        )
        out["+ position"] = out["scaled"] + pos
        out["+ segment"] = out["+ position"] + (
            self.segment(segment_ids) if self.segment is not None and segment_ids is not None else 0
        )
        out["LayerNorm"] = self.norm(out["+ segment"])
        out["dropout"] = self.dropout(out["LayerNorm"])
        return out if stages else out["dropout"]


@dataclass(frozen=True)
class Tokens:
    """A sentence split into tokens, their ids in a small vocabulary, and the words that were unknown."""

    tokens: list[str]
    ids: list[int]
    unknown: list[str]


def split_words(sentence: str) -> list[str]:
    """Lowercase and split punctuation off: "Are you OK?" -> ["are", "you", "ok", "?"]."""
    return re.findall(r"\w+|[^\w\s]", sentence.lower())


def vocabulary(sentences: list[str], known=None) -> tuple[list[str], list[Tokens]]:
    """A small vocabulary for the sentences: <pad> (id 0), <unk> (id 1), then each distinct word once, in the order
    it first appears (within a sentence too), ids consecutive from 2. With `known` (a set of words), a word outside
    it is <unk> and gets no id of its own.

    Returns:
        (itos, one Tokens per sentence)
    """
    itos = [PAD, UNK]
    stoi = {PAD: 0, UNK: 1}
    out = []
    for sentence in sentences:
        words = split_words(sentence)
        for w in words:
            if (known is None or w in known) and w not in stoi:
                stoi[w] = len(itos)
                itos.append(w)
        unknown = [] if known is None else [w for w in words if w not in known]
        out.append(Tokens(words, [stoi.get(w, 1) for w in words], unknown))
    return itos, out


def glove_vocabulary(wv: WordVectors, sentences: list[str]) -> tuple[list[str], Tensor, list[Tokens]]:
    """`vocabulary` over GloVe's words, with each known word's GloVe vector (<pad> and <unk>: zeros).

    Returns:
        (itos, (len(itos), wv.dim) vectors, one Tokens per sentence)
    """
    itos, out = vocabulary(sentences, wv.stoi)
    zeros = wv.vectors.new_zeros(wv.dim)
    rows = [zeros, zeros, *(wv.vectors[wv.stoi[w]] for w in itos[2:])]
    return itos, torch.stack(rows), out


def pad_batch(sequences: list[list[int]], padding_idx: int = 0) -> Tensor:
    """Right-pad id lists to the longest: [[1, 2, 3], [4, 5]] -> [[1, 2, 3], [4, 5, 0]]."""
    longest = max(len(s) for s in sequences)
    return torch.tensor([s + [padding_idx] * (longest - len(s)) for s in sequences])


def padding_gradients(
    batch: Tensor, vocab_size: int, d_model: int, padding_idx: int = 0, seed: int = 0, *, device=None
) -> tuple[Tensor, Tensor]:
    """Seed 000's padding_idx demo: embed a padded batch, backpropagate once, return (vectors, weight gradient).

    The table is drawn on the cpu for the seed, so every device shows the same numbers.

    Returns:
        ((batch, length, d_model) embeddings, (vocab_size, d_model) gradient of the table), on the device
    """
    torch.manual_seed(seed)
    emb = nn.Embedding(vocab_size, d_model, padding_idx=padding_idx).to(device)
    vectors = emb(batch.to(device))
    (grad,) = torch.autograd.grad(vectors.sum(), emb.weight)
    return vectors.detach(), grad


def parameter_counts(vocab_size: int, d_model: int) -> dict[str, dict[str, int]]:
    """Parameters of the input embedding, decoder embedding and output projection, untied and tied.

    Tied (Press & Wolf 2017, the Transformer paper section 3.4): the three share one vocab x d_model matrix.
    """
    table = vocab_size * d_model
    return {
        "untied": {
            "input embedding": table,
            "decoder embedding": table,
            "output projection": table,
            "total": 3 * table,
        },
        "tied": {"input embedding": table, "decoder embedding": 0, "output projection": 0, "total": table},
    }


def norms_against_d_model(
    d_models: list[int], init: str = "normal", *, vocab: int = 10_000, samples: int = 256, seed: int = 0, device=None
) -> dict[str, list[float]]:
    """Mean norm of a token vector (unscaled, scaled by sqrt(d)) and of a PE row, for each d_model.

    init: "normal" (nn.Embedding's default N(0, 1)) or "xavier" (the Annotated Transformer's xavier_uniform_ on a
    vocab x d_model table: U(-b, b) with b = sqrt(6 / (vocab + d_model))). `samples` rows are drawn on the cpu, for
    the seed, and measured on the device.
    """
    generator = torch.Generator().manual_seed(seed)
    out: dict[str, list[float]] = {"token": [], "token x sqrt(d_model)": [], "PE row": []}
    for d in d_models:
        if init == "xavier":
            bound = math.sqrt(6 / (vocab + d))
            table = (torch.rand(samples, d, generator=generator) * 2 - 1) * bound
        else:
            table = torch.randn(samples, d, generator=generator)
        norm = table.to(device).norm(dim=1).mean().item()
        out["token"].append(norm)
        out["token x sqrt(d_model)"].append(norm * math.sqrt(d))
        out["PE row"].append(sinusoidal_encoding(samples, d, device=device).norm(dim=1).mean().item())
    return out


def build_input_layer(
    sentences: list[str], wv: WordVectors | None, cfg: LayerConfig = LAYER, *, device=None
) -> tuple[InputLayer, list[str], list[Tokens]]:
    """An InputLayer with cfg's settings over the sentences' own small vocabulary: GloVe rows for known words
    (d_model = wv.dim), or a random table when wv is None (every word known). Deterministic for cfg.seed: the tables
    are drawn on the cpu, then the layer moves to the device.

    Returns:
        (layer, itos, one Tokens per sentence)
    """
    torch.manual_seed(cfg.seed)
    if wv is None:
        itos, tokens = vocabulary(sentences)
        layer = InputLayer(
            len(itos), cfg.d_model, cfg.max_len, position=cfg.position, scale=cfg.scale, dropout=cfg.dropout
        )
        return layer.to(device), itos, tokens
    itos, vectors, tokens = glove_vocabulary(wv, sentences)
    layer = InputLayer(len(itos), wv.dim, cfg.max_len, position=cfg.position, scale=cfg.scale, dropout=cfg.dropout)
    with torch.no_grad():
        layer.token.lut.weight.copy_(vectors)
    return layer.to(device), itos, tokens


def ids_and_segments(tokens: Sequence[Tokens], max_len: int) -> tuple[list[int], list[int]]:
    """The sentences' ids one after another, and each id's segment (its sentence's index), cut at max_len."""
    ids = [i for tok in tokens for i in tok.ids][:max_len]
    segments = [s for s, tok in enumerate(tokens) for _ in tok.ids][:max_len]
    return ids, segments


def input_stages(
    sentences: Sequence[str], wv: WordVectors | None, cfg: LayerConfig = LAYER, *, training: bool = False, device=None
) -> tuple[list[Tokens], dict[str, Tensor]]:
    """The sentences, segment 0, 1, ... one after another, through build_input_layer's layer: every stage of STAGES
    for their first cfg.max_len tokens, in eval mode, or in training mode (dropout zeroes and rescales).

    Returns:
        (one Tokens per sentence, {stage: (min(tokens, max_len), d_model)} on the device)
    """
    layer, _, tokens = build_input_layer(list(sentences), wv, cfg, device=device)
    ids, segments = ids_and_segments(tokens, cfg.max_len)
    layer.train(training)
    with torch.no_grad():
        out = layer(torch.tensor([ids], device=device), torch.tensor([segments], device=device), stages=True)
    return tokens, {name: values[0] for name, values in out.items()}  # (length, d_model) each


# --- A vocabulary of any size: the tokens another tokenizer cut ------------------------------------------------


def random_rows(ids: Sequence[int], d_model: int, *, seed: int = 0) -> Tensor:
    """Rows `ids` of a random N(0, 1) table of any number of rows: row i is drawn on the cpu from a generator
    seeded with seed * 2**21 + i alone (unique for ids below 2**21, past the last code point, and seeds below 2**11:
    the generator reads 32 bits of its seed), so a token reads the same row in every sentence, and a table as large
    as a vocabulary (1,114,112 code points x d_model) is never built.

    Returns:
        (len(ids), d_model)
    """
    generator = torch.Generator()
    out = torch.empty(len(ids), d_model)
    for k, i in enumerate(ids):
        generator.manual_seed(seed * 2**21 + i)
        out[k] = torch.randn(d_model, generator=generator)
    return out


def glove_rows(wv: WordVectors, tokens: Sequence[str]) -> tuple[list[int], Tensor, list[str]]:
    """Each token's row of GloVe's table, the token lowercased as GloVe's words are; a token GloVe lacks reads row
    len(wv) (<unk>, zeros).

    Returns:
        (each token's id in GloVe's table, (len(tokens), wv.dim) rows, the tokens it lacks)
    """
    ids = [wv.stoi.get(w.lower(), len(wv.itos)) for w in tokens]
    zeros = wv.vectors.new_zeros(wv.dim)
    rows = [wv.vectors[i] if i < len(wv.itos) else zeros for i in ids]
    unknown = [w for w, i in zip(tokens, ids, strict=True) if i == len(wv.itos)]
    return ids, torch.stack(rows) if rows else wv.vectors.new_zeros(0, wv.dim), unknown


def table_stages(
    ids: Sequence[int],
    segments: Sequence[int],
    vocabulary: int,
    cfg: LayerConfig = LAYER,
    *,
    rows: Tensor | None = None,
    training: bool = False,
    device=None,
) -> dict[str, Tensor]:
    """Every stage of STAGES for ids of a vocabulary of `vocabulary` rows (256 bytes, a BPE's tokens, WordPiece's
    30,522 pieces, 1,114,112 code points): the layer's token table holds only the rows the ids read, each id's row
    of `rows` ((len(ids), d), GloVe's) or of random_rows (cfg.d_model wide). The rest of the layer is
    build_input_layer's with cfg's settings, drawn for cfg.seed on the cpu; no padding row (no id is <pad> here).

    Args:
        ids: the tokens' ids, at most cfg.max_len; segments: each id's segment (0, 1).

    Returns:
        {stage: (len(ids), d)} on the device

    Raises:
        ValueError: an id outside 0..vocabulary-1, or more ids than max_len.
    """
    if bad := [i for i in ids if not 0 <= i < vocabulary]:
        raise ValueError(f"ids {bad[:5]} are not rows of a table of {vocabulary:,}")
    distinct = list(dict.fromkeys(ids))  # the table's rows the sentence reads, in the order it first reads them
    row = {i: k for k, i in enumerate(distinct)}
    table = (
        random_rows(distinct, cfg.d_model, seed=cfg.seed)
        if rows is None
        else rows[[list(ids).index(i) for i in distinct]]
    )
    torch.manual_seed(cfg.seed)
    layer = InputLayer(
        len(distinct), table.size(1), cfg.max_len, position=cfg.position, padding_idx=None, scale=cfg.scale,
        dropout=cfg.dropout,
    )  # fmt: skip
    with torch.no_grad():
        layer.token.lut.weight.copy_(table)  # (distinct ids, d)
    layer = layer.to(device).train(training)
    local = torch.tensor([[row[i] for i in ids]], device=device)  # (1, length): each id's row in the small table
    with torch.no_grad():
        out = layer(local, torch.tensor([list(segments)], device=device), stages=True)
    return {name: values[0] for name, values in out.items()}  # (length, d) each
