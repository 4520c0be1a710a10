"""Every vectors file is sized before it is believed: what it will take in memory is worked out from its bytes before
anything is allocated, and a file over its budget is refused with a message that says so.

The budget of a file of B bytes is MEMORY_MULTIPLE * B + MEMORY_SLACK, and for an upload never above MAX_MEMORY:

- a text file: its rows (lines holding a word) and its width are counted first; it takes vectors_bytes(rows, dim)
  (core.glove.parse_glove_text);
- a torchtext `.pt`: its zip directory is read first (every entry stored, none compressed, none larger than the
  file), its pickle is walked opcode by opcode without building anything (scan_pickle: an upper bound on the
  objects it would build, and only the globals a torchtext cache holds), then torch.load(weights_only=True) reads
  it; its tensor must not overlap itself (a stride of 0 or overlapping strides make a few stored numbers look like
  billions) and its float32 copy must fit the budget too (check_tensor).
"""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import torch
from torch import Tensor

from core.problems import Problem

MEMORY_MULTIPLE = 16  # a file of B bytes may become at most 16 B (+ the slack) in memory
MEMORY_SLACK = 32 * 2**20  # so that a small file of a few wide rows is not refused for its size
MAX_MEMORY = 200 * 2**20  # for an upload, whatever its size: with what the interpreter keeps of a load, under 300 MB
# A word in memory: its str (about 56 bytes for a short word), its slot in the word list (8) and its stoi entry
# (about 100 with the index, an int object); rounded up.
WORD_BYTES = 200


class VectorsError(Problem):
    """A vectors source that cannot be read, with what to do about it."""


def memory_budget(size: int, *, upload: bool) -> int:
    """The most memory a vectors file of `size` bytes may take: MEMORY_MULTIPLE * size + MEMORY_SLACK, for an
    upload at most MAX_MEMORY."""
    budget = MEMORY_MULTIPLE * size + MEMORY_SLACK
    return min(budget, MAX_MEMORY) if upload else budget


def vectors_bytes(rows: int, dim: int) -> int:
    """What `rows` words of `dim` dimensions take in memory once a page uses them: the float32 matrix, its rows
    scaled to length 1 (WordVectors.unit, made for the first cosine) and the words."""
    return rows * (2 * 4 * dim + WORD_BYTES)


def check_memory(name: str, need: int, size: int, *, upload: bool, rows: int, dim: int) -> None:
    """Refuse a file whose vectors would take more than its memory_budget."""
    most = memory_budget(size, upload=upload)
    if need > most:
        raise VectorsError(
            "vectors_too_much_memory",
            name=name,
            rows=rows,
            dim=dim,
            mb=_mb(need),
            most=_mb(most),
            size=_mb(size),
            multiple=MEMORY_MULTIPLE,
            cap=_mb(MAX_MEMORY),
        )


def _mb(n: int) -> str:
    return f"{n / 2**20:,.1f}"


# --- torchtext .pt files ------------------------------------------------------------------------------------------

# The globals a torchtext cache (or a tensor saved as a Parameter, sparse or on the meta device: refused later with
# their own message) names; anything else is refused before torch.load sees it.
REBUILDS = {"_rebuild_tensor_v2", "_rebuild_parameter", "_rebuild_sparse_tensor", "_rebuild_meta_tensor_no_storage"}
STORAGES = {
    f"{kind}Storage"
    for kind in ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")
    + ("ComplexFloat", "ComplexDouble")
}


def _allowed_global(module: str, name: str) -> bool:
    if module == "torch._utils":
        return name in REBUILDS
    if module == "torch":
        return name in STORAGES or name == "Size" or isinstance(getattr(torch, name, None), torch.dtype)
    return (module, name) in {("collections", "OrderedDict"), ("torch.serialization", "_get_layout")}


