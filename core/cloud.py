"""The embedding space at scale: a cloud of the most frequent words, projected with PCA, t-SNE or UMAP.

Seed 004 (section 4.3) checks an embedding space by projecting it and looking for clusters. Two rules here
answer the Embedding Projector's most common complaints: every point fitted is a point drawn and counted
(`cloud_rows` says exactly which), and neighbours are searched in the original space over the whole
vocabulary (`projection.nearest`), never among the projected points.
"""

from __future__ import annotations

import difflib
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import torch

from core import projection
from core.numba_cache import import_umap
from core.problems import Problem
from core.vectors import WordVectors, resolve_word

METHODS = ("PCA", "t-SNE", "UMAP")
SIZES = (500, 1000, 2000, 5000, 10_000, 20_000)
EXAGGERATION_ITERS = 250  # t-SNE's first phase (early exaggeration 12), as in openTSNE and scikit-learn

# Ready-made groups to colour the cloud by (seed 004: cat near dog, good against bad, parts of speech).
GROUPS: dict[str, tuple[str, ...]] = {
    "animals": ("cat", "dog", "horse", "cow", "sheep", "pig", "lion", "tiger", "wolf", "bear", "mouse", "rabbit"),
    "family": ("mother", "father", "sister", "brother", "daughter", "son", "wife", "husband", "aunt", "uncle"),
    "countries": ("france", "germany", "italy", "spain", "japan", "china", "russia", "egypt", "brazil", "canada"),
    "capitals": ("paris", "berlin", "rome", "madrid", "tokyo", "beijing", "moscow", "cairo", "brasilia", "ottawa"),
    "numbers": ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    "past tense verbs": ("went", "saw", "took", "gave", "made", "said", "came", "knew", "thought", "found"),
    "good and bad": ("good", "great", "excellent", "nice", "bad", "terrible", "awful", "poor", "worse", "best"),
}

Progress = Callable[[int, float], None]  # (step done, 0.0): jobs.Job.report's signature
Snapshot = Callable[[int, np.ndarray], None]  # (t-SNE iteration, (n, dims) layout so far)


@dataclass(frozen=True)
class CloudConfig:
    """How to project the cloud. t-SNE uses perplexity, learning_rate (0 = openTSNE's auto, n / 12) and
    iterations; UMAP uses n_neighbors and min_dist; every method uses dims and seed.

    Raises Problem for settings no cloud accepts; `problem_with` says whether they suit a given cloud.
    """

    method: str = "PCA"
    dims: int = 2
    perplexity: float = 30.0
    learning_rate: float = 0.0
    iterations: int = 750
    n_neighbors: int = 15
    min_dist: float = 0.1
    seed: int = 0

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise Problem("cloud_method", methods=", ".join(METHODS))
        if self.dims not in (2, 3):
            raise Problem("cloud_dims")
        if not self.perplexity > 0:  # also refuses nan
            raise Problem("tsne_perplexity_positive", value=f"{self.perplexity:g}")
        if self.iterations <= EXAGGERATION_ITERS:
            raise Problem("tsne_iterations", least=EXAGGERATION_ITERS)
        if not self.learning_rate >= 0:
            raise Problem("tsne_learning_rate")
        if self.n_neighbors < 2:
            raise Problem("umap_neighbors_least", value=self.n_neighbors)
        if not 0 <= self.min_dist <= 1:
            raise Problem("umap_min_dist", value=f"{self.min_dist:g}")

    def problem_with(self, n_points: int, n_features: int | None = None) -> Problem | None:
        """Why these settings cannot project n_points vectors of n_features dimensions (None: not asked); None
        when they can."""
        if n_points <= self.dims:
            return Problem("cloud_points", dims=self.dims, n=n_points)
        if n_features is not None and n_features < self.dims:
            return Problem("cloud_features", dims=self.dims, dim=n_features)
        if self.method == "t-SNE" and not self.perplexity < n_points / 3:
            return Problem("tsne_perplexity", most=f"{n_points / 3:.0f}", value=f"{self.perplexity:g}")
        if self.method == "UMAP" and not self.n_neighbors < n_points:
            return Problem("umap_neighbors", n=n_points, value=self.n_neighbors)
        return None

    def steps(self, n_points: int) -> int:
        """How many progress steps `project` reports: t-SNE iterations, UMAP epochs, 1 for PCA."""
        if self.method == "t-SNE":
            return self.iterations
        if self.method == "UMAP":
            return umap_epochs(n_points)
        return 1


