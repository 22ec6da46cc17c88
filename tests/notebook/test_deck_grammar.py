"""The deck's magic lines: `%%design slide PATH` takes the cell body and the notebook's
objects its `$name`s name; `%design deck` takes a verb; other subcommands still refuse a
cell body."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from jupyter_design_projects.errors import BadCommand
from jupyter_design_projects.notebook.grammar.parse import parse_design


def test_a_slide_cell_carries_its_body_and_the_objects_it_names():
    figure, other = object(), object()
    command = parse_design("slide slides/01-a.html", "# A\n\n$figure and \\$price\n",
                           {"figure": figure, "other": other, "price": 3})
    assert command.action == "slide"
    assert command.args["path"] == "slides/01-a.html"
    assert command.args["body"] == "# A\n\n$figure and \\$price\n"
    assert command.args["values"] == {"figure": figure}  # only what the body names


def test_a_slide_path_may_come_from_a_variable_but_must_be_text():
    assert parse_design("slide $p", "# x", {"p": "s/x.html"}).args["path"] == "s/x.html"
    with pytest.raises(BadCommand):
        parse_design("slide $p", "# x", {"p": 3.5})


def test_drop_is_the_line_form():
    command = parse_design("slide s/x.html --drop", None, {})
    assert command.args["drop"] is True and "body" not in command.args


@pytest.mark.parametrize(("line", "verb", "target"), [
    ("deck", "show", []), ("deck push", "push", []),
    ('deck open "Quarterly Review Deck"', "open", ["Quarterly Review Deck"]),
    ("deck new Launch review", "new", ["Launch", "review"])])
def test_deck_takes_a_verb(line, verb, target):
    command = parse_design(line, None, {})
    assert (command.action, command.args["verb"], command.args["target"]) == (
        "deck", verb, target)


def test_an_unknown_deck_verb_is_refused():
    with pytest.raises(BadCommand):
        parse_design("deck publish", None, {})


@pytest.mark.parametrize("line", ["status", "deck push", "consent"])
def test_other_subcommands_still_refuse_a_cell_body(line):
    with pytest.raises(BadCommand, match="take a cell body"):
        parse_design(line, "body", {})


def test_from_notebook_and_export_take_a_path_from_a_variable_and_their_flags():
    from pathlib import Path

    command = parse_design("deck from-notebook $p --code", None, {"p": Path("talk.ipynb")})
    assert (command.args["verb"], command.args["target"], command.args["code"]) == (
        "from-notebook", ["talk.ipynb"], True)
    command = parse_design("deck export out/$name.pdf --notes", None, {"name": "talk"})
    assert (command.args["target"], command.args["notes"]) == (["out/talk.pdf"], True)
    with pytest.raises(BadCommand):
        parse_design("deck export $p", None, {"p": 3.5})


@pytest.mark.parametrize("line", ["deck push", "deck export deck.pdf",
                                  "deck from-notebook talk.ipynb"])
def test_a_deck_command_before_any_deck_names_one_step_on_one_line(line):
    from jupyter_design_projects.errors import guidance
    from jupyter_design_projects.notebook.commands.deck import OPEN_A_DECK
    from jupyter_design_projects.notebook.commands.run import invoke
    from jupyter_design_projects.notebook.remedies import as_magic

    no_deck = SimpleNamespace(deck=None)  # a notebook that has opened no deck
    with pytest.raises(BadCommand) as refused:
        invoke(no_deck, parse_design(line, None, {}))  # type: ignore[arg-type]
    assert refused.value.step == OPEN_A_DECK
    said = guidance.with_next(guidance.line(refused.value), as_magic(refused.value.remedy))
    assert "\n" not in said and said.count("Next:") == 1 and "--help" not in said
    assert said.endswith(f"Next: {OPEN_A_DECK}.")


@pytest.mark.parametrize(("line", "theme"), [
    ("deck --theme dark", "dark"), ("deck from-notebook talk.ipynb --theme light", "light"),
    ('deck open "Quarterly Review Deck" --theme mine.css', "mine.css"), ("deck push", None)])
def test_deck_takes_a_theme(line, theme):
    assert parse_design(line, None, {}).args.get("theme") == theme
