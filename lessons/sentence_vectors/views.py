"""The "Sentence vectors" page's cached results: each chapter's numbers, computed once per input and shared.

A sentence's vectors are kept one sentence at a time (ui.cache, shared by reference), so that a move that changes
one line of the list computes that line alone; a chapter's view (ui.cache, a copy per call) is keyed by
its inputs, so a rerun that changes nothing computes nothing (this module is imported once: its decorators run once). A sentence a method cannot read comes back as a
refusal, (locale key, values), never as an exception: the page names it and shows the others.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import torch

from core import neighbours, sentences, trustworthiness
from core.cloud import CloudConfig, project
from core.problems import Problem
from core.projection import pca
from ui.cache import cached
from ui.resources import minilm_model, sentence_collection, shipped_order_cosines
from ui.sessions import release_free_memory
from ui.vectors import bundled_vectors

Refusal = tuple[str, dict]  # (locale key, its values)
T = TypeVar("T")
PLACED_BY = 5  # a query's place on a t-SNE or UMAP map: the mean place of its 5 most similar sentences


def given_back(value: T) -> T:
    """`value`, once malloc's free memory is returned to the system (ui.sessions.release_free_memory): a text's
    MiniLM runs are freed by then, and glibc would otherwise keep their pages for good, in the arena of the session's
    script thread (issue 55: twenty lists of long sentences held +220 MiB after their sessions)."""
    release_free_memory()
    return value


@cached(max_entries=512)
def minilm_row(sentence: str, positions: str = "learned") -> tuple[torch.Tensor | None, Refusal | None]:
    """A sentence's MiniLM embedding (384,), or why MiniLM cannot read it."""
    try:
        return given_back(sentences.minilm_vector(minilm_model(), sentence, positions)), None
    except Problem as err:
        return None, (f"problems.{err.key}", err.values)


@cached(max_entries=512)
def minilm_cut(sentence: str) -> tuple[int, int]:
    """(the text's WordPiece tokens with [CLS] and [SEP], how many of its pieces minilm_row's vector leaves out)."""
    model = minilm_model()
    return sentences.token_count(model, sentence), sentences.pieces_left_out(model, sentence)


@cached(max_entries=512)
def glove_row(sentence: str) -> tuple[torch.Tensor | None, Refusal | None]:
    """A sentence's GloVe mean (50,), or why GloVe cannot read it."""
    try:
        return sentences.glove_mean(bundled_vectors(), sentence), None
    except sentences.Refused as err:
        return None, (f"sv.refused_{err.key}", err.values)


@cached(max_entries=64, copy=True)
def sentences_view(lines: tuple[str, ...]) -> dict:
    """Chapter 1: which sentences both methods read, their two cosine matrices, and every pair ranked by both.

    Returns:
        kept: the lines' indices both methods read; refused: [(index, method, refusal)]; minilm, glove: (n, n) over
        the kept sentences; ranks: [core.sentences.Ranked], most re-ranked first; rho: Spearman's rank correlation.
    """
    refused, kept, mini, glove = [], [], [], []
    for i, line in enumerate(lines):
        (m, why_m), (g, why_g) = minilm_row(line), glove_row(line)
        refused += [(i, method, why) for method, why in (("minilm", why_m), ("glove", why_g)) if why is not None]
        if m is not None and g is not None:
            kept.append(i)
            mini.append(m)
            glove.append(g)
    out: dict = dict(kept=kept, refused=refused)
    if len(kept) >= 2:
        a = sentences.cosine_matrix(torch.stack(mini)).cpu().numpy()  # (n, n)
        b = sentences.cosine_matrix(torch.stack(glove)).cpu().numpy()
        out.update(minilm=a, glove=b, ranks=sentences.pair_ranks(b, a), rho=sentences.rank_correlation(a, b))
    return out


