"""st.cache_data for a function a page script defines, decorated once per server process instead of once per run.

A page script runs again on every rerun, so its `@st.cache_data` lines run again too, and Streamlit builds each
cached function's key from its source (`inspect.getsource`, which tokenizes it) every time it decorates it. On
the PE page, with eight cached functions, that was the largest single cost of a d_model rerun in a py-spy
profile under load (benchmarks/capacity.py). Here the first run's decorated function serves every later run.
That is the same cache Streamlit would find (its key is the function's source), and a cached function's result
depends on its arguments alone, so an older run's function object gives the same answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

_decorated: dict[tuple, Callable[..., Any]] = {}


def page_cache_data(**options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`@page_cache_data(max_entries=64)` on a page's function: st.cache_data(**options), decorated once.

    For a function at a page's top level: it is known by its file, line, name and bytecode, so two pages'
    functions never share an entry, and an edited function (a reloaded script) is decorated anew. A nested
    function with a closure is decorated as st.cache_data does, each time.
    """

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        if func.__closure__:  # a nested function may close over this run's values: decorated as usual
            return st.cache_data(**options)(func)
        code = func.__code__
        key = (code.co_filename, code.co_firstlineno, func.__qualname__, code.co_code, tuple(sorted(options.items())))
        if key not in _decorated:
            _decorated[key] = st.cache_data(**options)(func)
        return _decorated[key]

    return decorate
