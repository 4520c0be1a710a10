"""The one cache idiom of the pages: a result kept once per server, keyed by everything it is computed from.

`@cached(max_entries=N)` on a function (a view, a table, a figure's text) keeps its results per server process in
Streamlit's cache, shared by every learner, and keys each one by the function and *every* argument it was called
with, through `identity()`: there are no `_arg` parameters and no stand-in a caller passes beside the real input, so
no caller can forget an input and show one learner's figure to another. An argument's identity is:

- a plain value (number, string, None), a tuple, list or dict of them: its value;
- a settings object (a dataclass: PEConfig, AttentionConfig, ...): its type and every field;
- an array or a tensor: its dtype, shape and content (a tensor's digest is kept while it is not changed in place);
- an object too large to read on every call carries its own identity: `WordVectors` are known by a token given to
  each loaded set of vectors (they are never changed: core.vectors); a type registers one in `IDENTITIES`;
- a function (a figure builder, a `functools.partial` of one with its inputs): its code, its defaults and its
  partial's arguments. A function that closes over a run's values, or reads a page's variable as a global, is
  refused with a TypeError naming it: what it depends on must be an argument (module constants, functions and
  modules are read as they are). Anything else is refused too, rather than keyed by a part of it.

Two stores: st.cache_resource (the default) returns the kept object itself, so it is shared and never changed (arrays
are made read-only); `copy=True` is st.cache_data, which returns a copy on each call, for a result a caller changes.
Either way Streamlit's "Clear cache" (st.cache_data.clear and st.cache_resource.clear) empties it, and `max_entries`
and `ttl` bound its memory. A function is decorated once per process even where a page script decorates it on every
run: Streamlit builds a cached function's key from its source each time it decorates it.
"""

from __future__ import annotations

import array
import dataclasses
import dis
import enum
import functools
import hashlib
import sys
import types
import uuid
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
import streamlit as st

if TYPE_CHECKING:  # torch and core.vectors are not imported here: a page without them need not load torch
    import torch

    from core.vectors import WordVectors

F = TypeVar("F", bound=Callable[..., Any])

# What each set of word vectors is known by: its name and a token of its own, given the first time it is keyed. The
# vectors are never changed after loading (core.vectors.WordVectors), so a token stands for their content; a set
# loaded again (another upload, the cache cleared) is another object, with another token.
_vectors_tokens: weakref.WeakKeyDictionary[WordVectors, str] = weakref.WeakKeyDictionary()


def _vectors_identity(wv: WordVectors) -> str:
    if (token := _vectors_tokens.get(wv)) is None:
        token = _vectors_tokens[wv] = f"{wv.name}#{uuid.uuid4().hex}"
    return token


# Types whose objects carry their identity: "module.Type" -> a function returning it (a string or bytes).
IDENTITIES: dict[str, Callable[[Any], str | bytes]] = {"core.vectors.WordVectors": _vectors_identity}

# A tensor's content digest, kept by id while the tensor lives and its version counter (bumped by every in-place
# change) is the same: the learned tables passed on every rerun of the attention page are read once.
_tensor_digests: dict[int, tuple[int, bytes]] = {}


def identity(value: Any) -> bytes:
    """The key `value` is cached by: a digest of everything it is made of (see the module's docstring).

    Raises:
        TypeError: for a value that has no identity (a type not listed above, a function closing over a run's
            values or reading a page's variable).
    """
    h = hashlib.blake2b(digest_size=20)
    _feed(h, value)
    return h.digest()


