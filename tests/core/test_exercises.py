"""core.exercises without a page: the answers that read the word vectors say so when called without them.

Every answer against independent computations, and on its page: tests/app/test_exercises.py.
"""

import pytest

from core.exercises import EXERCISES

NEED_VECTORS = ("we_analogy", "we_frog", "we_king_row", "es_queen", "es_count", "es_kept_3d", "at_shift")


def test_an_answer_that_needs_the_vectors_says_so_without_them():
    """Found by mypy: answer(None) failed inside the answer (None.stoi, or deep in cloud.neighbours)."""
    by_key = {e.key: e for page in EXERCISES.values() for e in page}
    for key in NEED_VECTORS:
        with pytest.raises(ValueError, match="needs the word vectors"):
            by_key[key].answer(None)
    repeat = by_key["pe_repeat"].answer(None)  # the others need none
    assert isinstance(repeat, int | float) and repeat > 0
