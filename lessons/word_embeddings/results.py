"""What the word page computes from the chosen vectors, once per server for each question: PCA coordinates, and the
nearest words to a word over the whole vocabulary. Keyed by the vectors' identity and the question (ui.cache)."""

from __future__ import annotations

from core import projection
from core.vectors import WordVectors
from ui.cache import cached


@cached(max_entries=32, copy=True)
def pca_coords(wv: WordVectors, words: tuple[str, ...], dims: int, background: int):
    """projection.pca of the words' vectors, fitted on the `background` most frequent words (0: on the words)."""
    x = wv.get_vecs_by_tokens(list(words)).cpu().numpy()
    fit_on = wv.vectors[:background].cpu().numpy() if background else None
    return projection.pca(x, dims, fit_on=fit_on)


@cached(max_entries=256)
def nearest_words(wv: WordVectors, word: str, k: int, metric: str) -> tuple[tuple[str, float], ...]:
    """The k words nearest to `word` (itself left out), best first: a scan of the whole vocabulary, shared by every
    learner who asks the same (read-only: a tuple).

    Raises:
        Problem for a word whose vector is all zeros under cosine (core.projection.nearest).
    """
    i = wv.stoi[word]
    return tuple(projection.nearest(wv, wv.vectors[i], k, metric=metric, exclude=[i]))