def _feed(h: Any, value: Any) -> None:
    kind = type(value)
    if value is None or kind is bool:
        h.update(b"b%r;" % value)
    elif kind is int or kind is float:
        h.update(b"n%r;" % value)  # repr: exact for a float; 1 and 1.0 differ, as their results may
    elif kind is str:
        data = value.encode("utf-8", "surrogatepass")
        h.update(b"s%d;" % len(data))
        h.update(data)
    elif kind is bytes:
        h.update(b"y%d;" % len(value))
        h.update(value)
    elif kind is tuple or kind is list:
        _feed_sequence(h, b"t" if kind is tuple else b"l", value)
    elif kind is dict:
        h.update(b"d%d;" % len(value))
        for key, item in value.items():  # in order: a figure's legend follows it
            _feed(h, key)
            _feed(h, item)
    elif kind is range:
        h.update(b"r%d;%d;%d;" % (value.start, value.stop, value.step))
    elif kind is frozenset or kind is set:
        h.update(b"f%d;" % len(value))
        for part in sorted(identity(item) for item in value):
            h.update(part)
    elif isinstance(value, np.ndarray):
        _feed_array(h, value)
    elif isinstance(value, np.generic):
        _feed(h, value.item())
    elif (tm := sys.modules.get("torch")) is not None and isinstance(value, tm.Tensor):
        h.update(_tensor_digest(value))
    elif tm is not None and (kind is tm.device or kind is tm.dtype):
        _feed(h, f"torch:{value}")
    elif (carried := IDENTITIES.get(f"{kind.__module__}.{kind.__qualname__}")) is not None:
        _feed(h, f"{kind.__qualname__}:")
        _feed(h, carried(value))
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        h.update(b"D")
        _feed(h, f"{kind.__module__}.{kind.__qualname__}")
        for field in dataclasses.fields(value):
            _feed(h, getattr(value, field.name))
    elif isinstance(value, enum.Enum):
        _feed(h, f"{kind.__module__}.{kind.__qualname__}.{value.name}")
    elif kind is functools.partial:
        h.update(b"p")
        _feed(h, value.func)
        _feed(h, value.args)
        _feed(h, value.keywords)
    elif kind is types.FunctionType:
        _feed_function(h, value)
    elif isinstance(value, (str, int, float)) and not isinstance(value, enum.Enum):  # a subclass: ui.i18n.Message
        _feed(h, f"{kind.__module__}.{kind.__qualname__}")
        _feed(h, (str if isinstance(value, str) else int if isinstance(value, int) else float)(value))
    elif isinstance(value, tuple):  # a named tuple
        _feed(h, f"{kind.__module__}.{kind.__qualname__}")
        _feed_sequence(h, b"t", value)
    elif isinstance(value, (types.BuiltinFunctionType, type)):
        _feed(h, f"{getattr(value, '__module__', '')}.{value.__qualname__}")
    else:
        raise TypeError(
            f"{kind.__qualname__} has no cache identity: pass the settings it is computed from, "
            "or register its identity in ui.cache.IDENTITIES"
        )


def _feed_sequence(h: Any, tag: bytes, items: tuple | list) -> None:
    h.update(b"%s%d;" % (tag, len(items)))
    if len(items) > 16:  # a cloud's words or rows: read at C speed, not one call each
        try:
            data = "\x00".join(items).encode("utf-8", "surrogatepass")
            h.update(b"S" + array.array("q", map(len, items)).tobytes())  # exact: the join alone is ambiguous
            h.update(data)
            return
        except TypeError:  # not all strings
            pass
        try:
            h.update(b"I" + array.array("q", items).tobytes())  # True counts as 1 here, as it does in Python
            return
        except (TypeError, OverflowError):  # not all (small) integers
            pass
    for item in items:
        _feed(h, item)


def _feed_array(h: Any, array: np.ndarray) -> None:
    h.update(b"a%s;%r;" % (array.dtype.str.encode(), array.shape))
    if array.dtype.hasobject:
        for item in array.flat:
            _feed(h, item)
    else:
        h.update(np.ascontiguousarray(array).data)


def _tensor_digest(tensor: torch.Tensor) -> bytes:
    kept = _tensor_digests.get(id(tensor))
    try:
        version = tensor._version
    except RuntimeError:  # an inference tensor has no version counter: read each time
        version = None
    if kept is not None and version is not None and kept[0] == version:
        return kept[1]
    h = hashlib.blake2b(digest_size=20)
    values = tensor.detach().cpu()
    tm = sys.modules["torch"]
    _feed_array(h, values.view(tm.int16).numpy() if values.dtype == tm.bfloat16 else values.numpy())
    h.update(str(values.dtype).encode())
    digest = b"T" + h.digest()
    if version is not None:
        if kept is None:
            weakref.finalize(tensor, _tensor_digests.pop, id(tensor), None)
        _tensor_digests[id(tensor)] = (version, digest)
    return digest


