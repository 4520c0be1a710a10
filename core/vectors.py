"""Word vectors and word lookup: the `WordVectors` type and how a typed word finds its row.

`WordVectors` keeps torchtext's shape (itos, stoi, vectors, dim, get_vecs_by_tokens), so seed 003's code
reads the same: `nn.Embedding.from_pretrained(glove.vectors)`. Reading files into one is core/glove.py's job.
"""

from __future__ import annotations

import os
import unicodedata
import warnings
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn


@dataclass(frozen=True, eq=False)
class WordVectors:
    """Words and their vectors, torchtext style.

    Attributes:
        itos: index -> word, in the file's order (GloVe: most frequent first).
        stoi: word -> index.
        vectors: (len(itos), dim) float32 on the device; never written to (it may be a read-only memory map).
        name: where they came from.
        unit_file: where `unit` is kept for every process on the machine (None: each computes its own).
    """

    itos: list[str]
    vectors: Tensor
    name: str
    unit_file: Path | None = None

    @cached_property
    def stoi(self) -> dict[str, int]:
        """word -> index, built on first use (0.2 s for 400,000 words); the first of duplicates wins."""
        n = len(self.itos)
        return dict(zip(reversed(self.itos), range(n - 1, -1, -1), strict=True))

    @property
    def dim(self) -> int:
        return self.vectors.size(1)

    def __len__(self) -> int:
        return len(self.itos)

    @cached_property
    def unit(self) -> Tensor:
        """(len, dim) rows scaled to length 1 (zero rows stay zero), for cosine similarity.

        With a `unit_file` and the vectors on the cpu, they are computed once per machine into that file and
        memory-mapped read-only, so that server processes side by side share one copy (see shared_unit).
        """
        if self.unit_file is None or self.vectors.device.type != "cpu":
            return unit_rows(self.vectors)
        return read_only_tensor(shared_unit(self.unit_file, self.vectors))

    def get_vecs_by_tokens(self, tokens: str | list[str], lower_case_backup: bool = False) -> Tensor:
        """Vectors of the tokens, zeros for unknown ones (torchtext's behaviour). (len(tokens), dim) or (dim,)."""
        single = isinstance(tokens, str)
        rows = []
        for token in [tokens] if isinstance(tokens, str) else tokens:
            if token not in self.stoi and lower_case_backup:
                token = token.lower()
            i = self.stoi.get(token)
            rows.append(self.vectors[i] if i is not None else self.vectors.new_zeros(self.dim))
        out = torch.stack(rows)
        return out[0] if single else out

    def embedding(self) -> nn.Embedding:
        """nn.Embedding.from_pretrained(vectors, freeze=True): seed 003's lookup layer."""
        return nn.Embedding.from_pretrained(self.vectors, freeze=True)


def unit_rows(x: Tensor, *, block: int = 65_536) -> Tensor:
    """x's rows (or x, a single vector) scaled to length 1; zero rows stay zero.

    Each row is first divided by its largest absolute value, so its squares neither underflow (a row of
    subnormal values, ~1e-45, whose float32 squares are 0: normalize would divide by its eps and every cosine
    would be 0.0) nor overflow. Done `block` rows at a time, so the temporaries stay small.

    Returns:
        x's shape, x's dtype.
    """
    if x.dim() == 1:
        return unit_rows(x[None], block=block)[0]
    out = torch.empty_like(x)  # (n, dim)
    for start in range(0, len(x), block):
        rows = x[start : start + block]  # (b, dim)
        top = rows.abs().amax(dim=1, keepdim=True) if rows.shape[1] else rows.new_zeros(len(rows), 1)  # (b, 1)
        scaled = rows / torch.where(top > 0, top, torch.ones_like(top))  # largest |value| 1
        out[start : start + block] = nn.functional.normalize(scaled, dim=1)
    return out


def read_only_tensor(array: np.ndarray) -> Tensor:
    """A cpu tensor over a read-only array (a memory map), without copying it.

    torch has no read-only tensors, and warns that writing to one would be undefined (here: a crash, as the pages
    are mapped read-only). Nothing in core writes to word vectors (tests/core/test_vectors.py runs every core
    function that reads them on a read-only map), so the warning is silenced for this call.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The given NumPy array is not writable", category=UserWarning)
        return torch.from_numpy(array)


def shared_unit(path: Path, vectors: Tensor) -> np.ndarray:
    """The rows of cpu `vectors` scaled to length 1, memory-mapped read-only from `path`.

    The first process to ask writes the file (to a temporary name, then renamed, so another process never maps
    half a file); a file of another shape is written again. Where the folder cannot be written, the rows stay
    in this process's memory.

    Returns:
        (len, dim) float32, read-only.
    """
    try:
        unit = np.load(path, mmap_mode="r")
        if unit.shape == tuple(vectors.shape) and unit.dtype == np.float32:
            return unit
    except (OSError, ValueError):
        pass  # no file yet, or a broken one: write it again
    unit = unit_rows(vectors).numpy()  # (len, dim)
    unit.flags.writeable = False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        with open(partial, "wb") as f:
            np.save(f, unit)
        os.replace(partial, path)
        return np.load(path, mmap_mode="r")
    except OSError:
        return unit


@dataclass(frozen=True)
class WordLookup:
    """What became of the words a person typed, each listed once in the order typed: found, unknown, lowercased,
    duplicates dropped, and found words left out past the most a page shows."""

    found: list[str]
    unknown: list[str]
    lowered: list[str]
    duplicates: list[str]
    left_out: list[str]


def resolve_word(wv: WordVectors, raw: str) -> str | None:
    """The vocabulary entry for a typed word: as typed (NFKC-normalised, stripped), else lowercased; None if neither."""
    word = unicodedata.normalize("NFKC", raw.strip())
    if word in wv.stoi:
        return word
    return word.lower() if word.lower() in wv.stoi else None


def lookup_words(wv: WordVectors, text: str, most: int = 100) -> WordLookup:
    """Split on commas and spaces and resolve each word (resolve_word), reporting what changed or was dropped.

    At most `most` distinct words are found: a page labels each in a plot, and a pasted article would bury them.
    """
    # dicts as ordered sets: each word once, in the order typed
    kept: dict[str, None] = {}
    unknown: dict[str, None] = {}
    lowered: dict[str, None] = {}
    duplicates: dict[str, None] = {}
    for raw in text.replace(",", " ").split():
        word = resolve_word(wv, raw)
        if word is None:
            unknown[raw] = None
            continue
        if word != unicodedata.normalize("NFKC", raw):
            lowered[raw] = None
        if word in kept:
            duplicates[raw] = None
        kept[word] = None
    words = list(kept)
    return WordLookup(words[:most], list(unknown), list(lowered), list(duplicates), words[most:])
