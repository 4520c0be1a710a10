"""Every number box and text box of every page at the ends of its range and at values a typo gives.

Each page's own tests check its messages; this one walks every box (in every chapter of a page that has them), so
that a box added later is covered too. Random moves of the widgets and links found what it guards against: RoPE's
head_dim 2 with dynamic NTK and a llama3 low_freq_factor of 0 divided by zero, and a head_dim or head count of
10^9 took gigabytes of memory (this test's process was killed) where a shared server needs a message.
"""

from collections.abc import Sequence

import pytest

from ui.pages import LESSONS

TEXTS = ("", "abc", "nan", "-1", "1e400")


def number_edges(box) -> list[float]:
    """The box's own ends (10^9 and -10^9 where it has none), and -1, 0, 1 and 2 where they are inside them."""
    lo = box.proto.min if box.proto.has_min else -(10**9)
    hi = box.proto.max if box.proto.has_max else 10**9
    return sorted({min(max(v, lo), hi) for v in (lo, -1, 0, 1, 2, hi)})


def try_every_box(at) -> int:
    """Each box of the page as it stands, through its edge values and back; returns how many boxes there were."""
    boxes: list[tuple[str, str, Sequence[float | str]]]
    boxes = [("number_input", box.key, number_edges(box)) for box in at.number_input]
    boxes += [(kind, box.key, TEXTS) for kind in ("text_input", "text_area") for box in at.get(kind)]
    for kind, key, values in boxes:
        kept = find(at, kind, key).value
        for value in values:
            find(at, kind, key).set_value(value).run()
            assert not at.exception, f"{key} = {value!r}: {at.exception[0].message}"
        # set back, and run with the next box's first value: the next box is tried on an otherwise valid page
        find(at, kind, key).set_value(kept)
    at.run()  # the page left valid, for the next chapter's boxes
    return len(boxes)


def find(at, kind: str, key: str):
    """The box by its key. A box whose callback reruns a fragment alone (the rotary page's scaling settings) leaves
    AppTest holding that fragment's elements alone, where the browser keeps the page: the page is then run whole."""
    try:
        return getattr(at, kind)(key=key)
    except KeyError:
        return getattr(at.run(), kind)(key=key)


@pytest.mark.parametrize("page", [lesson.script for lesson in LESSONS.values()])
def test_every_box_at_its_edges_gives_a_message_not_a_traceback(open_page, page):
    at = open_page(page)
    chapters = [group.key for group in at.button_group if group.key.endswith("_chapter")]  # shown one at a time
    tried = 0
    for chapter in at.button_group(key=chapters[0]).options if chapters else [None]:
        if chapter is not None:
            at.button_group(key=chapters[0]).set_value(chapter).run()
        tried += try_every_box(at)
    assert tried >= 2
