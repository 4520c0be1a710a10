"""GloVe loading and analogy evaluation, each against a baseline measured in the same run.

1. Writes GloVe 6B 50d as a text file (400,000 lines) from the bundled package, then parses it
   (a) with a naive line-by-line parser (split, float per value) and (b) with core.glove (pyarrow's C++ reader),
   each in a fresh process, printing seconds and peak memory above the process's baseline.
2. Warm load: core.glove again on the same file (memory-mapped cache), against the naive parse.
3. The bundled vectors loaded in a fresh process (what one server process pays once).
4. Analogies on gensim's questions-words.txt (19,544 questions), case-insensitive, in a child process with one
   thread per op (OMP_NUM_THREADS=1, as the server runs): (a) at the 30,000 most frequent words, core.evaluate
   against gensim's evaluate_word_analogies on the same vectors; (b) at all 400,000 words, core.evaluate against
   one float32 (questions x 50) @ (50 x 400,000) matrix product, the least any exact evaluation must compute.
Run: .venv/bin/python benchmarks/glove.py   (step 4 alone: --analogies; it needs gensim: requirements-bench.txt)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
import numpy, torch, pyarrow, pyarrow.csv, pyarrow.parquet
from core import glove
base = rss("VmRSS:")
start = time.perf_counter()
{body}
print(json.dumps({{"seconds": time.perf_counter() - start, "peak_above_base": rss("VmHWM:") - base}}))
"""

NAIVE = """
itos, rows = [], []
with open({path!r}, encoding="utf-8") as f:
    for line in f:
        parts = line.rstrip().split(" ")
        itos.append(parts[0])
        rows.append([float(v) for v in parts[1:]])
matrix = numpy.array(rows, dtype=numpy.float32)
"""
OURS = "wv = glove.load_glove({name!r}, cache_dir={folder!r})"
PARSE_ONLY = "from pathlib import Path; itos, matrix = glove.parse_glove_text(Path({path!r}))"
BUNDLED = "wv = glove.load_glove()"


def child(body: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(root=str(ROOT), body=body)], capture_output=True, text=True
    )
    if out.returncode:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    from core.glove import load_glove

    wv = load_glove()
    matrix_bytes = wv.vectors.numel() * 4
    vocab_bytes = sum(sys.getsizeof(w) for w in wv.itos) + sys.getsizeof(wv.itos)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "glove.6B.50d.txt"
        with path.open("w", encoding="utf-8") as f:
            for word, row in zip(wv.itos, wv.vectors.numpy(), strict=True):
                f.write(word + " " + " ".join(f"{v:.6g}" for v in row) + "\n")
        print(
            f"wrote {path.name}: {path.stat().st_size / 2**20:.0f} MiB, {len(wv):,} lines; "
            f"matrix {matrix_bytes / 2**20:.0f} MiB + vocabulary {vocab_bytes / 2**20:.0f} MiB"
        )
        naive = child(NAIVE.format(path=str(path)))
        parse = child(PARSE_ONLY.format(path=str(path)))
        cold = child(OURS.format(name=path.name, folder=folder))
        warm = child(OURS.format(name=path.name, folder=folder))
    budget = 2 * (matrix_bytes + vocab_bytes)
    for name, r in (
        ("naive line-by-line parser", naive),
        ("core.glove parse (pyarrow)", parse),
        ("core.glove cold load (parse + write cache)", cold),
        ("core.glove warm load (memory map)", warm),
    ):
        print(f"{name:<44} {r['seconds']:7.3f} s   peak +{r['peak_above_base'] / 2**20:6.0f} MiB")
    print(
        f"cold parse speed-up over naive: {naive['seconds'] / parse['seconds']:.1f}x (goal >= 7x); "
        f"cold load incl. cache write: {naive['seconds'] / cold['seconds']:.1f}x"
    )
    print(
        f"parse peak {parse['peak_above_base'] / 2**20:.0f} MiB vs 2 x (matrix + vocabulary) = {budget / 2**20:.0f} MiB"
    )
    print(f"warm load = 1/{naive['seconds'] / warm['seconds']:.0f} of the naive parse (goal <= 1/50)")
    bundled = child(BUNDLED)
    print(f"bundled GloVe 6B 50d, fresh process: {bundled['seconds']:.3f} s (goal < 1 s; once per server process)")
    analogies_in_one_thread()


def analogies_in_one_thread() -> None:
    """Step 4 in a child process whose every op (torch's and numpy's BLAS) runs on one thread, as the server runs."""
    one = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, __file__, "--analogies-child"], env={**os.environ, **one}, check=False)
    if out.returncode:
        raise SystemExit(out.returncode)