# --- Functions: their code, and what they read --------------------------------------------------------------------

_code_keys: dict[types.CodeType, tuple[bytes, tuple[str, ...]]] = {}


def _feed_function(h: Any, func: types.FunctionType) -> None:
    if (inner := getattr(func, "__wrapped__", None)) is not None:  # a cached() function: known by the one it wraps
        _feed(h, inner)
        return
    if func.__closure__:
        free = ", ".join(func.__code__.co_freevars)
        raise TypeError(
            f"{func.__qualname__} closes over {free}: a cached function's inputs must be its arguments "
            "(a module-level function, given them through functools.partial)"
        )
    code_key, names = _code_key(func.__code__)
    for name in names:  # a global it reads must not be a page's variable: a learner's value left out of the key
        if name in func.__globals__ and not _constant(name, func.__globals__[name]):
            raise TypeError(
                f"{func.__qualname__} reads the variable {name} of {func.__module__}: pass it as an argument"
            )
    h.update(b"F")
    h.update(code_key)
    _feed(h, func.__defaults__)
    _feed(h, func.__kwdefaults__)


def _constant(name: str, value: Any) -> bool:
    """Whether a global a cached function reads is code, not an input: a module, class, function, or a CONSTANT."""
    return name.isupper() or callable(value) or isinstance(value, types.ModuleType)


def _code_key(code: types.CodeType) -> tuple[bytes, tuple[str, ...]]:
    """A code object's identity (where it is, its bytecode and constants) and the globals it reads, nested
    functions' included; worked out once per code object."""
    if (known := _code_keys.get(code)) is None:
        h = hashlib.blake2b(digest_size=20)
        names: list[str] = []
        _feed_code(h, code, names)
        known = _code_keys[code] = (h.digest(), tuple(dict.fromkeys(names)))
    return known


def _feed_code(h: Any, code: types.CodeType, names: list[str]) -> None:
    _feed(h, (code.co_filename, code.co_qualname, code.co_firstlineno))
    h.update(code.co_code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _feed_code(h, const, names)
        else:
            _feed(h, repr(const))
    names += [i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")]


# --- The decorator ----------------------------------------------------------------------------------------------------

_stores: dict[tuple, Any] = {}  # (where a function is, its options) -> its Streamlit cache


def cached(*, max_entries: int | None = None, ttl: float | None = None, copy: bool = False) -> Callable[[F], F]:
    """`@cached(max_entries=64)`: the function's results kept once per server, keyed by identity() of the function
    and all its arguments.

    Args:
        max_entries: the most results kept (the oldest go first); None: no bound.
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
        where = (code.co_filename, code.co_firstlineno, func.__qualname__, _code_key(code)[0], options)
        if (store := _stores.get(where)) is None:
            store = _stores[where] = _store(func, max_entries, ttl, copy)

        @functools.wraps(func)
        def call(*args: Any, **kwargs: Any) -> Any:
            return store(identity((func, args, kwargs)), functools.partial(func, *args, **kwargs))

        call.clear = store.clear  # type: ignore[attr-defined]  # Streamlit's, for this function alone
        return cast(F, call)

    return decorate


def _store(func: Callable[..., Any], max_entries: int | None, ttl: float | None, copy: bool) -> Any:
    """The Streamlit cache of one function: its values by key, made by `_make` on a miss (not part of the key)."""

    def kept(key: bytes, _make: Callable[[], Any]) -> Any:
        return _make()

    # Streamlit names a cache by its function's module, name and source: each cached function gets its own.
    kept.__module__ = func.__module__
    kept.__qualname__ = f"{func.__qualname__}@{Path(func.__code__.co_filename).stem}:{func.__code__.co_firstlineno}"
    decorator = st.cache_data if copy else st.cache_resource
    return decorator(max_entries=max_entries, ttl=ttl, show_spinner=False)(kept)
