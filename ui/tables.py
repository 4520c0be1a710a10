"""Tables a page shows, with their CSV and NPY downloads."""

from __future__ import annotations

import functools
import io
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from ui.i18n import catalog, language, t
from ui.presenter import presenting

_keyboard = st.components.v2.component("keyboard_tables", js=Path(__file__).with_name("tables.js").read_text())
PRESENTER_ROWS = 10  # rows a table shows at once in presenter mode: a longer one scrolls inside its box
ROW_PX = 36  # px: a row of st.table (its cells' text at the body's size, and their padding), before the zoom


def table(frame: pd.DataFrame, name: str, *, where=st, plain: bool = False, array=None, whole=None, **kwargs) -> None:
    """A table the page shows (st.dataframe, or st.table when plain) with its downloads under it.

    Column and index names that have a text under [col] in locales/ are shown in the reader's language. In presenter
    mode every table is a st.table: st.dataframe draws its cells on a canvas (glide-data-grid) in the theme's size,
    the same for every session (theme.baseFontSize is the server's), and zoomed with the column it maps the mouse
    wrongly; a st.table's cells are HTML, zoomed with the body text (ui/presenter.css sets them at its size), and a
    long one scrolls in its box. It cannot be sorted by its headers: no page relies on that.

    Args:
        whole: what the CSV holds when the table shows part of it (the table itself by default).
        kwargs: st.dataframe's (hide_index, column_config: a NumberColumn's format is kept in presenter mode).
    """
    shown = _localised(frame)
    if plain:
        where.table(shown, **kwargs)
    elif presenting():
        where.table(_formatted(shown, kwargs.pop("column_config", None)), **_table_size(shown), **kwargs)
    else:
        where.dataframe(shown, **kwargs)
    downloads(name, frame=shown if whole is None else _localised(whole), array=array, where=where)


def keyboard_scrolling() -> None:
    """Every st.table of the page that scrolls in its box takes the keyboard's focus and is named in the reader's
    language (ui/tables.js; st.table's box scrolls but cannot be reached without a mouse)."""
    _keyboard(key="keyboard_tables", data=dict(name=t("ui.table_region")))


def _formatted(frame: pd.DataFrame, column_config: dict | None):
    """The frame with the number formats of its columns' NumberColumn configs ("%.7f"), as st.dataframe shows it."""
    formats = {
        column: config["type_config"]["format"]
        for column, config in (column_config or {}).items()
        if (config.get("type_config") or {}).get("format")
    }
    if not formats:
        return frame
    return frame.style.format({column: functools.partial(_printf, f) for column, f in formats.items()})


def _printf(form: str, value) -> str:
    return form % value


def _table_size(frame: pd.DataFrame) -> dict:
    """st.table's height: its content, or PRESENTER_ROWS rows and its header when it is longer (it scrolls)."""
    if len(frame) <= PRESENTER_ROWS:
        return {}
    return {"height": (PRESENTER_ROWS + 1) * ROW_PX}


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