@cached(max_entries=64, copy=True)
def order_view(first: str, second: str) -> dict:
    """Chapter 2: the shipped pairs' cosines under each method, and the learner's pair's (or why not).

    Returns:
        shipped: [(OrderPair, {method: cosine})]; yours: {method: cosine} or None; refused: [(which, method,
        refusal)]; same_words, same_pieces: whether the learner's two sentences are a reordering of each other.
    """
    model, wv = minilm_model(), bundled_vectors()
    refused = []
    for which, text in (("first", first), ("second", second)):
        refused += [(which, "minilm", why) for why in [minilm_row(text)[1]] if why is not None]
        refused += [(which, "glove", why) for why in [glove_row(text)[1]] if why is not None]
    yours = None if refused else given_back(sentences.order_cosines(model, wv, first, second))
    return dict(
        shipped=list(shipped_order_cosines()),
        yours=yours,
        refused=refused,
        same_words=sentences.same_words(first, second),
        same_pieces=sentences.same_pieces(model, first, second),
    )


@cached(max_entries=128, copy=True)
def search_view(query: str, k: int) -> dict:
    """Chapter 3: the query's k nearest shipped sentences by MiniLM and by GloVe mean, and where the two differ.

    Returns:
        minilm, glove: [(row, cosine)] or None with the refusal in refused: [(method, refusal)]; only_minilm,
        only_glove: the rows one list has and the other has not.
    """
    collection = sentence_collection()
    out: dict = dict(refused=[], minilm=None, glove=None, only_minilm=[], only_glove=[])
    for space, (vector, why) in (("minilm", minilm_row(query)), ("glove", glove_row(query))):
        if vector is None:
            out["refused"].append((space, why))
        else:
            out[space] = sentences.search(collection.vectors(space), vector, k)
    if out["minilm"] is not None and out["glove"] is not None:
        out["only_minilm"], out["only_glove"] = sentences.only_in(out["minilm"], out["glove"])
    return out


def collection_array(space: str) -> np.ndarray:
    """(n, dim) the shipped sentences' vectors in `space`, on the cpu."""
    return sentence_collection().vectors(space).cpu().numpy()


@cached(max_entries=8)
def pca_map(space: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The collection's PCA map in `space`: (n, 2) coordinates, its mean and its (2, dim) axes (to place a query)."""
    x = collection_array(space).astype(np.float64)
    fit = pca(x, 2)
    return fit.coords.astype(np.float32), x.mean(axis=0), fit.components


def projected(space: str, cfg: CloudConfig) -> np.ndarray:
    """(n, 2) the collection projected by cfg (what a t-SNE or UMAP job runs)."""
    return project(collection_array(space), cfg)


def query_place(space: str, method: str, coords: np.ndarray, query: str) -> np.ndarray | None:
    """(2,) where the query goes on the map: PCA's own axes; for t-SNE and UMAP, which have none, the mean place of
    its PLACED_BY most similar sentences. None when the method cannot read the query."""
    vector, why = minilm_row(query) if space == "minilm" else glove_row(query)
    if vector is None:
        return None
    q = vector.cpu().numpy().astype(np.float64)
    if method == "PCA":
        _, mean, axes = pca_map(space)
        return ((q - mean) @ axes.T).astype(np.float32)
    x = collection_array(space)
    sims = (x / np.linalg.norm(x, axis=1, keepdims=True)) @ (q / np.linalg.norm(q))
    return sentences.place_by_neighbours(coords, sims, PLACED_BY)


@cached(max_entries=32, copy=True)
def measures(space: str, cfg: CloudConfig, k: int, coords: np.ndarray) -> tuple[float, float, float]:
    """Neighbours kept, trustworthiness T(k) and the share of map neighbours on the same topic, for one map.

    Returns:
        (mean share of each sentence's k nearest kept, T(k), mean share of its k nearest on the map with its topic).
    """
    x = collection_array(space)
    kept = neighbours.preservation(x, coords, k).kept
    trust = trustworthiness.trustworthiness(x, coords, k)
    near = neighbours.neighbour_indices(coords, k, "euclidean")  # (n, k)
    topics = np.asarray(sentence_collection().topics)
    same = (topics[near] == topics[:, None]).mean()
    return float(kept.mean() / k), float(trust), float(same)
