"""Vector maths on word vectors: PCA, nearest neighbours, analogies (3CosAdd), axes from word differences."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from core.problems import Problem
from core.vectors import WordVectors, unit_rows

METRICS = ("cosine", "euclidean")


@dataclass(frozen=True)
class Projection:
    """Coordinates of the chosen rows and how much variance each axis keeps."""

    coords: np.ndarray  # (n, k)
    explained_variance_ratio: np.ndarray  # (k,)
    components: np.ndarray  # (k, dim)


def pca(x: np.ndarray, n_components: int = 2, *, fit_on: np.ndarray | None = None) -> Projection:
    """PCA (scikit-learn) fitted on `fit_on` (default x itself), applied to x.

    Signs are fixed so that each component's largest-magnitude weight is positive: the picture does not
    flip between reruns or between fits on different word sets.

    Args:
        x: (n, dim) vectors to place; fit_on: (m, dim) vectors that define the axes, e.g. the m most
            frequent words.
    Raises:
        Problem when fit_on has fewer than n_components rows or columns, or all its rows are equal.
    """
    from sklearn.decomposition import PCA

    fit = np.asarray(x if fit_on is None else fit_on, dtype=np.float64)
    if n_components > min(fit.shape):
        raise Problem("pca_fit", dims=n_components, n=fit.shape[0], dim=fit.shape[1])
    if not np.ptp(fit, axis=0).any():  # no variance: explained_variance_ratio would be 0/0
        raise Problem("pca_flat", n=fit.shape[0])
    model = PCA(n_components=n_components, svd_solver="full").fit(fit)
    flip = np.sign(model.components_[np.arange(n_components), np.abs(model.components_).argmax(axis=1)])
    components = model.components_ * flip[:, None]  # (k, dim)
    coords = (np.asarray(x, np.float64) - model.mean_) @ components.T  # (n, k)
    return Projection(coords, model.explained_variance_ratio_, components)


def nearest(
    wv: WordVectors, query: Tensor, k: int = 10, *, metric: str = "cosine", exclude: list[int] | None = None
) -> list[tuple[str, float]]:
    """The k words nearest to a query vector: (word, cosine similarity or euclidean distance), best first.

    Args:
        query: (dim,) on wv.vectors.device.
        exclude: row indices never returned (e.g. the query word itself).
    Raises:
        Problem for a zero query under cosine (0/0: every score would be 0, the ranking arbitrary).
    """
    if metric == "cosine":
        if not query.any():
            raise Problem("cosine_zero")
        scores = wv.unit @ unit_rows(query)  # (n,)
    elif metric == "euclidean":
        scores = -torch.cdist(wv.vectors, query[None, :]).squeeze(1)  # (n,) negated: larger is nearer
    else:
        raise Problem("metric", choices=", ".join(METRICS), value=repr(metric))
    if exclude:
        scores = scores.clone()
        scores[torch.tensor(exclude, device=scores.device)] = -torch.inf
    top = torch.topk(scores, min(k, len(wv) - len(exclude or []))).indices.tolist()
    sign = 1.0 if metric == "cosine" else -1.0
    return [(wv.itos[i], sign * scores[i].item()) for i in top]


def analogy(wv: WordVectors, a: str, b: str, c: str, k: int = 5) -> list[tuple[str, float]]:
    """a : b :: c : ?  by 3CosAdd: the words nearest (cosine) to unit(b) - unit(a) + unit(c), a, b and c excluded.

    Raises:
        Problem when the vectors hold no word besides a, b and c.
    """
    ids = [wv.stoi[w] for w in (a, b, c)]
    if len(wv) <= len(set(ids)):
        raise Problem("analogy_words", n=len(wv))
    target = wv.unit[ids[1]] - wv.unit[ids[0]] + wv.unit[ids[2]]  # (dim,)
    return nearest(wv, target, k, metric="cosine", exclude=ids)


def difference_axes(wv: WordVectors, words: list[str], x_pair: tuple[str, str], y_pair: tuple[str, str]) -> np.ndarray:
    """Coordinates of words on axes built from differences, e.g. x = woman - man, y = queen - king.

    Each coordinate is the projection v . axis / |axis| (whatlies' `project`).

    Returns:
        (len(words), 2)
    Raises:
        Problem when an axis has length 0 (its two words are the same, or have the same vector).
    """
    axes = torch.stack([wv.get_vecs_by_tokens(p[1]) - wv.get_vecs_by_tokens(p[0]) for p in (x_pair, y_pair)])
    for name, (frm, to), axis in zip("xy", (x_pair, y_pair), axes, strict=True):
        if not axis.any():
            raise Problem("axis_zero", axis=name, frm=frm, to=to)
    axes = nn.functional.normalize(axes, dim=1)  # (2, dim)
    return (wv.get_vecs_by_tokens(words) @ axes.T).cpu().numpy()