T = TypeVar("T")


def best_of(runs: int, work: Callable[[], T]) -> tuple[float, T]:
    """The fastest of `runs` calls of work() in seconds (the first also pays one-time set-up), and its result."""
    assert runs >= 1
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return min(times), result


def reference_product(n_questions: int, dim: int, n_words: int, block: tuple[int, int]) -> float:
    """Seconds for one float32 (n_questions, dim) @ (dim, n_words) product, made block[0] rows x block[1] columns
    at a time into one reused output (the whole product, 31 GB at 400,000 words, does not fit in memory)."""
    import torch

    generator = torch.Generator().manual_seed(0)
    a = torch.randn(n_questions, dim, generator=generator)
    b = torch.randn(dim, n_words, generator=generator)
    rows, cols = block
    out = torch.empty(rows, cols)

    def product() -> None:
        for r0 in range(0, n_questions, rows):
            r1 = min(r0 + rows, n_questions)
            for c0 in range(0, n_words, cols):
                c1 = min(c0 + cols, n_words)
                torch.mm(a[r0:r1], b[:, c0:c1], out=out[: r1 - r0, : c1 - c0])

    return best_of(2, product)[0]


def analogies() -> None:
    import torch

    try:
        import gensim
        from gensim.models import KeyedVectors
    except ImportError:
        print("analogies: gensim is not installed (pip install -r requirements-bench.txt), so no questions-words.txt")
        return
    from core.evaluate import TILE_COLS, TILE_ROWS, evaluate_analogies, read_questions
    from core.glove import load_glove

    wv = load_glove()
    questions_file = Path(gensim.__file__).parent / "test" / "test_data" / "questions-words.txt"
    questions = read_questions(questions_file.read_text(encoding="utf-8"))
    print(
        f"\nanalogies: gensim's questions-words.txt ({len(questions):,} questions), case-insensitive, on "
        f"{torch.get_num_threads()} thread(s) per op (OMP_NUM_THREADS=1, as the server runs); best of 2 runs each"
    )
    kv = KeyedVectors(wv.dim)
    kv.add_vectors(wv.itos, wv.vectors.numpy())
    kv.fill_norms()
    _ = wv.unit  # both sides get their unit vectors before the clock starts
    ours_s, ours = best_of(2, lambda: evaluate_analogies(wv, questions, restrict=30_000, case_insensitive=True))
    gensim_s, (score, sections) = best_of(
        2, lambda: kv.evaluate_word_analogies(str(questions_file), restrict_vocab=30_000, case_insensitive=True)
    )
    gensim_correct = len(sections[-1]["correct"])  # the last section is gensim's "Total accuracy"
    print(f"(a) 30,000 most frequent words: {ours['total']:,} questions answered, {ours['skipped']:,} skipped")
    print(f"  core.evaluate: {ours['correct']:,} right ({ours['accuracy']:.4f}) in {ours_s:.2f} s")
    print(f"  gensim 4.4 evaluate_word_analogies: {gensim_correct:,} right ({score:.4f}) in {gensim_s:.2f} s")
    same = "the same answers counted right" if gensim_correct == ours["correct"] else "DIFFERENT counts"
    print(f"  speed-up over gensim: {gensim_s / ours_s:.1f}x (goal >= 5x); {same}")

    n = len(wv)
    ours_s, ours = best_of(2, lambda: evaluate_analogies(wv, questions, restrict=n, case_insensitive=True))
    print(f"(b) all {n:,} words: {ours['total']:,} questions answered; core.evaluate {ours_s:.2f} s")
    blocks = {
        f"{TILE_ROWS} questions x all {n:,} words at a time": (TILE_ROWS, n),
        f"{TILE_ROWS} x {TILE_COLS} tiles, as core.evaluate makes them": (TILE_ROWS, TILE_COLS),
    }
    products = {name: reference_product(len(questions), wv.dim, n, block) for name, block in blocks.items()}
    for name, seconds in products.items():
        print(f"  one float32 product {len(questions):,} x {wv.dim} @ {wv.dim} x {n:,}, {name}: {seconds:.2f} s")
    fastest = min(products.values())
    print(f"  core.evaluate / the faster product: {ours_s / fastest:.2f}x (goal <= 3x)")


if __name__ == "__main__":
    if sys.argv[1:] == ["--analogies"]:
        analogies_in_one_thread()
    elif sys.argv[1:] == ["--analogies-child"]:
        analogies()
    else:
        main()
