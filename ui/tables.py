"""Tables a page shows, with their CSV and NPY downloads."""

from __future__ import annotations

import functools
import io

import numpy as np
import pandas as pd
import streamlit as st

from ui.i18n import catalog, language, t


def table(frame: pd.DataFrame, name: str, *, where=st, plain: bool = False, array=None, whole=None, **kwargs) -> None:
    """A table the page shows (st.dataframe, or st.table when plain) with its downloads under it.

    Column and index names that have a text under [col] in locales/ are shown in the reader's language.

    Args:
        whole: what the CSV holds when the table shows part of it (the table itself by default).
    """
    shown = _localised(frame)
    (where.table if plain else where.dataframe)(shown, **kwargs)
    downloads(name, frame=shown if whole is None else _localised(whole), array=array, where=where)


def _localised(frame: pd.DataFrame) -> pd.DataFrame:
    names = catalog(language())
    frame = frame.rename(columns=lambda c: names.get(f"col.{c}", c))
    frame.index.name = names.get(f"col.{frame.index.name}", frame.index.name)
    return frame


def downloads(name: str, *, frame: pd.DataFrame | None = None, array=None, where=st, key: str | None = None) -> None:
    """Download buttons: the frame as CSV, the tensor behind it (numpy or torch) as NPY, file names from `name`.

    The files are made only when a button is pressed, so a rerun pays nothing for them.

    Args:
        array: the array, or a function that makes it when the button is pressed (no work, no cache lookup, on a
            rerun).
        key: the buttons' keys, when `name` changes with every move of a slider (a window): the same buttons
            stay, instead of new ones replacing them on every rerun.
    """
    key = key or name
    common = dict(on_click="ignore", type="tertiary", icon=":material/download:")
    if frame is not None:
        numbered = isinstance(frame.index, pd.RangeIndex) and frame.index.name is None  # rows 0, 1, ...: no column
        where.download_button(
            t("ui.download_csv"),
            functools.partial(frame.to_csv, index=not numbered),
            file_name=f"{name}.csv",
            mime="text/csv",
            key=f"csv_{key}",
            **common,
        )
    if array is not None:
        where.download_button(
            t("ui.download_npy"), lambda: npy_bytes(array), file_name=f"{name}.npy", key=f"npy_{key}", **common
        )


def npy_bytes(array) -> bytes:
    """A numpy or torch array (or a function that makes one) as the bytes of a .npy file."""
    buffer = io.BytesIO()
    array = array() if callable(array) else array
    np.save(buffer, np.asarray(array.detach().cpu() if hasattr(array, "detach") else array))
    return buffer.getvalue()
