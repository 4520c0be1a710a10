"""Messages that carry a count take the form the language's plural rules ask for (CLDR's, through Babel; ui.i18n):
"1 token", "2 tokens" in English, one form in 中文 (issue 51: "Words: 1 tokens", "1 of the 5 sentences are in both
lists" and the hand-written "(s)")."""

import re
import string
from unittest.mock import patch

import pytest
from babel import Locale
from hypothesis import given
from hypothesis import strategies as st

from ui import i18n
from ui.i18n import LANGUAGES, catalog, plurals, t

COUNTS = [0, 1, 2, 5, 21]
PLURAL_KEYS = sorted(plurals("en"))
# English words a count of one is never followed by (within three words): the plural nouns of the lab's messages
PLURAL_AFTER_ONE = re.compile(
    r"\b1\**\s(?:\w+\s){0,3}?(?:tokens|sentences|lines|words|pieces|times|heads|layers|trainings|projections"
    r"|evaluations|measures|are)\b"
)


def placeholders(text: str) -> dict[str, str]:
    return {name: spec or "" for _, name, spec, _ in string.Formatter().parse(text) if name is not None}


def values_for(forms: dict[str, str], n: int) -> dict:
    """A value for every placeholder of the forms: the count for `by`, numbers where a format asks for one."""
    named = {name: spec for form, text in forms.items() if form != "by" for name, spec in placeholders(text).items()}
    return {name: 7 if spec else f"«{name}»" for name, spec in named.items()} | {forms["by"]: n}


def test_there_are_plural_messages_and_each_has_the_forms_its_language_defines():
    assert {"tt.count", "tt.handoff_title", "sv.search_shared", "sv.empty_lines", "tf.heads_named"} <= set(PLURAL_KEYS)
    for lang in LANGUAGES:
        assert set(plurals(lang)) == set(PLURAL_KEYS), lang  # the same keys have plural forms in both languages
        categories = set(Locale.parse(lang).plural_form.tags) | {"other"}
        for key, forms in plurals(lang).items():
            assert set(forms) - {"by"} == categories, (lang, key)  # en: one, other; zh: other alone
            other = placeholders(forms["other"])
            for form in categories:
                assert set(placeholders(forms[form])) == set(other), (lang, key, form)


def test_no_message_counts_with_a_hand_written_plural():
    for lang in LANGUAGES:
        for key, text in catalog(lang).items():
            assert "(s)" not in text, (lang, key)
    for key, forms in plurals("en").items():
        assert forms["one"] != forms["other"], key


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("key", PLURAL_KEYS)
@given(n=st.sampled_from(COUNTS) | st.integers(min_value=0, max_value=10**7))
def test_every_count_message_renders_its_count_in_the_right_form(lang, key, n):
    with reading(lang):
        said = t(key, **values_for(plurals(lang)[key], n))
    forms = plurals(lang)[key]
    values = values_for(forms, n)
    form = "one" if lang == "en" and n == 1 else "other"
    assert said == forms[form].format(**{k: i18n.shown(v) for k, v in values.items()})
    if forms["by"] in placeholders(forms[form]):
        spec = placeholders(forms[form])[forms["by"]]
        assert format(n, spec) in said  # the count itself, as the text formats it (1,000 with its comma)
    if lang == "en":
        assert not PLURAL_AFTER_ONE.search(said) if n == 1 else form == "other"
    assert not re.search(r"[{}]", said), said  # every placeholder filled


def reading(lang: str):
    """t() in `lang` outside a page run (ui.i18n.language reads the session)."""
    return patch.object(i18n, "language", lambda: lang)


@pytest.mark.parametrize("n", COUNTS)
def test_the_messages_the_issue_names_read_as_english(n):
    with reading("en"):
        assert t("tt.count", n=n, vocabulary="256").startswith("1 token," if n == 1 else f"{n} tokens,")
        shared = t("sv.search_shared", shared=n, k=5)
    assert shared == (f"{n} of the top 5 is in both lists." if n == 1 else f"{n} of the top 5 are in both lists.")
    with reading("zh"):
        assert t("tt.count", n=n, vocabulary="256") == f"{n} 个词元，词表大小 256"