# Pickle opcodes of protocol 2 that torch's weights-only unpickler reads: (bytes of argument, or a reader of a
# length-prefixed one; most bytes the object it pushes may take, its slot on the stack and later in a list or dict
# included). Every opcode is charged as if nothing were ever freed, so the sum bounds the unpickler's peak.
SLOT = 72  # a stack slot (8), then a dict entry with its share of the table (64)
_FIXED = {
    b"N"[0]: (0, SLOT),  # NONE
    0x88: (0, SLOT),  # NEWTRUE
    0x89: (0, SLOT),  # NEWFALSE
    b")"[0]: (0, SLOT),  # EMPTY_TUPLE (shared)
    b"]"[0]: (0, SLOT + 56),  # EMPTY_LIST
    b"}"[0]: (0, SLOT + 64),  # EMPTY_DICT
    0x8F: (0, SLOT + 216),  # EMPTY_SET
    b"("[0]: (0, 64),  # MARK: a new stack
    b"t"[0]: (0, SLOT + 40),  # TUPLE
    0x85: (0, SLOT + 48),  # TUPLE1
    0x86: (0, SLOT + 56),  # TUPLE2
    0x87: (0, SLOT + 64),  # TUPLE3
    b"a"[0]: (0, 0),  # APPEND: moves a slot already charged
    b"e"[0]: (0, 0),  # APPENDS
    b"s"[0]: (0, 0),  # SETITEM
    b"u"[0]: (0, 0),  # SETITEMS
    b"R"[0]: (0, 1024),  # REDUCE: a tensor, an OrderedDict, a Size
    0x81: (0, 1024),  # NEWOBJ
    b"b"[0]: (0, 1024),  # BUILD
    b"Q"[0]: (0, 1024),  # BINPERSID: a storage (its bytes are the file's, counted apart)
    b"J"[0]: (4, SLOT + 32),  # BININT
    b"K"[0]: (1, SLOT),  # BININT1 (small ints are shared)
    b"M"[0]: (2, SLOT + 32),  # BININT2
    b"G"[0]: (8, SLOT + 24),  # BINFLOAT
    b"h"[0]: (1, SLOT),  # BINGET
    b"j"[0]: (4, SLOT),  # LONG_BINGET
    b"q"[0]: (1, 112),  # BINPUT: a memo entry with its int key
    b"r"[0]: (4, 112),  # LONG_BINPUT
    0x80: (1, 0),  # PROTO
}
_BINUNICODE, _SHORT_BINSTRING, _LONG1, _GLOBAL, _STOP = b"X"[0], b"U"[0], 0x8A, b"c"[0], b"."[0]


def scan_pickle(data: bytes | memoryview, name: str, *, most: int | None = None) -> int:
    """Walk a protocol-2 pickle without building anything: an upper bound on the bytes torch's weights-only unpickler
    would allocate for it. Refuses an opcode that unpickler does not read and a global a torchtext cache never names;
    stops as soon as the bound passes `most` (returning it), so a huge pickle is not walked to its end.
    """
    at, need, end = 0, 0, len(data)
    fixed = _FIXED
    while at < end:
        if most is not None and need > most:
            return need
        op = data[at]
        at += 1
        if op in fixed:
            length, cost = fixed[op]
            at += length
            need += cost
        elif op == _BINUNICODE:
            (n,) = struct.unpack_from("<I", data, at)
            text = bytes(data[at + 4 : at + 4 + n])
            at += 4 + n
            need += SLOT + 80 + (n if text.isascii() else 4 * n)
        elif op in (_SHORT_BINSTRING, _LONG1):
            n = data[at] if at < end else 0
            at += 1 + n
            need += SLOT + 48 + n
        elif op == _GLOBAL:
            line = bytes(data[at : at + 512])  # a module and a name, each on its line
            stop = line.find(b"\n", line.find(b"\n") + 1)
            if stop < 0:
                break
            stop += at
            module, _, attr = bytes(data[at:stop]).decode("ascii", "replace").partition("\n")
            if not _allowed_global(module, attr):
                raise VectorsError("vectors_pt_global", name=name, what=f"{module}.{attr}"[:120])
            at = stop + 1
            need += SLOT
        elif op == _STOP:
            return need
        else:
            raise VectorsError("vectors_refused", name=name, detail=f"pickle opcode {bytes([op])!r} at byte {at - 1}")
    raise VectorsError("vectors_refused", name=name, detail="the pickle ends before its STOP")


