"""WCAG 2.1 contrast: the relative luminance of an sRGB colour and the contrast ratio of
two colours (1.4.3 asks 4.5:1 for text, 1.4.11 asks 3:1 for a focus ring or a control's
edge). Colours are `#rgb` or `#rrggbb` strings; nothing else is accepted."""

from __future__ import annotations

import re

#: WCAG 2.1 minimums: normal text, and non-text (focus indicators, control edges)
TEXT_MIN = 4.5
NON_TEXT_MIN = 3.0

_HEX = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


def rgb(colour: str) -> tuple[int, int, int]:
    """`#rgb` / `#rrggbb` as three 0–255 channels (ValueError for anything else)."""
    match = _HEX.fullmatch(colour.strip())
    if match is None:
        raise ValueError(f"not a #rgb or #rrggbb colour: {colour!r}")
    digits = match.group(1)
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str | tuple[int, int, int]) -> float:
    """The relative luminance (0 black … 1 white) of a colour."""
    r, g, b = rgb(colour) if isinstance(colour, str) else colour
    return 0.2126 * _linear(r) + 0.7152 * _linear(g) + 0.0722 * _linear(b)


def ratio(first: str | tuple[int, int, int], second: str | tuple[int, int, int]) -> float:
    """The contrast ratio of two colours, from 1.0 (the same) to 21.0 (black on white)."""
    a, b = sorted((luminance(first), luminance(second)), reverse=True)
    return (a + 0.05) / (b + 0.05)
