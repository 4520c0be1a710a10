"""Read arrays back out of `fig.to_dict()`: plotly writes a numpy array as a base64 typed array."""

from __future__ import annotations

import base64

import numpy as np


def array(value) -> np.ndarray:
    """The values a trace sends to the browser: a typed array ({dtype, bdata, shape}) or a plain list."""
    if isinstance(value, dict):
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        return flat.reshape([int(n) for n in str(shape).split(",")]) if shape else flat
    return np.asarray(value)


def dtype(value) -> str | None:
    """The typed array's dtype ("f4", "f8", "i8", ...), None for a plain list."""
    return value["dtype"] if isinstance(value, dict) else None
