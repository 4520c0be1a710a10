"""The embedding space's cloud holds at most 20,000 words (core.cloud.SIZES' largest), its own groups' words
outside the most frequent ones included: a link or a paste of many grouped words no longer grows it past that."""

import pytest

from tests.app import open_link
from tests.app.embedding_space_view import drawn, stated
from ui.vectors import bundled_vectors

PAGE = "lessons/embedding_space/embedding_space.py"


@pytest.mark.parametrize(("size", "grouped"), [(20_000, 10_000), (5000, 16_000)])
def test_grouped_words_count_against_the_cloud_s_cap_and_the_bound_is_said(size, grouped):
    wv = bundled_vectors()
    plain = (w for w in wv.itos[30_000:] if w.isalpha() and w.islower())  # read back as themselves from a box
    rare = [next(plain) for _ in range(grouped)]  # outside the most frequent words asked
    own = f"rare: {' '.join(rare[: grouped // 2])}\nrarer: {' '.join(rare[grouped // 2 :])}"
    at = open_link(PAGE, {"es_size": str(size), "es_words": "king", "es_groups": "", "es_own_groups": own})
    past = size + grouped - 20_000  # "king" is among the most frequent words: only the grouped ones are added
    (said,) = [w.value for w in at.warning if "holds at most 20,000 words" in w.value]
    assert f"{past:,} grouped words past that are left out" in said
    assert stated(at) == len(drawn(at)) == 20_000


def test_grouped_words_within_the_cap_are_all_drawn():
    wv = bundled_vectors()
    rare = [w for w in wv.itos[30_000:30_200] if w.isalpha() and w.islower()][:100]
    at = open_link(
        PAGE, {"es_size": "500", "es_words": "", "es_groups": "", "es_own_groups": "rare: " + " ".join(rare)}
    )
    assert not [w for w in at.warning if "holds at most" in w.value]
    assert stated(at) == len(drawn(at)) == 600
