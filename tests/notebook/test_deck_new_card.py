"""`deck = %design deck new NAME` while its create card waits: the deck's cell is a live
view that says what the card did once it is answered, never the stale "awaiting its
create card" (against a real reference service)."""

from __future__ import annotations

import pytest

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def approval_mode() -> str:
    return "widget"  # every card shown, for the test to click


@pytest.fixture
def live(live, shell):
    """The conftest's `live`, with Design consent given."""
    shell.run_line_magic("design", "consent")
    return live


@pytest.mark.parametrize("answer", ["approve", "deny"])
def test_the_deck_cell_follows_its_create_card(shell, live, answer) -> None:
    deck = shell.run_line_magic("design", "deck new Follow me")
    shown = deck._repr_mimebundle_()
    assert WIDGET_VIEW in shown  # the cell shows a view the card's answer redraws
    view = deck._live
    assert "(project awaiting its create card)" in view.value
    getattr(deck.create_card, answer)()
    assert "awaiting its create card" not in view.value
    if answer == "approve":
        assert f"Deck for Follow me ({deck.project_id})" in view.value
    else:
        assert "(ended: its create card was denied)" in view.value


def test_an_opened_deck_is_plain_html(shell, live) -> None:
    deck = shell.run_line_magic("design", 'deck open "Quarterly Review Deck"')
    assert WIDGET_VIEW not in deck._repr_mimebundle_()
