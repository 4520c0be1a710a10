"""Memory per request for typed text (issue 55, item 3): whatever a learner types into a page's boxes (each chapter of
sentence vectors has its own), the run's peak resident set stays under BUDGET and a new text keeps under HELD once
its run is done (the page's caches, bounded by their own max_entries, and the run's elements). Measured as
benchmarks/typed_memory.py does (labtools.memory), by memory, never by time. The input layer once peaked at +540 MiB
for 1 MB of distinct words per box (a 300,000-row table); sentence vectors kept +116 MiB for each 1 MB query."""

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from labtools.memory import PAGES, distinct_words, typed
from lessons.input_layer.settings import MOST_CHARS
from lessons.sentence_vectors import settings as sv
from tests.app import APP

BUDGET = 300  # MiB, a run's peak above the run before
HELD = 64  # MiB a new text keeps after its run


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(page=st.sampled_from(sorted(PAGES)), chars=st.integers(0, 2_000_000))
@example(page="input_layer", chars=1_000_000)
@example(page="sentence_vectors/search", chars=2_000_000)  # peaked at +548 MiB: the whole text tokenized
def test_typed_text_keeps_a_run_within_its_memory_budget(page, chars):
    peak, held = typed(page, chars)
    assert peak < BUDGET, f"{page}: {chars:,} characters per box peaked at +{peak:.0f} MiB"
    assert held < HELD, f"{page}: {chars:,} characters per box left +{held:.0f} MiB"


def test_a_sentence_list_is_typed_as_many_lines_as_the_page_reads():
    """labtools imports none of the lab's layers, so PAGES names the number; it is core's."""
    from core.sentences import MAX_SENTENCES

    assert PAGES["sentence_vectors/sentences"][3] == MAX_SENTENCES


def test_the_input_layer_says_how_much_of_a_long_box_it_reads():
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("lessons/input_layer/input_layer.py").run()
    at.text_input(key="il_pair").set_value(distinct_words(5_000)).run()
    said = [w.value for w in at.warning]
    assert any("holds 5,000 characters" in w and f"the first {MOST_CHARS:,}" in w for w in said), said
    assert at.text_input(key="il_pair").value == distinct_words(5_000) and not at.exception  # the box keeps it all


def test_sentence_vectors_say_how_much_of_a_long_text_they_read():
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(PAGES["sentence_vectors/search"][0])
    at.query_params["sv_chapter"] = "search"
    at.run()
    at.text_input(key="sv_query").set_value(distinct_words(sv.MOST_CHARS + 1)).run()
    said = [w.value for w in at.warning]
    assert any(f"holds {sv.MOST_CHARS + 1:,} characters" in w and f"the first {sv.MOST_CHARS:,}" in w for w in said)
    assert at.text_input(key="sv_query").value == distinct_words(sv.MOST_CHARS + 1) and not at.exception
