"""What the word page computes from the chosen vectors, once per server for each question: PCA coordinates, and the
nearest words to a word over the whole vocabulary. Keyed by the vectors' source (ui.vectors.choose_vectors), not by
the vectors themselves, which are too large to hash on every run."""

from __future__ import annotations

import streamlit as st

from core import projection
from core.vectors import WordVectors


@st.cache_data(max_entries=32)
def pca_coords(_wv: WordVectors, source: str, words: tuple[str, ...], dims: int, background: int):
    """projection.pca of the words' vectors, fitted on the `background` most frequent words (0: on the words)."""
    x = _wv.get_vecs_by_tokens(list(words)).cpu().numpy()
    fit_on = _wv.vectors[:background].cpu().numpy() if background else None
    return projection.pca(x, dims, fit_on=fit_on)


@st.cache_resource(max_entries=256, show_spinner=False)
def nearest_words(_wv: WordVectors, source: str, word: str, k: int, metric: str) -> tuple[tuple[str, float], ...]:
    """The k words nearest to `word` (itself left out), best first: a scan of the whole vocabulary, shared by every
    learner who asks the same (read-only: a tuple).

    Raises:
        Problem for a word whose vector is all zeros under cosine (core.projection.nearest).
    """
    i = _wv.stoi[word]
    return tuple(projection.nearest(_wv, _wv.vectors[i], k, metric=metric, exclude=[i]))
