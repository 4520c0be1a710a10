"""Hostile links, generated: whatever a link holds, its page shows no traceback and names each value it did not use.

A link is drawn over every setting of a page (tests/app/test_links.py's SHARED, which fails when a page gains a
setting it lacks) and every other setting the page declares (lessons/<lesson>/settings.py: the pinned A, the
chapters, the windows, kept in the link by hand), their names without the page's prefix (old links), the app's own
parameters (lang, present), other pages' settings and names of no page. A value is a valid one, a number that no
box takes (inf, nan, 1e400, 10**40, ...), empty, unicode text, very long, or several values for one name.

After the link's first run: no exception element; and each parameter was used (its widget, or the value kept by
hand, holds it), named in a notice (check_link's, or the pinned A's) that says which value the page used instead, or kept in the address for a widget this
view does not draw (another chapter's, another method's: it takes it when drawn). A page that stops early
(st.stop, with an error that says why: the word embeddings page when no word of the link is known) has not
reached app.py's check_link: its notice comes with the first run that does.

Examples per page: a twentieth of the Hypothesis profile's max_examples (tests/conftest.py): 5 in CI ("ci",
derandomized: the same links every run), 100 with HYPOTHESIS_PROFILE=long.
"""

import math
import re

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from tests.app import APP
from tests.app.test_links import SHARED, declaration, in_link
from ui.class_view import FOLLOW, LEAD, PARAM
from ui.i18n import escaped
from ui.link import APP_PARAMS, ASKED, used
from ui.pages import OVERVIEW, PATH

PAGES = {lesson.script: lesson.key for lesson in (OVERVIEW, *PATH)}
EMBED = ("embed", "embed_options")  # Streamlit's own: never in st.query_params, so never the page's to name
EXAMPLES = max(settings().max_examples // 20, 1)  # per page: each is a run of the app (a second or two)
GENERATE = (Phase.explicit, Phase.reuse, Phase.generate)  # no shrinking: each step would be a run of the app too


ODD_NUMBERS = "2.9|0.5|-1.5|inf|-inf|+inf|Infinity|-Infinity|1e400|-1e400|nan|NaN|-nan|1e308|-0|9007199254740993|1.5|0x10|1_000| 7 |٣|1e-400|0|-1"
NUMBERS = st.one_of(
    st.sampled_from(ODD_NUMBERS.split("|")),
    st.integers(-(10**40), 10**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
TEXTS = st.one_of(
    st.just(""),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=20),  # a URL carries any character but a surrogate
    st.builds(lambda piece, n: piece * n, st.text("ab ,;:=&%#\n中", min_size=1, max_size=4), st.integers(100, 3000)),
)


def script_names(page: str) -> set[str]:
    """The names of the page's settings in the link ("pe_a", "pe_chapter", ...): those it declares."""
    settings = declaration(page)
    return set() if settings is None else {s.key for s in settings}


def values(example=None) -> st.SearchStrategy[list[str]]:
    """The values of one name: mostly one, valid (the setting's example) or hostile; sometimes several."""
    single = st.one_of(NUMBERS, TEXTS)
    if example is not None and not isinstance(example, list):
        single = st.one_of(st.just(in_link(example)), single)
    several = st.lists(single, min_size=2, max_size=3)
    if isinstance(example, list):  # a multiselect's: several values are one valid value
        several = st.one_of(st.just(in_link(example)), several)
    return st.one_of(single.map(lambda v: [v]), single.map(lambda v: [v]), several)


def setting(page: str, name: str) -> str:
    """The setting a link's name stands for on the page: an old link's name without the prefix gets it."""
    prefix = PAGES[page]
    return name if name in APP_PARAMS or name.startswith(f"{prefix}_") else f"{prefix}_{name}"


@st.composite
def links(draw, page: str) -> dict[str, list[str]]:
    """A link to the page: {name: [values]}."""
    examples = {"lang": "zh", "present": True, **SHARED.get(page, {})}
    own = sorted(set(SHARED.get(page, {})) | script_names(page))
    others = sorted({name for other, shared in SHARED.items() if other != page for name in shared})
    names = [st.sampled_from(APP_PARAMS), st.sampled_from(others)]
    names.append(st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=12))
    if own:
        names += [st.sampled_from(own), st.sampled_from(own), st.sampled_from(own).map(lambda n: n.split("_", 1)[1])]
    chosen = draw(
        st.lists(st.one_of(names).filter(lambda n: n.lower() not in EMBED), min_size=1, max_size=8, unique=True)
    )
    return {name: draw(values(examples.get(setting(page, name)))) for name in chosen}


def open_with(page: str, link: dict[str, list[str]]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.switch_page(page)
    for name, given_values in link.items():
        at.query_params[name] = given_values if len(given_values) > 1 else given_values[0]
    at.run()
    return at


def holds(texts: list[str], value) -> bool:
    """Whether a widget's value is what the link's texts say (a number as a number, a toggle's in any case)."""
    if isinstance(value, list | tuple):
        return len(texts) == len(value) and all(holds([a], b) for a, b in zip(texts, value, strict=True))
    if len(texts) != 1:
        return False
    if isinstance(value, bool):
        return texts[0].lower() == str(value).lower()
    if isinstance(value, int | float):
        try:
            return math.isclose(float(texts[0]), value)
        except ValueError:
            return False
    return texts[0] == str(value)


def check(page: str, link: dict[str, list[str]], at: AppTest) -> None:
    assert not at.exception, (link, [e.value for e in at.exception])
    said = "\n".join(w.value for w in at.warning)
    state = at.session_state
    if ASKED in state:  # the page stopped before app.py's check_link (st.stop: no word known): it must say why,
        assert at.error, (link, said)  # and the notice comes with the first run that reaches the page's end
        return
    for name, given_values in link.items():
        if name in (PARAM, LEAD, FOLLOW):  # a live class's: ui.live_class takes them out of the address and says
            continue  # what it did with them (tests/app/test_live_class.py: a guessed code, a forged leader link)
        key = setting(page, name)
        said_as = {name, key} | ({key.partition("_")[2]} & set(link))  # an old name and the new one: merged
        if any(re.search(rf"(?<!\w){re.escape(escaped(n))}=", said) for n in said_as):
            if key in state and f"_{key}" not in state:  # what the notice says was used is what is
                value = used(state[key])  # as English or 中文 (?lang=zh) claims it
                assert any(c in said for c in (f"{value} used", f"改用 {value}", f"使用 {value}")), (
                    key,
                    state[key],
                    said,
                )
            continue  # named (as Markdown shows a text as it is: escaped)
        if f"_{key}" in state:  # kept by hand under its own key (the pinned A): used when it holds something
            assert state[f"_{key}"] is not None, (name, given_values, said)
        elif key in state:
            assert holds(given_values, state[key]), (name, given_values, state[key], said)
        else:  # a widget this view does not draw: the value waits in the address
            assert key in script_names(page) or key in SHARED.get(page, {}), (name, given_values, said)
            assert at.query_params.get(key) in (given_values, given_values[0]), (name, given_values, said)


@pytest.mark.parametrize("page", list(PAGES))
def test_a_hostile_link_shows_no_traceback_and_names_what_it_did_not_use(page):
    @settings(max_examples=EXAMPLES, phases=GENERATE)
    @given(link=links(page))
    def run(link):
        check(page, link, open_with(page, link))

    run()