def umap_epochs(n_points: int) -> int:
    """UMAP's own default: 500 epochs up to 10,000 points, 200 above."""
    return 500 if n_points <= 10_000 else 200


def cloud_rows(wv: WordVectors, size: int, extra: list[str]) -> tuple[list[int], int]:
    """The rows to fit and draw: the `size` most frequent words, then each extra word outside them.

    GloVe files list words by frequency, so the most frequent are the first rows.

    Returns:
        (row indices, how many of them are extra words outside the frequent ones).
    """
    size = min(size, len(wv))
    rows = list(range(size))
    added = [wv.stoi[w] for w in dict.fromkeys(extra) if w in wv.stoi and wv.stoi[w] >= size]
    return rows + added, len(added)


def project(
    x: np.ndarray, cfg: CloudConfig, progress: Progress | None = None, snapshot: Snapshot | None = None
) -> np.ndarray:
    """(n, dim) vectors -> (n, cfg.dims) coordinates by cfg.method; deterministic for cfg.seed.

    Args:
        progress: called as progress(step, 0.0) while t-SNE iterates and UMAP runs its epochs.
        snapshot: called as snapshot(iteration, (n, dims) layout) every 10 t-SNE iterations (intermediate layouts).
    """
    x = np.asarray(x, np.float64)  # (n, dim)
    if problem := cfg.problem_with(*x.shape):
        raise problem
    if cfg.method == "PCA":
        coords = projection.pca(x, cfg.dims).coords
    elif cfg.method == "t-SNE":
        coords = _tsne(x, cfg, progress, snapshot)
    else:
        coords = _umap(x, cfg, progress)
    if progress:
        progress(cfg.steps(len(x)), 0.0)
    return coords.astype(np.float32)


def project_in_steps(
    x: np.ndarray, cfg: CloudConfig, *, on_step: Callable[[int, int], None], snapshot: Snapshot | None = None
) -> np.ndarray:
    """`project` reporting as core.jobs.in_child's work does, on_step(step, cfg.steps(n)): how a t-SNE or UMAP job
    runs in a child process."""
    total = cfg.steps(len(x))
    return project(x, cfg, progress=lambda step, _: on_step(step, total), snapshot=snapshot)


def _tsne(x: np.ndarray, cfg: CloudConfig, progress: Progress | None, snapshot: Snapshot | None = None) -> np.ndarray:
    """openTSNE: as fast as scikit-learn's TSNE here (benchmarks/cloud.py), but it reports progress and can resume."""
    from openTSNE import TSNEEmbedding, affinity, initialization

    aff = affinity.PerplexityBasedNN(x, perplexity=cfg.perplexity, n_jobs=-1, random_state=cfg.seed)
    init = initialization.pca(x, n_components=cfg.dims, random_state=cfg.seed)
    done = 0

    def report(iteration: int, error: float, embedding) -> None:
        if progress:
            progress(done + iteration, 0.0)
        if snapshot:  # a copy: openTSNE goes on moving the points in place
            snapshot(done + iteration, np.array(embedding, np.float32))

    embedding = TSNEEmbedding(
        init,
        aff,
        learning_rate=cfg.learning_rate or "auto",
        negative_gradient_method="fft" if cfg.dims == 2 and len(x) >= 10_000 else "bh",  # FFT is 2D only
        n_jobs=-1,
        random_state=cfg.seed,
        callbacks=report,
        callbacks_every_iters=10,
    )
    embedding = embedding.optimize(EXAGGERATION_ITERS, exaggeration=12, momentum=0.5)
    done = EXAGGERATION_ITERS
    embedding = embedding.optimize(cfg.iterations - EXAGGERATION_ITERS, momentum=0.8)
    return np.asarray(embedding)


