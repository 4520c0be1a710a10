"""The embedding-space page's "find a word": the word's neighbours over the whole vocabulary, and where it and they
sit in the cloud drawn. A find does not change the cloud: the cloud is fitted on the most frequent, chosen and
grouped words alone, and the found words are drawn over it (ui.live_chart.cached_chart's overlay), so that a find
neither refits the projection nor rebuilds and resends the figure of thousands of points (issue 34). The cloud's
labels are an overlay too (figures.cloud.labels_figure), which a find replaces: drawn after the found words, they
covered them (issue 41)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from core import cloud, projection
from core.cloud import CloudConfig
from core.problems import Problem
from core.vectors import WordVectors, resolve_word
from ui.i18n import problem, t


def lookup(wv: WordVectors, source_key: str, typed: str, k: int) -> tuple[str | None, list[tuple[str, float]]]:
    """The word typed as the vocabulary has it, and its k nearest words; (None, []) for an empty box, or a word not in
    the vocabulary (said, with the closest spellings) or without a direction (its vector all zeros: said)."""
    if not typed.strip():
        return None, []
    if (found := resolve_word(wv, typed)) is None:
        close = cloud.suggest(wv, typed)
        st.warning(
            t("we.not_in_vocabulary", word=repr(typed.strip()))
            + " "
            + (t("es.did_you_mean", words=", ".join(close)) if close else t("es.no_close"))
        )
        return None, []
    try:
        return found, list(nearest(wv, source_key, found, k))
    except Problem as err:  # the word's vector is all zeros: cosine is 0/0
        st.error(problem(err))
        return found, []


@st.cache_resource(max_entries=256, show_spinner=False)
def nearest(_wv: WordVectors, source_key: str, word: str, k: int) -> tuple[tuple[str, float], ...]:
    """core.cloud.neighbours, once per server for (vectors, word, k): a scan of the whole vocabulary."""
    return tuple(cloud.neighbours(_wv, word, k))


@st.cache_resource(max_entries=64, show_spinner=False)
def _placed_by_pca(_wv: WordVectors, _rows: list[int], cloud_id: tuple, dims: int, outside: tuple[int, ...]):
    x = _wv.vectors[list(outside)].cpu().numpy()  # (m, dim)
    coords = projection.pca(x, dims, fit_on=_wv.vectors[_rows].cpu().numpy()).coords.astype(np.float32)  # (m, dims)
    coords.flags.writeable = False
    return coords


@dataclass(frozen=True)
class Placed:
    """The found word and its neighbours that have a place in the cloud drawn, and those that have none."""

    words: list[str]  # in the order asked (the found word first, when it has a place)
    coords: np.ndarray  # (len(words), dims)
    projected: list[str]  # outside the cloud, placed by the cloud's PCA (not part of its fit)
    unplaced: list[str]  # outside the cloud, not drawn: t-SNE and UMAP place only the words they were fitted on


def place(
    wv: WordVectors, rows: list[int], cloud_id: tuple, cfg: CloudConfig, coords: np.ndarray, asked: list[str]
) -> Placed:
    """Where each asked word is drawn: its point in the cloud, or, outside the cloud, its projection by the PCA
    fitted on the cloud (PCA is a linear map: any vector has its place); t-SNE and UMAP give none."""
    at = {w: _position(rows, wv.stoi[w]) for w in asked}  # the word's row in coords, or None
    outside = [w for w in asked if at[w] is None]
    extra = {}
    if outside and cfg.method == "PCA":
        xy = _placed_by_pca(wv, rows, cloud_id, cfg.dims, tuple(wv.stoi[w] for w in outside))
        extra = dict(zip(outside, xy, strict=True))
    words = [w for w in asked if at[w] is not None or w in extra]
    points = [coords[at[w]] if at[w] is not None else extra[w] for w in words]
    xy = np.array(points, np.float32).reshape(len(words), coords.shape[1])  # (len(words), dims)
    return Placed(words, xy, [w for w in outside if w in extra], [w for w in outside if w not in extra])


def _position(rows: list[int], row: int) -> int | None:
    if row < len(rows) and rows[row] == row:  # one of the most frequent words: rows begins with them in order
        return row
    return rows.index(row) if row in rows else None
