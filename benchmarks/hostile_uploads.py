"""How much a hostile vectors upload near the 200 MB cap grows the server process (issue 40).

Each file is made in memory first (as Streamlit holds an upload), then loaded as the picker does and used as a page
does (the unit rows for cosine, the word index); the peak RSS growth over that, sampled every millisecond, is
printed with what the loader said. The bound is core.upload_size.memory_budget (at most MAX_MEMORY for an upload).

    .venv/bin/python benchmarks/hostile_uploads.py
"""

from __future__ import annotations

import io
import sys
import threading
import time
import zipfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.glove import MAX_UPLOAD_BYTES, VectorsError, load_glove  # noqa: E402
from core.upload_size import MAX_MEMORY  # noqa: E402
from labtools.uploads import pt, zipped  # noqa: E402

NEAR_CAP = MAX_UPLOAD_BYTES - 2**20


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def cases():
    words = [f"w{i}" for i in range(50_000)]
    yield "text: one row of 16,384, then blank lines", b"w " + b"1 " * 16_384 + b"\n" * (NEAR_CAP - 32_771)
    row = b"w%d " + b"0 " * 300 + b"\n"
    yield "text: 600-byte rows of zeros (2x in float32)", b"".join(row % i for i in range(NEAR_CAP // (len(row) + 4)))
    yield "text: a wide row, then short rows", b"w " + b"1 " * 16_384 + b"\n" + b"x 1\n" * (NEAR_CAP // 4)
    yield "text: 120 MB of real-looking rows", b"".join(b"w%d " % i + b"0.12345 " * 50 + b"\n" for i in range(300_000))
    yield "pt: a stride-0 float64 view", pt(words, torch.tensor([0.5], dtype=torch.float64).expand(50_000, 16_384))
    yield "pt: compressed zeros", zipped(pt(words[:20_000], torch.zeros(20_000, 2_048)))
    many = [f"w{i}" for i in range(250_000)]  # 250,000 x 50: near the largest such file accepted
    yield "pt: 250,000 words x 50, as torchtext saves", pt(many, torch.randn(250_000, 50))
    yield "pt: 190 MB of float32", pt(words[:2_900], torch.ones(2_900, 16_384))
    yield "pt: 190 MB of float16", pt(words[:5_800], torch.ones(5_800, 16_384, dtype=torch.float16))
    sets = io.BytesIO()
    with zipfile.ZipFile(sets, "w") as archive:
        archive.writestr("archive/data.pkl", b"\x80\x02N" + b"\x8f" * NEAR_CAP + b".")
    yield "pt: a pickle of 190 MB of empty sets", sets.getvalue()


def measure(name: str, data: bytes) -> tuple[str, float]:
    outcome: list[str] = []

    def run() -> None:
        try:
            wv = load_glove(data, name=name)
            _ = wv.unit, wv.stoi  # what a page makes on first use
            outcome.append(f"loaded {len(wv):,} x {wv.dim}")
        except VectorsError as err:
            outcome.append(f"refused: {str(err)[:90]}")

    before = peak = rss()
    worker = threading.Thread(target=run)
    worker.start()
    while worker.is_alive():
        peak = max(peak, rss())
        worker.join(0.001)
    return outcome[0], (peak - before) / 2**20


if __name__ == "__main__":
    print(f"bound: {MAX_MEMORY / 2**20:.0f} MB per upload (core.upload_size.MAX_MEMORY)")
    for label, data in cases():
        start = time.perf_counter()
        said, grew = measure("hostile.pt" if label.startswith("pt") else "hostile.txt", data)
        print(f"{label:48} {len(data) / 2**20:6.1f} MB  +{grew:6.0f} MB  {time.perf_counter() - start:5.1f} s  {said}")
        del data