def check_torch_file(source: bytes | Path, name: str, *, upload: bool) -> None:
    """Size a `.pt` before torch.load reads it: its zip directory and its pickle.

    A torch.save file is a zip archive whose entries are stored as they are, so nothing in it can grow when read:
    an entry that is compressed, or that claims more bytes than the whole file, is refused. The pickle's objects
    (scan_pickle) with the tensors' bytes (what torch.load holds at once), and twice the tensors' bytes (the vectors
    and, later, their unit rows; the pickle's stoi and memo are gone by then) must each fit the file's memory_budget.
    """
    size = len(source) if isinstance(source, bytes) else source.stat().st_size
    most = memory_budget(size, upload=upload)
    try:
        with zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source) as archive:
            entries = archive.infolist()
            for entry in entries:
                if entry.compress_type != zipfile.ZIP_STORED:
                    raise VectorsError("vectors_pt_compressed", name=name, entry=entry.filename[:120])
                if entry.file_size > size or entry.compress_size != entry.file_size:
                    raise VectorsError(
                        "vectors_pt_lying", name=name, entry=entry.filename[:120], n=entry.file_size, size=size
                    )
            pickles = [e for e in entries if e.filename.endswith("/data.pkl") or e.filename == "data.pkl"]
            if len(pickles) != 1:
                raise VectorsError("vectors_not_cache", name=name)
            tensors = sum(e.file_size for e in entries if e is not pickles[0])
            if tensors > size:
                raise VectorsError("vectors_pt_lying", name=name, entry="*", n=tensors, size=size)
            objects = scan_pickle(_stored(source, archive, pickles[0]), name, most=most - tensors)
            need = max(objects + tensors, 2 * tensors)
    except VectorsError:
        raise
    except Exception as err:  # zipfile on made-up bytes: BadZipFile, NotImplementedError (version), RuntimeError...
        raise VectorsError("vectors_pt_not_zip", name=name, detail=str(err)[:200]) from None
    if need > most:
        raise VectorsError("vectors_pt_too_much_memory", name=name, mb=_mb(need), most=_mb(most), size=_mb(size))


def _stored(source: bytes | Path, archive: zipfile.ZipFile, entry: zipfile.ZipInfo) -> bytes | memoryview:
    """A stored entry's bytes without copying them out of an upload (its local header says where they start)."""
    if not isinstance(source, bytes):
        return archive.read(entry)
    header = source[entry.header_offset : entry.header_offset + 30]
    if len(header) < 30 or header[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"no local header for {entry.filename}")
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    start = entry.header_offset + 30 + name_length + extra_length
    return memoryview(source)[start : start + entry.file_size]


def overlaps(tensor: Tensor) -> bool:
    """Whether two of a strided tensor's elements share a stored number (a stride of 0, or strides that overlap).

    Sorted by stride, each dimension of size > 1 must step past everything the dimensions before it cover.
    """
    dims = sorted((stride, n) for n, stride in zip(tensor.shape, tensor.stride(), strict=True) if n > 1)
    covered = 1  # elements spanned so far
    for stride, n in dims:
        if stride < covered:
            return True
        covered = stride * (n - 1) + covered
    return False


def check_tensor(vectors: Tensor, name: str, size: int, *, upload: bool) -> None:
    """Refuse a loaded (n, dim) strided tensor whose values share stored numbers, or whose float32 copy (with the
    words) would not fit the file's memory_budget."""
    if overlaps(vectors):
        stored = vectors.untyped_storage().nbytes() // max(vectors.element_size(), 1)
        raise VectorsError(
            "vectors_pt_view",
            name=name,
            shape=" × ".join(map(str, vectors.shape)),
            stride=", ".join(map(str, vectors.stride())),
            n=vectors.numel(),
            stored=stored,
        )
    rows, dim = vectors.shape
    # a float32 copy is made unless the tensor already is one, row after row; its storage is held meanwhile
    copied = not (vectors.dtype == torch.float32 and vectors.is_contiguous())
    held = vectors.untyped_storage().nbytes() if copied else 0
    check_memory(name, vectors_bytes(rows, dim) + held, size, upload=upload, rows=rows, dim=dim)
