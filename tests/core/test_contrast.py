"""WCAG 2.1 contrast ratios, against values the W3C's own examples and common tools give."""

from __future__ import annotations

import pytest

from jupyter_design_projects.core.contrast import luminance, ratio, rgb

CASES = [
    ("#000000", "#ffffff", 21.0),
    ("#fff", "#fff", 1.0),
    ("#777777", "#ffffff", 4.48),  # just under 4.5: the classic near miss
    ("#767676", "#ffffff", 4.54),  # just over
    ("#ffffff", "#388e3c", 4.12),  # the ipywidgets success button the audit found
    ("#ffffff", "#f57c00", 2.70),  # the Sign out button
    ("#e65100", "#ffffff", 3.79),  # the denied notice in the light theme
    ("#ffffff", "#2e7d32", 5.13),
]


@pytest.mark.parametrize(("first", "second", "expected"), CASES)
def test_ratio_matches_the_known_value(first, second, expected):
    assert ratio(first, second) == pytest.approx(expected, abs=0.01)
    assert ratio(second, first) == pytest.approx(expected, abs=0.01)


def test_luminance_runs_from_black_to_white():
    assert luminance("#000") == 0.0
    assert luminance("#fff") == pytest.approx(1.0)
    assert luminance((255, 255, 255)) == pytest.approx(1.0)


@pytest.mark.parametrize("bad", ["red", "#12", "#12345", "#1234567", "123456", "#ggg", ""])
def test_anything_but_hex_is_refused(bad):
    with pytest.raises(ValueError):
        rgb(bad)


def test_short_and_long_forms_agree():
    assert rgb("#abc") == rgb("#aabbcc") == (170, 187, 204)
