"""The notebook renderings' text colours: each role reads at 4.5:1 or more on every
background of its theme, and the labextension's stylesheet and the docs' dark mode carry
exactly the palette `theme.py` declares."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_design_projects.core.contrast import TEXT_MIN, ratio
from jupyter_design_projects.notebook.views.theme import (
    BACKGROUNDS,
    PALETTE,
    colour,
    palette_css,
)

ROOT = Path(__file__).resolve().parents[2]
STYLESHEET = ROOT / "labextension" / "style" / "index.css"
DOCS_CSS = ROOT / "docs" / "_static" / "jdp-palette.css"


@pytest.mark.parametrize("role", sorted(PALETTE))
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_text_colour_reads_on_every_background_of_its_theme(role, theme):
    value = PALETTE[role][0 if theme == "light" else 1]
    for background in BACKGROUNDS[theme]:
        assert ratio(value, background) >= TEXT_MIN, (role, theme, background)


def test_a_text_colour_is_our_variable_with_the_light_value_as_fallback():
    assert colour("ok") == f"var(--jdp-ok, {PALETTE['ok'][0]})"


@pytest.mark.parametrize("sheet", [STYLESHEET, DOCS_CSS], ids=["labextension", "docs"])
def test_the_stylesheets_carry_both_palettes(sheet):
    text = sheet.read_text()
    assert palette_css(dark=False) in text
    assert palette_css(dark=True) in text
