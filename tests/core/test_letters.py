"""core.letters: which characters of other scripts a segment or a name may hold — the
script of a letter, stacked and lone marks, look-alike script mixes, the escaped form."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core import letters

ACUTE, CIRCUMFLEX, TILDE = "\u0301", "\u0302", "\u0303"
#: Devanagari KA and two spacing vowel signs (category Mc)
KA, AA, II = "\u0915", "\u093e", "\u0940"


@pytest.mark.parametrize(("char", "found"), [
    ("a", "LATIN"), ("\u0430", "CYRILLIC"), ("\u5e7b", "CJK"), (KA, "DEVANAGARI"),
    ("\U00017000", "UNKNOWN"),  # a Tangut ideograph: a letter unicodedata has no name for
    ("1", None), (".", None), (ACUTE, None),
])
def test_the_script_of_a_letter_is_the_first_word_of_its_name(char, found) -> None:
    assert letters.script(char) == found


@pytest.mark.parametrize(("value", "rule"), [
    ("cafe" + ACUTE, None),
    ("a" + ACUTE + CIRCUMFLEX, None),                      # two marks on one letter
    ("a" + ACUTE + CIRCUMFLEX + TILDE, "invisible_character"),
    ("a" + ACUTE + "e" + CIRCUMFLEX + "i" + TILDE, None),  # one mark on each of three
    ("a" + ACUTE + "b" + CIRCUMFLEX + TILDE, None),
    (ACUTE + "a", "invisible_character"),                  # a mark on nothing
    ("a " + ACUTE, "invisible_character"),
    (KA + AA, None),
    (KA + AA + II + AA, "invisible_character"),            # three spacing marks
    (AA + KA, "invisible_character"),
])
def test_marks_stand_on_a_letter_two_at_most(value, rule) -> None:
    assert letters.marks_rule(value) == rule


@pytest.mark.parametrize(("value", "rule"), [
    ("Ace", None),
    ("\u0410\u0441\u0435", "whole_script_confusable"),  # Cyrillic letters that read "Ace"
    ("\u0410\u0441\u0435\u0434", None),                  # … and one that reads as none
    ("p\u0430y", "mixed_script"),
    ("caf\u00e9 \u5e7b\u706f", None),                    # Han mixes freely with Latin
    ("123", None),
])
def test_script_mixes_and_whole_script_look_alikes(value, rule) -> None:
    assert letters.script_rule(value) == rule


def test_escaped_form_uses_four_digits_up_to_ffff_and_eight_beyond() -> None:
    assert letters.escaped("a\u00e9\uffff\U00010000") == "a\\u00e9\\uffff\\U00010000"


@pytest.mark.parametrize(("code", "selector"), [
    (0xFDFF, False), (0xFE00, True), (0xFE0F, True), (0xFE10, False),
    (0xE00FF, False), (0xE0100, True), (0xE01EF, True), (0xE01F0, False),
])
def test_variation_selectors_are_both_blocks_exactly(code, selector) -> None:
    assert letters.is_selector(code) is selector
