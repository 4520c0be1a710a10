"""The one cache idiom of the pages: a result kept once per server, keyed by everything it is computed from.

`@cached(max_entries=N)` on a function (a view, a table, a figure's text) keeps its results per server process in
Streamlit's cache, shared by every learner, and keys each one by the function and *every* argument it was called
with, through ui.cache_keys.identity (settings by their fields, arrays and tensors by content, word vectors by their
own token, a figure builder by its code): there are no `_arg` parameters and no stand-in a caller passes beside the
real input, so no caller can forget an input and show one learner's figure to another.

Two stores: st.cache_resource (the default) returns the kept object itself, so it is shared and never changed (arrays
are made read-only); `copy=True` is st.cache_data, which returns a copy on each call, for a result a caller changes.
Either way Streamlit's "Clear cache" (st.cache_data.clear and st.cache_resource.clear) empties it, and `max_entries`
and `ttl` bound its memory. A function is decorated once per process even where a page script decorates it on every
run: Streamlit builds a cached function's key from its source each time it decorates it.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import streamlit as st

from ui.cache_keys import code_key, identity
from ui.cache_reads import session_reads

F = TypeVar("F", bound=Callable[..., Any])

# --- The decorator ----------------------------------------------------------------------------------------------------

_stores: dict[tuple, Any] = {}  # (where a function is, its options) -> its Streamlit cache
CACHED: dict[tuple, Callable[..., Any]] = {}  # the same -> the function, as last decorated (its key checked by tests)


def cached(*, max_entries: int | None = None, ttl: float | None = None, copy: bool = False) -> Callable[[F], F]:
    """`@cached(max_entries=64)`: the function's results kept once per server, keyed by identity() of the function
    and all its arguments.

    Args:
        max_entries: the most results kept (the oldest go first); None: no bound. A shared result may still be
            held by the front dict (`_fronts`) after Streamlit let it go: at most twice as many, as the figure
            texts were before (live_chart's dict beside its st.cache_resource).
        ttl: seconds a result is kept; None: until it is pushed out or the cache is cleared.
        copy: st.cache_data (each call gets a copy) instead of st.cache_resource (the object itself, shared).
    Raises:
        TypeError: on decorating a function that closes over a run's values; on a call, for an argument with no
            identity.
    """

    def decorate(func: F) -> F:
        code = cast(types.FunctionType, func).__code__
        if cast(types.FunctionType, func).__closure__:
            identity(func)  # raises, naming what it closes over
        options = (max_entries, ttl, copy)
        where = (code.co_filename, code.co_firstlineno, func.__qualname__, code_key(code)[0], options)
        if (store := _stores.get(where)) is None:
            store = _stores[where] = _store(func, max_entries, ttl, copy)
        CACHED[where] = func
        session_reads(cast(types.FunctionType, func))  # raises for a read of the session that no key would hold

        fast = not copy and ttl is None  # a copy, or a result that expires, is Streamlit's to give

        @functools.wraps(func)
        def call(*args: Any, **kwargs: Any) -> Any:
            key = identity((func, args, kwargs))
            if not fast:
                return store(key, functools.partial(func, *args, **kwargs))
            front = _fronts().setdefault(where, {})
            if (value := front.get(key, _MISSING)) is _MISSING:
                value = store(key, functools.partial(func, *args, **kwargs))
                if max_entries is not None and len(front) >= max_entries:
                    front.clear()  # each value is still in the store
                front[key] = value
            return value

        call.clear = store.clear  # type: ignore[attr-defined]  # Streamlit's, for this function alone
        return cast(F, call)

    return decorate


_MISSING = object()


@st.cache_resource(show_spinner=False)  # the idiom's own store: one dict per process, its entries bounded by `cached`
def _fronts() -> dict[tuple, dict[bytes, Any]]:
    """Each shared function's results by key, looked up before its Streamlit cache, whose every call hashes its
    arguments again (most of a cached figure's cost): a call without arguments fetches them, and Streamlit's "Clear
    cache" empties them with the rest (a new dict after st.cache_resource.clear)."""
    return {}


def _store(func: Callable[..., Any], max_entries: int | None, ttl: float | None, copy: bool) -> Any:
    """The Streamlit cache of one function: its values by key, made by `_make` on a miss (not part of the key)."""

    def kept(key: bytes, _make: Callable[[], Any]) -> Any:
        return _make()

    # Streamlit names a cache by its function's module, name and source: each cached function gets its own.
    kept.__module__ = func.__module__
    kept.__qualname__ = f"{func.__qualname__}@{Path(func.__code__.co_filename).stem}:{func.__code__.co_firstlineno}"
    decorator = st.cache_data if copy else st.cache_resource
    return decorator(max_entries=max_entries, ttl=ttl, show_spinner=False)(kept)
