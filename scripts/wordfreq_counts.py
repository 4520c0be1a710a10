"""Write data/wordfreq_<lang>.tsv: the top words of `wordfreq` (3.1.1) with integer counts, for core/bpe.py.

Each line is `word<TAB>count`, most frequent first; count = round(frequency * 10,000,000), a word's count in ten
million words of wordfreq's 'best' list (its rarest of the top 50,000 still counts 4 in English, 6 in Chinese).
The app ships these files rather than wordfreq itself (a 57 MB wheel for all its languages; the Docker image stays
within its budget). Run with wordfreq installed (requirements-bench.txt):

    .venv/bin/python scripts/wordfreq_counts.py
"""

from __future__ import annotations

from pathlib import Path

import wordfreq

LANGS = ("en", "zh")
TOP = 50_000
PER = 10_000_000  # counts per ten million words
DATA = Path(__file__).resolve().parents[1] / "data"


def counts(lang: str, n: int = TOP) -> list[tuple[str, int]]:
    """The n most frequent words of `lang` with their counts per PER words.

    get_frequency_dict, not word_frequency: the latter re-tokenizes each word, which for Chinese needs jieba.
    """
    frequency = wordfreq.get_frequency_dict(lang, wordlist="best")
    return [(word, round(frequency[word] * PER)) for word in wordfreq.top_n_list(lang, n, wordlist="best")]


def main() -> None:
    for lang in LANGS:
        path = DATA / f"wordfreq_{lang}.tsv"
        rows = counts(lang)
        assert all("\t" not in w and "\n" not in w and c > 0 for w, c in rows)
        path.write_text("".join(f"{word}\t{count}\n" for word, count in rows), encoding="utf-8")
        print(f"{path.name}: {len(rows)} words, {sum(c for _, c in rows)} in all")


if __name__ == "__main__":
    main()
