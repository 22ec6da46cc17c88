"""Decks built from notebook cells: slides staged from Markdown, figures and tables
(`slides`, `staging`) or read from a notebook's slideshow (`from_notebook`, each slide's
cells drawn by `notebook_cells`), every page reduced to what a slide may hold
(`allowlist`), in the project's design system (`theme`), fitted and continued when too
long for a page (`fit`), cut into plans at the card limits (`batches`) and pushed through
the Design client's permission path (`deck`, its approved plans written by `plan_writes`,
one push at a time: `push`), which remembers what it pushed across kernels (`records`); a
deck for plain Python on a session (`facade`, the `session.deck` a notebook's `%design
deck` also drives); and the deck out of the project again (`export`, to a local file:
`exported`; a slide it cannot read whole as the service's picture of it, `picture`) as a
PDF (`pdf`) or one HTML file (`html_deck`, through `reveal` with the reveal.js files the
build ships: `reveal_assets`).

The names below load with their module on first use, so a module that needs one constant
of `slides` (the magics' usage text does, at `%load_ext`) does not load the whole
pipeline."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .deck import Deck
    from .records import PushRecords
    from .slides import TABLE_MAX_ROWS
    from .theme import DEFAULT_THEME, Theme

__all__ = ["DEFAULT_THEME", "Deck", "PushRecords", "TABLE_MAX_ROWS", "Theme", "allowlist",
           "batches", "deck", "export", "exported", "facade", "fit", "from_notebook",
           "html_deck", "notebook_cells", "pdf", "picture", "plan_writes", "push", "records",
           "reveal", "reveal_assets", "slides", "staging", "theme"]

#: each lazily loaded name and the module that declares it
_HOMES = {"Deck": "deck", "PushRecords": "records", "TABLE_MAX_ROWS": "slides",
          "DEFAULT_THEME": "theme", "Theme": "theme"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{home}", __name__), name)
