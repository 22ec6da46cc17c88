"""Tests of jupyter_design_projects/design/deck/: decks staged, pushed and exported."""
