"""Vector files made in memory, as a learner's upload would arrive: what the hostile-upload tests and benchmark load."""

from __future__ import annotations

import io
import zipfile

import torch


def pt(itos: list[str], vectors: torch.Tensor) -> bytes:
    """A .pt as torchtext saves vectors: (itos, stoi, vectors, dim), through torch.save."""
    buffer = io.BytesIO()
    torch.save((itos, {w: i for i, w in enumerate(itos)}, vectors, vectors.size(1)), buffer)
    return buffer.getvalue()


def zipped(data: bytes) -> bytes:
    """A .pt with its entries deflated: torch.load would unpack them, whatever they grow to."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as old, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new:
        for entry in old.infolist():
            new.writestr(entry.filename, old.read(entry.filename))
    return out.getvalue()
