"""The deck's verbs: `%design deck open|new|show|push|from-notebook|export` and `%%design
slide PATH`, one registry row each (`registry`). Each handler drives the notebook's deck
(`widgets.deck.NotebookDeck`, kept on the host), which drives the pipeline's deck
(`design.deck.facade`); a deck opened or created is the notebook's deck from then on."""

from __future__ import annotations

from typing import Any

from ...errors import BadCommand
from .call import Call

#: why a deck command cannot run before a deck is open, and the one step that opens one
NO_DECK = "this notebook has no deck open yet"
OPEN_A_DECK = "deck = %design deck open NAME_OR_ID (a new project: %design deck new NAME)"


def current(call: Call, command: str) -> Any:
    """The notebook's deck for `command` (refused when there is none, or it has ended),
    restyled first by `--theme`."""
    deck = call.host.deck
    if deck is None:
        raise BadCommand(command, NO_DECK, OPEN_A_DECK)
    if deck.ended is not None:
        raise BadCommand(command, deck.ended)
    if call.args.get("theme"):
        deck.pipeline.theme(call.args["theme"])
    return deck


def _target(call: Call) -> str:
    return " ".join(call.args.get("target") or []).strip()


def open_deck(call: Call) -> Any:
    """`deck open NAME_OR_ID`: the deck of a Design project, by id or exact name."""
    from ..widgets.deck import NotebookDeck

    if not (target := _target(call)):
        raise BadCommand("design deck open", "needs a project name or id")
    return _adopted(call, NotebookDeck.open(call.host, target))


def new_deck(call: Call) -> Any:
    """`deck new NAME`: a deck of a new project, its create_project card first."""
    from ..widgets.deck import NotebookDeck

    if not (target := _target(call)):
        raise BadCommand("design deck new", "needs a project name")
    return _adopted(call, NotebookDeck.create(call.host, target))


def _adopted(call: Call, opened: Any) -> Any:
    from ..widgets.deck import NotebookDeck

    if isinstance(opened, NotebookDeck):
        if call.args.get("theme"):
            opened.pipeline.theme(call.args["theme"])
        call.host.deck = opened
    return opened


def show(call: Call) -> Any:
    return current(call, "design deck show")


def push(call: Call) -> Any:
    return current(call, "design deck push").push()


def from_notebook(call: Call) -> Any:
    deck = current(call, "design deck from-notebook")
    if not (target := _target(call)):
        raise BadCommand("design deck from-notebook",
                         "needs a path: %design deck from-notebook PATH.ipynb [--code]")
    return deck.from_notebook(target, code=bool(call.args.get("code")))


def export(call: Call) -> Any:
    deck = current(call, "design deck export")
    if not (target := _target(call)):
        raise BadCommand("design deck export",
                         "needs a path: %design deck export PATH.pdf|PATH.html [--notes]")
    return deck.export(target, notes=bool(call.args.get("notes")))


def slide(call: Call) -> Any:
    """`%%design slide PATH` stages the cell's Markdown; `--drop` unstages PATH."""
    deck = current(call, "design slide")
    args = call.args
    if args.get("drop"):
        deck.deck.stage.remove(args["path"])
        return deck
    if args.get("body") is None:
        raise BadCommand("design slide", "the Markdown goes in the cell body: "
                                         "%%design slide PATH (or --drop to unstage)")
    staged = deck.add_markdown(args["path"], args["body"], args.get("values") or {})
    return deck.staged_outcome(staged.path)
