"""The three renderings of a slide agree (issue 42 item 6): for each slide of the two
licensed talks in tests/fixtures/talks/, in both built-in looks, its preview (drawn by the
reference service's own browser code, at device scale 2), its PDF page (rasterised by
pypdfium2) and its reveal.js screenshot (Chromium, 1280x720, every fragment shown) are
compared pairwise by `deck_staged.similarity`: 1 - the mean absolute difference of their
grey levels / 255, after both are resized to a 320x180 thumbnail. A slide whose
renderings differ by more than AGREE_MIN allows (text moved, a line missing, another
background) fails. `python3 tasks.py bench deck_agree` writes the same figures into
docs/decks.md."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jupyter_design_projects.design.deck import Deck
from tests.deck_staged import AGREE_MIN, agreement

TALKS = Path(__file__).parents[1] / "fixtures" / "talks"
NOTEBOOKS = {"rise-readme": "README.ipynb", "decorators": "Decorators.ipynb"}


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("talk", sorted(NOTEBOOKS))
def test_preview_pdf_and_reveal_agree_on_every_slide(talk, theme, chromium, tmp_path):
    folder = tmp_path / talk
    shutil.copytree(TALKS / talk, folder)
    deck = Deck(client=None, project_id="p")
    deck.use_theme(theme)
    deck.add_notebook(folder / NOTEBOOKS[talk], code=True)
    rows = agreement(deck, chromium, tmp_path, theme)
    assert len(rows) >= 13
    disagree = [(path, round(min(scores), 3)) for path, *scores in rows
                if min(scores) < AGREE_MIN]
    assert disagree == []
