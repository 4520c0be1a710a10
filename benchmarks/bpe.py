"""BPE training: core/bpe.py's readable trainer against `tokenizers`' Rust BpeTrainer, on the same word counts.

Each run is a fresh process (time, and peak memory as the rise of ru_maxrss over the process's size before
training, which sees Rust's allocations too). `tokenizers` has no Python call that takes counts: it is fed each
word `count` times (WhitespaceSplit), the same bytes spelled as the characters U+0100 + byte, so its alphabet
sorts as the bytes do. Its run with no merges (vocab_size 256: feed, alphabet, pair counts) is timed too, and the
difference is its merge loop alone.

    flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/bpe.py [--words 50000] [--merges 10000] [--lang en]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALPHABET = [chr(0x100 + b) for b in range(256)]  # byte b as one character, in byte order


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def cpu_s() -> float:
    """CPU seconds of every thread of this process (tokenizers trains on several)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def ours(lang: str, words: int, merges: int) -> dict:
    from core import bpe

    counts = bpe.word_counts(lang, words)
    before, cpu = rss_mb(), cpu_s()
    start = time.perf_counter()
    learnt = bpe.train(counts, merges)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "cpu": cpu_s() - cpu, "peak_mb": rss_mb() - before, "merges": len(learnt)}


def theirs(lang: str, words: int, merges: int) -> dict:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from core import bpe

    counts = bpe.word_counts(lang, words)
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=256 + merges, initial_alphabet=ALPHABET, min_frequency=0, show_progress=False
    )

    def lines():
        for word, count in counts:
            yield " ".join(["".join(ALPHABET[b] for b in word.encode("utf-8"))] * count)

    before, cpu = rss_mb(), cpu_s()
    start = time.perf_counter()
    tokenizer.train_from_iterator(lines(), trainer)
    seconds = time.perf_counter() - start
    learnt = len(json.loads(tokenizer.to_str())["model"]["merges"])
    return {"seconds": seconds, "cpu": cpu_s() - cpu, "peak_mb": rss_mb() - before, "merges": learnt}


def fresh(which: str, lang: str, words: int, merges: int) -> dict:
    """One measurement in a new process."""
    code = f"import json, benchmarks.bpe as b; print(json.dumps(b.{which}({lang!r}, {words}, {merges})))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="en")
    parser.add_argument("--words", type=int, default=50_000)
    parser.add_argument("--merges", type=int, default=10_000)
    args = parser.parse_args()
    print(f"{args.merges} merges on the top {args.words} words of data/wordfreq_{args.lang}.tsv (counts per 1e7)")
    a = fresh("ours", args.lang, args.words, args.merges)
    b = fresh("theirs", args.lang, args.words, args.merges)
    b0 = fresh("theirs", args.lang, args.words, 0)
    print(f"{'':22}{'wall s':>8}{'CPU s':>8}{'peak MB':>9}")
    for name, r, what in (
        ("core/bpe.py", a, f"{a['merges']} merges"),
        ("tokenizers, in all", b, f"{b['merges']} merges, fed each word count times"),
        ("tokenizers, 0 merges", b0, "feeding, alphabet, pair counts"),
    ):
        print(f"{name:22}{r['seconds']:8.2f}{r['cpu']:8.2f}{r['peak_mb']:+9.0f}  {what}")
    loop, loop_cpu = b["seconds"] - b0["seconds"], b["cpu"] - b0["cpu"]
    print(f"tokenizers' merge loop alone (in all - 0 merges): {loop:.2f} s wall, {loop_cpu:.2f} s CPU")
    print(f"ours / their merge loop: {a['seconds'] / loop:.1f}x wall, {a['cpu'] / loop_cpu:.1f}x CPU")


if __name__ == "__main__":
    main()
