"""Every check a person can trip is a translatable Problem: its key has a text in every locale, with the same
placeholders, and the settings dataclasses raise one when they are made."""

import functools
import re
import tomllib
from pathlib import Path

import pytest

from core.cloud import CloudConfig
from core.positional import PEConfig
from core.problems import Problem, english
from core.rotary import rope_inv_freq
from core.training import TrainConfig

LOCALES = Path(__file__).resolve().parents[2] / "locales"


@functools.cache
def zh_problems() -> dict[str, str]:
    with open(LOCALES / "zh.toml", "rb") as f:
        return tomllib.load(f)["problems"]


def placeholders(text: str | dict[str, str]) -> set[str]:
    """A text's placeholders; a text with plural forms (ui.i18n), its `other` form's."""
    return set(re.findall(r"\{(\w+)", text if isinstance(text, str) else text["other"]))


@pytest.mark.parametrize(("n", "said"), [(1, "only 1 word."), (2, "only 2 words."), (0, "only 0 words.")])
def test_a_problem_with_a_count_reads_in_its_plural_form(n, said):
    assert str(Problem("analogy_words", n=n)).endswith(said)


def test_every_problem_has_a_chinese_text_with_the_same_placeholders():
    assert english().keys() == zh_problems().keys()
    for key, text in english().items():
        assert placeholders(text) == placeholders(zh_problems()[key]), key


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: PEConfig(layout="zigzag"), "column layout must be one of interleaved, concatenated"),
        (lambda: TrainConfig(position="rotary"), "positions must be one of"),
        (lambda: TrainConfig(task="sort"), "task must be one of"),
        (lambda: rope_inv_freq(64, 10000.0, {"rope_type": "ntk-by-parts"}), "RoPE scaling must be one of"),
        (lambda: CloudConfig(method="LDA"), "method must be one of"),
    ],
)
def test_a_choice_outside_its_list_is_a_problem_naming_the_choices(make, words):
    with pytest.raises(Problem, match=words) as caught:
        make()
    assert caught.value.key in zh_problems()
