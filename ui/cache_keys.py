"""What a cached result is keyed by (ui.cache): `identity(value)`, a digest of everything a value is made of.

- a plain value (number, string, None), a tuple, list or dict of them: its value;
- a settings object (a dataclass: PEConfig, AttentionConfig, ...): its type and every field;
- an array or a tensor: its dtype, shape and content (a tensor's digest is kept while it is not changed in place);
- an object too large to read on every call carries its own identity: `WordVectors` are known by a token given to
  each loaded set of vectors (they are never changed: core.vectors); a type registers one in `IDENTITIES`;
- a function (a figure builder, a `functools.partial` of one with its inputs): its code, its defaults and its
  partial's arguments, and what it reads of the learner's session (ui.cache_reads: the functions it calls are
  followed, and one marked `@reads_session`, ui.i18n.language, adds the value it returns now to the key, so a function
  that reads a translated text is keyed by the language without taking it as an argument). A function that closes
  over a run's values, reads a page's variable as a global, holds a callable object other than a function, class or
  module as a global, or reads `st.session_state` or `st.query_params` itself (unmarked) is refused with a
  TypeError naming it: what it depends on must be an argument. Anything else is refused too, rather than keyed by a
  part of it. What is not followed: a method of an object (a constant's, an argument's), which the key leaves out.
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
from typing import TYPE_CHECKING, Any

import numpy as np

from ui.cache_reads import constant, session_reads

if TYPE_CHECKING:  # torch and core.vectors are not imported here: a page without them need not load torch
    import torch

    from core.vectors import WordVectors

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
    if kind is int or kind is float or kind is bool or value is None:
        h.update(b"n%r;" % value)  # repr: exact for a float; 1, 1.0 and True differ, as their results may
    elif kind is str:
        data = value.encode("utf-8", "surrogatepass")
        h.update(b"s%d;" % len(data))
        h.update(data)
    elif kind is tuple or kind is list:
        _feed_sequence(h, b"t" if kind is tuple else b"l", value)
    else:
        (_feeders.get(kind) or _feeder(kind))(h, value)


_feeders: dict[type, Callable[[Any, Any], None]] = {}  # type -> how its values are fed, worked out once per type


def _feeder(kind: type) -> Callable[[Any, Any], None]:
    name = f"{kind.__module__}.{kind.__qualname__}"
    tm = sys.modules.get("torch")
    feed: Callable[[Any, Any], None]
    if kind is bytes:
        feed = lambda h, v: h.update(b"y%d;%s" % (len(v), v))  # noqa: E731
    elif kind is dict:
        feed = _feed_dict
    elif kind is range:
        feed = lambda h, v: h.update(b"r%d;%d;%d;" % (v.start, v.stop, v.step))  # noqa: E731
    elif kind is frozenset or kind is set:
        feed = lambda h, v: h.update(b"f%d;%s" % (len(v), b"".join(sorted(identity(i) for i in v))))  # noqa: E731
    elif issubclass(kind, np.ndarray):
        feed = _feed_array
    elif issubclass(kind, np.generic):
        feed = lambda h, v: _feed(h, v.item())  # noqa: E731
    elif tm is not None and issubclass(kind, tm.Tensor):
        feed = lambda h, v: h.update(_tensor_digest(v))  # noqa: E731
    elif tm is not None and kind in (tm.device, tm.dtype):
        feed = lambda h, v: _feed(h, f"torch:{v}")  # noqa: E731
    elif (carried := IDENTITIES.get(name)) is not None:
        feed = functools.partial(_feed_carried, (name + ":").encode(), carried)
    elif dataclasses.is_dataclass(kind):
        fields = tuple(f.name for f in dataclasses.fields(kind))
        feed = functools.partial(_feed_fields, b"D%s;" % name.encode(), fields)
    elif issubclass(kind, enum.Enum):
        feed = lambda h, v: _feed(h, f"{name}.{v.name}")  # noqa: E731
    elif kind is functools.partial:
        feed = lambda h, v: _feed(h, ("partial", v.func, v.args, v.keywords))  # noqa: E731
    elif kind is types.FunctionType:
        feed = _feed_function
    elif issubclass(kind, (str, int, float)):  # a subclass: ui.i18n.Message
        base = str if issubclass(kind, str) else int if issubclass(kind, int) else float
        feed = lambda h, v: _feed(h, (name, base(v)))  # noqa: E731
    elif issubclass(kind, tuple):  # a named tuple
        feed = lambda h, v: _feed(h, (name, tuple(v)))  # noqa: E731
    elif issubclass(kind, (types.BuiltinFunctionType, type)):
        feed = lambda h, v: _feed(h, f"{getattr(v, '__module__', '')}.{v.__qualname__}")  # noqa: E731
    else:
        raise TypeError(
            f"{kind.__qualname__} has no cache identity: pass the settings it is computed from, "
            "or register its identity in ui.cache_keys.IDENTITIES"
        )
    _feeders[kind] = feed
    return feed


def _feed_dict(h: Any, value: dict) -> None:
    h.update(b"d%d;" % len(value))
    for key, item in value.items():  # in order: a figure's legend follows it
        _feed(h, key)
        _feed(h, item)


def _feed_carried(prefix: bytes, carried: Callable[[Any], str | bytes], h: Any, value: Any) -> None:
    h.update(prefix)
    _feed(h, carried(value))


def _feed_fields(prefix: bytes, names: tuple[str, ...], h: Any, value: Any) -> None:
    h.update(prefix)
    for name in names:
        _feed(h, getattr(value, name))


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

# id(code) -> (the code, its identity, the globals it reads): by id, as hashing a code object reads all of it; the
# code is kept, so that its id is not another's.
_code_keys: dict[int, tuple[types.CodeType, bytes, tuple[str, ...]]] = {}


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
    digest, names = code_key(func.__code__)
    for name in names:  # a global it reads must not be a page's variable: a learner's value left out of the key
        if name in func.__globals__ and not constant(name, func.__globals__[name]):
            raise TypeError(
                f"{func.__qualname__} reads the variable {name} of {func.__module__}: pass it as an argument"
            )
    h.update(b"F")
    h.update(digest)
    _feed(h, func.__defaults__)
    _feed(h, func.__kwdefaults__)
    for read in session_reads(func):  # the language, where it reads a translated text
        _feed(h, (f"{read.__module__}.{read.__qualname__}", read()))


def code_key(code: types.CodeType) -> tuple[bytes, tuple[str, ...]]:
    """A code object's identity (where it is, its bytecode and constants) and the globals it reads, nested
    functions' included; worked out once per code object."""
    if (known := _code_keys.get(id(code))) is None or known[0] is not code:
        h = hashlib.blake2b(digest_size=20)
        names: list[str] = []
        _feed_code(h, code, names)
        known = _code_keys[id(code)] = (code, h.digest(), tuple(dict.fromkeys(names)))
    return known[1], known[2]


def _feed_code(h: Any, code: types.CodeType, names: list[str]) -> None:
    _feed(h, (code.co_filename, code.co_qualname, code.co_firstlineno))
    h.update(code.co_code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _feed_code(h, const, names)
        else:
            _feed(h, repr(const))
    names += [i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")]
