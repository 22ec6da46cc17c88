"""Decks built from notebook cells: slides staged from Markdown, figures and tables
(`slides`, `staging`), in the project's design system (`theme`), cut into plans at the card
limits (`batches`) and pushed through the Design client's permission path (`deck`), which
remembers what it pushed across kernels (`records`)."""

from .deck import Deck
from .records import PushRecords
from .slides import TABLE_MAX_ROWS
from .theme import DEFAULT_THEME, Theme

__all__ = ["DEFAULT_THEME", "Deck", "PushRecords", "TABLE_MAX_ROWS", "Theme", "batches", "deck",
           "records", "slides", "staging", "theme"]
