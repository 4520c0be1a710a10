"""Every link's work is bounded (issue 40): whatever a link to the MiniLM page or to the rotary page asks for, its run
ends, shows no traceback and no partial chart, and leaves the process holding little more memory than before.

"Ends" is a hang detector, not a timing: AppTest fails a run that takes longer than HANG_S (a link once held a server
thread for more than 8 minutes). "Little more memory" is the process's resident size after a garbage collection and
malloc_trim (ui.sessions.release_free_memory, as the server's session reaper does), measured around one link's run:
at most HELD_MIB more (four 510-token sentences once held 1.98 GB for 15 minutes). The pages' caches keep at most
one long sentence's runs (lessons/real_transformer/views.py), so each link adds at most that, whatever came before it.

Examples: a twelfth of the Hypothesis profile's max_examples (tests/conftest.py), 8 per page in CI (derandomized),
each a run of the app; no shrinking, where each step would be another run.
"""

import gc
import json
import os

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from core import probes
from core.rotary import SCALINGS
from tests.app import APP
from tests.figures.plotly_json import array
from ui.sessions import release_free_memory

HANG_S = 120  # no link may make a page take longer (issue 40's bound: 2 minutes)
HELD_MIB = 300  # nor hold more memory after it
EXAMPLES = max(settings().max_examples // 12, 1)
GENERATE = (Phase.explicit, Phase.generate)
MINILM, ROTARY = "lessons/real_transformer/real_transformer.py", "lessons/rotary/rotary.py"


def resident_mib() -> float:
    """This process's resident memory, from /proc/self/statm (Linux)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def settled_mib() -> float:
    gc.collect()
    release_free_memory()
    return resident_mib()


def open_link(page: str, link: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=HANG_S)
    at.switch_page(page)
    for name, value in link.items():
        at.query_params[name] = value
    at.run()  # raises past HANG_S
    assert not at.exception, (link, at.exception)
    return at


def held_by(page: str, link: dict[str, str], check) -> float:
    """The memory (MiB) the process holds more after opening the link, once the learner's session is gone."""
    before = settled_mib()
    at = open_link(page, link)
    check(at, link)
    del at
    return settled_mib() - before


def charts(at) -> list[dict]:
    sent = [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.component_name == "live_chart"]
    return [json.loads(data["figure"]) for data in sent]


@pytest.fixture(scope="module", autouse=True)
def warm():
    """The model, the tables and the libraries loaded once, before anything is measured."""
    if not os.path.exists("/proc/self/statm"):
        pytest.skip("resident memory is read from /proc (Linux)")
    for chapter in ("heads", "positions", "context"):
        open_link(MINILM, dict(tf_chapter=chapter))
    open_link(ROTARY, {})


# --- The MiniLM page -----------------------------------------------------------------------------------------------

PIECES = st.sampled_from(["bank ", "bank\n", "I love you. ", "unbelievably ", "😀 ", "中文", "a,", "[SEP] ", "\n", "x"])
REPEATED = st.builds(lambda piece, n: piece * n, PIECES, st.integers(0, 600))  # up to past MiniLM's 512 positions
TEXT = st.one_of(REPEATED, st.text(st.characters(exclude_categories=["Cs"]), max_size=30))
NUMBER = st.sampled_from(["0", "1", "3", "12", "-1", "1e300", "nan", "2147483648"])


@st.composite
def minilm_links(draw) -> dict[str, str]:
    link = dict(tf_chapter=draw(st.sampled_from(["heads", "positions", "context"])), tf_sentence=draw(TEXT))
    optional = dict(
        tf_pair=TEXT,
        tf_yours=st.sampled_from(["true", "false"]),
        tf_uses=st.one_of(TEXT, st.lists(TEXT, max_size=12).map("\n".join)),
        tf_word=st.one_of(st.sampled_from(["bank", "I", "you", "unbelievably", "😀"]), TEXT),
        tf_seed=NUMBER,
        tf_layer=NUMBER,
        tf_head=NUMBER,
        tf_k=NUMBER,
    )
    for name in draw(st.lists(st.sampled_from(sorted(optional)), unique=True)):
        link[name] = draw(optional[name])
    return link


def minilm_shown(at, link) -> None:
    """At most MAX_FOUND uses compared: MAX_FOUND * (MAX_FOUND - 1) / 2 curves."""
    if link["tf_chapter"] == "context" and charts(at) and not at.error:
        most = probes.MAX_FOUND
        assert len(charts(at)[0]["data"]) <= most * (most - 1) // 2, link


@settings(max_examples=EXAMPLES, phases=GENERATE)
@given(link=minilm_links())
def test_any_link_to_the_minilm_page_ends_and_holds_little_memory(link):
    held = held_by(MINILM, link, minilm_shown)
    assert held < HELD_MIB, (link, held)


def test_a_510_token_sentence_on_the_positions_chapter_holds_under_the_bound():
    # issue 40: four such sentences held 1.98 GB for 15 minutes (five runs of 81 MB kept per sentence, 386 MiB
    # measured here); a second one replaces the first (lessons/real_transformer/views.py keeps one long sentence's runs)
    held = held_by(MINILM, dict(tf_chapter="positions", tf_sentence="bank " * 510), minilm_shown)
    assert held < HELD_MIB, held


# --- The rotary page -----------------------------------------------------------------------------------------------

EXTREME = ["1e300", "1e-300", "1e100", "1e30", "1e24", "1e-30", "1.0000001", "1", "0", "-1", "inf", "nan", "1e400"]
ROPE_NUMBER = st.one_of(
    st.sampled_from(EXTREME),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(2**63), 2**63).map(str),
)
SETTINGS = ("rp_base", "rp_factor", "rp_head_dim", "rp_original", "rp_target", "rp_low_freq", "rp_high_freq")
OTHERS = ("rp_positions", "rp_distance", "rp_seed", "rp_heads", "rp_alibi_len", "rp_pair", "rp_head")


@st.composite
def rotary_links(draw) -> dict[str, str]:
    link = dict(rp_method=draw(st.sampled_from(SCALINGS)))
    for name in draw(st.lists(st.sampled_from(SETTINGS + OTHERS), min_size=1, max_size=6, unique=True)):
        link[name] = draw(ROPE_NUMBER)
    return link


def rotary_shown(at, link) -> None:
    """Every value drawn is finite; the RoPE sections are drawn whole (four charts with ALiBi's) or named in an
    error."""
    drawn = charts(at)
    for chart in drawn:
        for trace in chart["data"]:
            for axis in ("x", "y", "z"):
                if axis in trace:
                    values = array(trace[axis]).astype(float)
                    assert np.isfinite(values[~np.isnan(values)] if axis == "z" else values).all(), (link, axis)
    assert len(drawn) >= 4 or at.error, link


@settings(max_examples=EXAMPLES, phases=GENERATE)
@given(link=rotary_links())
def test_any_link_to_the_rotary_page_draws_finite_charts_or_names_the_setting(link):
    held = held_by(ROTARY, link, rotary_shown)
    assert held < HELD_MIB, (link, held)
