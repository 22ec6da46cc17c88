"""The command registry and its one run-and-settle path: a line reaches its row (grammar,
handler, view) the same way from the magic, from the inspector's Run, from inside another
line (`%design rpc tools/call`), and by its verb (`%design deck …`). Each test swaps one
row for a recording one, so no service is needed: what is checked is the path."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError

from jupyter_design_projects.errors import BadCommand
from jupyter_design_projects.notebook.commands import registry, run
from jupyter_design_projects.notebook.commands.call import Call, Row
from jupyter_design_projects.notebook.commands.deck import OPEN_A_DECK
from jupyter_design_projects.notebook.grammar.parse import Command
from jupyter_design_projects.notebook.grammar.subcommands import OPERATION, SUBCOMMANDS
from jupyter_design_projects.notebook.host import NotebookHost
from jupyter_design_projects.notebook.views.outcome import Outcome


class Options:
    """The traits the host reads, as plain attributes."""

    def __init__(self, approval_mode: str = "auto", errors: str = "raise") -> None:
        self.approval_mode, self.errors, self.login_timeout = approval_mode, errors, 300.0

    def setting_values(self) -> dict[str, Any]:
        return {}


class Recorder:
    """A row's handler and view that remember each call: the line, and whether a person
    could answer a card while it ran."""

    def __init__(self, answer: Any = None, refuse: Exception | None = None) -> None:
        self.lines: list[Command] = []
        self.answerable: list[bool] = []
        self.viewed: list[Any] = []
        self.answer, self.refuse = answer, refuse

    def handler(self, call: Call) -> Any:
        self.lines.append(call.command)
        self.answerable.append(call.host.can_ask())
        if self.refuse is not None:
            raise self.refuse
        return self.answer if self.answer is not None else {"ran": call.command.action}

    def view(self, call: Call, answer: Any) -> Any:
        self.viewed.append(answer)
        return Outcome(f"{call.tool} {call.action}", answer)


@pytest.fixture
def host() -> NotebookHost:
    return NotebookHost(None, Options())


def swap(monkeypatch, key: tuple[str, str, str | None], recorder: Recorder) -> None:
    grammar = registry.BY_KEY[key].grammar
    row = Row(grammar, recorder.handler, recorder.view, verb=key[2])
    monkeypatch.setitem(registry.BY_KEY, key, row)  # type: ignore[arg-type]


def test_a_magic_line_runs_its_row_handler_then_view_and_is_kept_as_last(
        host, monkeypatch) -> None:
    spy = Recorder()
    swap(monkeypatch, ("design", "call", None), spy)
    shown = run.run(host, "design", "render_preview project_id=p-1", None, {})
    assert spy.lines == [Command("design", "call", {"operation": "render_preview",
                                                    "arguments": {"project_id": "p-1"}})]
    assert spy.viewed == [{"ran": "call"}] and shown.data == {"ran": "call"}
    assert host.last["design"] is shown


def test_rpc_tools_call_runs_the_operation_row_inside_its_line_settled_once(
        host, monkeypatch) -> None:
    spy = Recorder()
    swap(monkeypatch, ("design", "call", None), spy)
    line = """rpc tools/call '{"name": "get_project", "arguments": {"project_id": "p-1"}}'"""
    shown = run.run(host, "design", line, None, {})
    assert spy.lines == [Command("design", "call", {"operation": "get_project",
                                                    "arguments": {"project_id": "p-1"}})]
    assert host.last["design"] is shown and shown.label == "design call"


@pytest.mark.parametrize(("mode", "answerable"), [("widget", True), ("deny", False)])
def test_the_inspectors_run_takes_the_same_row_a_person_present_unless_denied(
        monkeypatch, mode: str, answerable: bool) -> None:
    host = NotebookHost(None, Options(approval_mode=mode))
    spy = Recorder()
    swap(monkeypatch, ("project", "search", None), spy)
    command = Command("project", "search", {"query": "retention", "n": 3})
    shown = run.clicked(host, command, "search")
    assert spy.lines == [command] and spy.answerable == [answerable]
    assert host.last["project"] is shown


def test_a_refused_line_fails_the_magic_cell_but_shows_in_the_inspector(
        host, monkeypatch) -> None:
    swap(monkeypatch, ("project", "search", None),
         Recorder(refuse=BadCommand("project search", "the query is empty")))
    with pytest.raises(UsageError):
        run.run(host, "project", "search x", None, {})
    assert "project" not in host.last  # a mistyped line: nothing kept
    shown = run.clicked(host, Command("project", "search", {"query": "x"}), "search")
    assert shown.is_error and isinstance(shown.error, BadCommand)
    assert host.last["project"] is shown


def test_each_deck_verb_is_a_row_of_its_own(host, monkeypatch) -> None:
    export, push = Recorder(), Recorder()
    swap(monkeypatch, ("design", "deck", "export"), export)
    swap(monkeypatch, ("design", "deck", "push"), push)
    run.run(host, "design", "deck export talk.pdf --notes", None, {})
    assert [c.args["verb"] for c in export.lines] == ["export"] and push.lines == []
    assert export.lines[0].args["notes"] is True


def test_a_deck_verb_before_any_deck_fails_the_cell_naming_the_one_step(host) -> None:
    with pytest.raises(UsageError) as failed:
        run.run(host, "design", "deck push", None, {})
    assert OPEN_A_DECK in str(failed.value) and "design" not in host.last


def test_last_shows_the_settled_outcome_without_settling_it_again(host, monkeypatch) -> None:
    from jupyter_design_projects.errors import GateClosed

    swap(monkeypatch, ("project", "info", None), Recorder(refuse=GateClosed("Projects", "x")))
    with pytest.raises(UsageError):
        run.run(host, "project", "info", None, {})
    failed = host.last["project"]
    assert run.run(host, "project", "last", None, {}) is failed  # not raised again
    with pytest.raises(UsageError, match="no %design call"):
        run.run(host, "design", "last", None, {})


def test_every_row_names_the_declared_grammar_of_its_line() -> None:
    for row in registry.ROWS:
        if row.grammar is OPERATION:
            assert row.key == ("design", "call", None)
        else:
            assert SUBCOMMANDS[row.grammar.tool][row.grammar.name] is row.grammar
        assert registry.BY_KEY[row.key] is row
