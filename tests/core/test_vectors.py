"""The WordVectors type (torchtext's shape, unit rows shared through a file, read-only maps) and word lookup."""

from pathlib import Path

import numpy as np
import pytest
import torch
from torch.testing import assert_close

from core.glove import CACHE_ENV, load_bundled
from core.vectors import WordVectors, lookup_words, read_only_tensor
from tests.fixtures import FIXTURES
from tests.fixtures.make_fixtures import VECTORS


@pytest.fixture
def tiny() -> WordVectors:
    return WordVectors(list(VECTORS), torch.tensor(list(VECTORS.values())), "tiny")


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_embedding_is_from_pretrained_and_frozen(tiny):
    wv = tiny
    emb = wv.embedding()
    assert not emb.weight.requires_grad
    assert_close(emb(torch.tensor([wv.stoi["king"]]))[0], wv.get_vecs_by_tokens("king"))
    assert_close(wv.get_vecs_by_tokens(["king", "unicorn"])[1], torch.zeros(4))


def test_lookup_lowercases_normalises_and_reports(tiny):
    wv = tiny
    out = lookup_words(wv, "King, queen queen ｋｉｎｇ unicorn, DOG unicorn")
    assert out.found == ["king", "queen", "dog"]
    assert out.unknown == ["unicorn"] and out.lowered == ["King", "DOG"]
    assert out.duplicates == ["queen", "ｋｉｎｇ"] and out.left_out == []
    out = lookup_words(wv, "king queen man queen woman", most=2)
    assert out.found == ["king", "queen"] and out.left_out == ["man", "woman"] and out.duplicates == ["queen"]


def mapping_of(tensor: torch.Tensor) -> tuple[str, str]:
    """(permissions, file) of the memory mapping that holds the tensor's first byte, from /proc/self/maps."""
    address = tensor.data_ptr()
    for line in Path("/proc/self/maps").read_text().splitlines():
        fields = line.split(maxsplit=5)
        start, end = (int(a, 16) for a in fields[0].split("-"))
        if start <= address < end:
            return fields[1], fields[5] if len(fields) == 6 else ""
    raise AssertionError("the tensor's memory is in no mapping")


def test_unit_rows_are_written_once_and_mapped_read_only(cache):
    wv = load_bundled()
    expected = wv.vectors.numpy() / np.linalg.norm(wv.vectors.numpy(), axis=1, keepdims=True)
    assert_close(wv.unit, torch.from_numpy(expected))
    (written,) = cache.glob("*.unit.npy")
    permissions, file = mapping_of(wv.unit)
    assert permissions.startswith("r-") and Path(file) == written
    mtime = written.stat().st_mtime_ns
    again = load_bundled()  # another process: maps the file, writes nothing
    assert mapping_of(again.unit)[1] == str(written) and written.stat().st_mtime_ns == mtime
    assert_close(again.unit, wv.unit)


def test_unit_rows_stay_in_memory_where_the_cache_cannot_be_written(tmp_path):
    (tmp_path / "a_file").write_text("")
    vectors = torch.tensor([[3.0, 4.0], [0.0, 0.0]])
    wv = WordVectors(["a", "zero"], vectors, "tiny", tmp_path / "a_file" / "unit.npy")
    assert_close(wv.unit, torch.tensor([[0.6, 0.8], [0.0, 0.0]]))


def test_nothing_in_core_writes_to_word_vectors(tmp_path):
    """Every core function that reads word vectors, on a read-only map: a write would crash the process."""
    from core import cloud, embeddings, evaluate, projection

    itos = list(VECTORS)
    np.save(tmp_path / "vectors.npy", np.array(list(VECTORS.values()), np.float32))
    before = (tmp_path / "vectors.npy").read_bytes()
    wv = WordVectors(itos, read_only_tensor(np.load(tmp_path / "vectors.npy", mmap_mode="r")), "ro", tmp_path / "u.npy")
    assert mapping_of(wv.vectors)[0].startswith("r-")
    assert mapping_of(wv.unit)[0].startswith("r-")

    assert projection.analogy(wv, "man", "woman", "king", 1)[0][0] == "queen"
    for metric in projection.METRICS:
        projection.nearest(wv, wv.vectors[3], 3, metric=metric, exclude=[3])
    projection.difference_axes(wv, ["king", "queen"], ("man", "woman"), ("boy", "man"))
    projection.pca(wv.get_vecs_by_tokens(["king", "queen", "cat"]).numpy(), 2, fit_on=wv.vectors[:10].numpy())
    wv.embedding()(torch.tensor([1, 2])).sum()
    cloud.neighbours(wv, "king", 3)
    cloud.suggest(wv, "kng")
    cloud.cloud_rows(wv, 5, ["cat"])
    cloud.resolve_groups(wv, {"royal": ["king", "queen"]})
    questions = evaluate.read_questions((FIXTURES / "analogies_tiny.txt").read_text())
    assert evaluate.evaluate_analogies(wv, questions)["correct"] > 0
    evaluate.evaluate_similarity(wv, evaluate.read_pairs((FIXTURES / "pairs_tiny.tsv").read_text()))
    layer, _, tokens = embeddings.build_input_layer(["the king and the queen"], wv, embeddings.LayerConfig(dropout=0.0))
    layer(torch.tensor([tokens[0].ids])).sum().backward()
    assert (tmp_path / "vectors.npy").read_bytes() == before
