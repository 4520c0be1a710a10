"""What a cached function reads beyond its arguments (ui.cache_keys keys a function by it): the functions it calls,
followed through the repository's code, and what they read of the learner's session.

A function marked `@reads_session` (ui.i18n.language: the reader's language) is a value a cached result may depend on:
a cached function that calls it, itself or through the functions it calls (its module's, the repository's, through
modules and imports), is keyed by what it returns when called. A read of `st.session_state` or `st.query_params` by
an unmarked function is refused: what a cached result depends on must be an argument or a marked value. What is not
followed: a method of an object (a constant's, an argument's).
"""

from __future__ import annotations

import builtins
import dis
import functools
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
SESSION_READS = frozenset({"session_state", "query_params"})  # st.<name>: what one learner's session holds
_REPOSITORY = str(Path(__file__).resolve().parents[1])


def reads_session(func: F) -> F:
    """Mark `func`, a function of no arguments that reads the learner's session (ui.i18n.language), as a value a cached
    result may depend on: a cached function that calls it, itself or through the functions it calls, is keyed by what
    `func()` returns when it is called."""
    func.__reads_session__ = True  # type: ignore[attr-defined]
    return func


def constant(name: str, value: Any) -> bool:
    """Whether a global a cached function reads is code, not an input: a module, class, function (followed by
    session_reads), or a CONSTANT. A callable object of another kind (a bound method, an object with __call__) may
    hold a learner's values: it is not code."""
    if name.isupper() or isinstance(value, (types.ModuleType, type, types.BuiltinFunctionType, types.FunctionType)):
        return True
    return callable(value) and isinstance(getattr(value, "__wrapped__", None), types.FunctionType)  # st.cache_*


# id(code) -> (the code, the functions marked @reads_session that it reaches): worked out once per code object.
_session_reads: dict[int, tuple[types.CodeType, tuple[Callable[[], Any], ...]]] = {}


def session_reads(func: types.FunctionType) -> tuple[Callable[[], Any], ...]:
    """The functions marked `@reads_session` that `func` calls, itself or through the repository's functions it calls.

    Raises:
        TypeError: where one of them reads st.session_state or st.query_params without being marked.
    """
    func = _unwrapped(func)
    if (known := _session_reads.get(id(func.__code__))) is None or known[0] is not func.__code__:
        reads: dict[Callable[[], Any], None] = {}
        _walk(func, reads, set())
        known = _session_reads[id(func.__code__)] = (func.__code__, tuple(reads))
    return known[1]


def _unwrapped(func: Any) -> Any:
    while True:
        if isinstance(func, functools.partial):
            func = func.func
        elif getattr(func, "__reads_session__", False):
            return func
        elif (inner := getattr(func, "__wrapped__", None)) is not None:
            func = inner
        else:
            return func


def _walk(func: types.FunctionType, reads: dict, seen: set[int]) -> None:
    if id(func.__code__) in seen:
        return
    seen.add(id(func.__code__))
    for value in _called(func):
        value = _unwrapped(value)
        if getattr(value, "__reads_session__", False):
            reads[value] = None
        elif isinstance(value, types.FunctionType) and _ours(value):
            _walk(value, reads, seen)


def _ours(func: types.FunctionType) -> bool:
    """A function of the repository (not a library's): its calls are followed."""
    where = func.__code__.co_filename
    return where.startswith(_REPOSITORY) and "site-packages" not in where


def _called(func: types.FunctionType) -> list[Any]:
    """What `func`'s code may call: the globals it loads, their attributes (a module's functions: `pe.wavelengths`)
    and what it imports, nested functions' included; a read of the session refused."""
    found: list[Any] = []
    codes = [func.__code__]
    while codes:
        code = codes.pop()
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        held: Any = None  # the value the last instruction loaded, whose attribute may follow
        module: Any = None  # the module the last IMPORT_NAME imported
        for ins in dis.get_instructions(code):
            op = ins.opname
            if op in ("LOAD_ATTR", "LOAD_METHOD") and ins.argval in SESSION_READS:
                raise TypeError(
                    f"{func.__qualname__} reads st.{ins.argval}: a cached function's inputs must be its arguments "
                    "(or a value read by a function marked ui.cache_reads.reads_session)"
                )
            if op in ("LOAD_GLOBAL", "LOAD_NAME"):
                held = func.__globals__.get(ins.argval, getattr(builtins, ins.argval, None))
            elif op in ("LOAD_ATTR", "LOAD_METHOD") and isinstance(held, types.ModuleType):
                held = getattr(held, ins.argval, None)
            elif op == "IMPORT_NAME":
                held = module = sys.modules.get(ins.argval)
                continue
            elif op == "IMPORT_FROM" and module is not None:
                held = getattr(module, ins.argval, None)
                found.append(held)
                continue
            else:
                held = None
                continue
            found.append(held)
    return found
