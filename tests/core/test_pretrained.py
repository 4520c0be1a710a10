"""The real learned position table of all-MiniLM-L6-v2, read with safetensors alone."""

import subprocess
import sys
from pathlib import Path

import torch
from torch.testing import assert_close

from core.positional import similarity_by_offset, sinusoidal_encoding
from core.pretrained import minilm_position_table


def test_shape_and_first_values():
    table = minilm_position_table()
    assert table.shape == (512, 384) and table.dtype == torch.float32
    assert_close(table[0, :4], torch.tensor([-0.0856, -0.0329, -0.0170, 0.1042]), atol=1e-4, rtol=0)
    assert_close(table[1, :4], torch.tensor([-0.0327, 0.0023, 0.0211, 0.0187]), atol=1e-4, rtol=0)


def test_reading_the_table_imports_no_transformers():
    """In a fresh process: other tests import transformers on purpose, so sys.modules here proves nothing."""
    code = "import sys; from core.pretrained import minilm_position_table; minilm_position_table(); "
    code += "assert 'transformers' not in sys.modules, 'transformers was imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])


def test_similarity_by_offset_against_a_direct_mean():
    table = sinusoidal_encoding(50, 16)
    curve = similarity_by_offset(table, 5)
    unit = table / table.norm(dim=1, keepdim=True)
    assert_close(curve[3], torch.stack([unit[m] @ unit[m + 3] for m in range(47)]).mean())
    assert_close(curve[0], torch.tensor(1.0))