class _EpochsFile:
    """A file for UMAP's tqdm bar formatted as "{n}/{total}": each write reports the epoch."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress

    def write(self, text: str) -> None:
        match = re.search(r"(\d+)/\d+", text)
        if match and self.progress:
            self.progress(int(match.group(1)), 0.0)

    def flush(self) -> None:
        pass


def _umap(x: np.ndarray, cfg: CloudConfig, progress: Progress | None) -> np.ndarray:
    """umap-learn on the exact nearest neighbours (`exact_neighbours`), never pynndescent's approximate ones.

    pynndescent's search cannot be kept in numba's on-disk cache (it asks numba for its thread count, which the
    cache refuses), so every process compiled it again before its first UMAP; UMAP's own functions can be cached
    (core.numba_cache.cache_numba_functions).
    """
    umap = import_umap()
    model = umap.UMAP(
        n_components=cfg.dims,
        n_neighbors=cfg.n_neighbors,
        min_dist=cfg.min_dist,
        n_epochs=umap_epochs(len(x)),
        random_state=cfg.seed,
        n_jobs=1,  # a seed makes UMAP single-threaded anyway: deterministic
        precomputed_knn=exact_neighbours(x, cfg.n_neighbors),
        tqdm_kwds={"disable": False, "file": _EpochsFile(progress), "bar_format": "{n}/{total}", "mininterval": 0.5},
    )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "precomputed_knn", UserWarning)  # no search index: we never transform
        return model.fit_transform(x)


def exact_neighbours(x: np.ndarray, k: int, *, block: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """Each row's k nearest rows by euclidean distance, the row itself first (UMAP's `precomputed_knn`).

    Args:
        x: (n, dim); block: rows compared with all n at a time.

    Returns:
        (indices (n, k) int32, distances (n, k) float32), nearest first.
    """
    t = torch.from_numpy(np.asarray(x, np.float32))
    sq = (t * t).sum(1)  # (n,)
    indices, distances = [], []
    for start in range(0, len(t), block):
        rows = t[start : start + block]  # (b, dim)
        d2 = sq[start : start + block, None] + sq[None, :] - 2 * rows @ t.T  # (b, n) squared distances
        d2[torch.arange(len(rows)), torch.arange(start, start + len(rows))] = -1.0  # itself first
        near, at = torch.topk(d2, k, dim=1, largest=False)  # (b, k), nearest first
        indices.append(at.to(torch.int32))
        distances.append(near.clamp_min(0).sqrt())
    return torch.cat(indices).numpy(), torch.cat(distances).numpy()


def neighbours(wv: WordVectors, word: str, k: int) -> list[tuple[str, float]]:
    """The k nearest words by cosine in the original space, over the whole vocabulary, the word excluded."""
    i = wv.stoi[word]
    return projection.nearest(wv, wv.vectors[i], k, metric="cosine", exclude=[i])


def suggest(wv: WordVectors, typed: str, n: int = 5, among: int = 100_000) -> list[str]:
    """The closest spellings of an unknown word among the `among` most frequent (difflib's ratio)."""
    typed = typed.strip().lower()
    if not typed:
        return []
    candidates = [w for w in wv.itos[:among] if abs(len(w) - len(typed)) <= 2]
    return difflib.get_close_matches(typed, candidates, n=n, cutoff=0.6)


@dataclass(frozen=True)
class Groups:
    """Word groups to colour by, each reduced to its words in the vocabulary; what was not found."""

    words: dict[str, list[str]]
    unknown: list[str]
    malformed: list[str]


def parse_groups(text: str) -> dict[str, list[str]]:
    """'name: w1, w2 w3' per line -> {name: [w1, w2, w3]}. Lines without a colon are returned under ''."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, colon, words = line.partition(":")
        key = name.strip() if colon else ""
        out.setdefault(key, []).extend((words if colon else line).replace(",", " ").split())
    return out


def resolve_groups(wv: WordVectors, groups: dict[str, list[str]] | dict[str, tuple[str, ...]]) -> Groups:
    """Each group's words that are in the vocabulary (resolve_word); unknown words and unnamed lines reported."""
    words: dict[str, list[str]] = {}
    unknown: list[str] = []
    malformed: list[str] = []
    for name, members in groups.items():
        if not name:
            malformed.extend(members)
            continue
        found = []
        for raw in members:
            word = resolve_word(wv, raw)
            if word is None:
                unknown.append(raw)
            elif word not in found:
                found.append(word)
        if found:
            words[name] = found
    return Groups(words, unknown, malformed)


def cap_groups(wv: WordVectors, groups: Groups, size: int, chosen: list[str], most: int) -> tuple[Groups, list[str]]:
    """The groups with the words left out that would take a cloud of the `size` most frequent words (cloud_rows)
    past `most` words in all: the chosen words are kept (their box has its own bound), then the grouped words
    outside the frequent ones, in the groups' order, while they fit.

    Returns:
        (the groups without the words left out, the words left out).
    """
    frequent = min(size, len(wv))
    kept = set(chosen)
    outside = [w for w in dict.fromkeys(w for ws in groups.words.values() for w in ws) if wv.stoi[w] >= frequent]
    room = max(most - frequent - sum(wv.stoi[w] >= frequent for w in kept), 0)
    past = set([w for w in outside if w not in kept][room:])
    if not past:
        return groups, []
    words = {name: [w for w in ws if w not in past] for name, ws in groups.words.items()}
    return replace(groups, words=words), [w for w in outside if w in past]
