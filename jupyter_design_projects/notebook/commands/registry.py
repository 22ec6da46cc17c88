"""The registry: every `%design` / `%project` subcommand as one row — its grammar (the
declaration in `grammar.subcommands` its line is parsed and its help written from), its
handler (it asks the pipeline) and its view (it draws the answer). `run` runs every line
through it: the magics, the inspector's Run, a replay, `%design rpc tools/call` and the
deck verbs. A new subcommand is a declaration and a row here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from IPython.core.error import UsageError

from ..grammar.parse import Command
from ..grammar.subcommands import OPERATION, SUBCOMMANDS
from . import deck, design, project
from .call import Call, Row


def last(call: Call) -> Any:
    """`%design last` / `%project last`: the magic's last outcome, as it was settled."""
    tool = call.tool
    if tool not in call.host.last:
        raise UsageError(f"%{tool} last: no %{tool} call has finished in this session yet.")
    return call.host.last[tool]


def _project(name: str) -> Any:
    return SUBCOMMANDS["project"][name]


def _design(name: str) -> Any:
    return SUBCOMMANDS["design"][name]


def _deck(verb: str, handler: Any) -> Row:
    return Row(_design("deck"), handler, verb=verb)


ROWS: tuple[Row, ...] = (
    Row(_project("info"), project.method, project.method_view),
    Row(_project("search"), project.method, project.method_view),
    Row(_project("read"), project.method, project.method_view),
    Row(_project("write"), project.change),
    Row(_project("delete"), project.change),
    Row(_project("sync"), project.sync),
    Row(_project("history"), project.history, project.history_view),
    Row(_project("restore"), project.change),
    Row(_project("inspect"), design.inspect),
    Row(_project("last"), last, settles=False),
    Row(_design("list"), design.catalogue_list, design.catalogue_view),
    Row(OPERATION, design.operation, design.operation_view),
    Row(_design("consent"), design.consent_or_revoke, design.consent_view),
    Row(_design("revoke"), design.consent_or_revoke, design.consent_view),
    Row(_design("status"), design.status, design.status_view),
    Row(_design("login"), design.login),
    _deck("open", deck.open_deck),
    _deck("new", deck.new_deck),
    _deck("push", deck.push),
    _deck("show", deck.show),
    _deck("from-notebook", deck.from_notebook),
    _deck("export", deck.export),
    Row(_design("slide"), deck.slide),
    Row(_design("trace"), design.trace),
    Row(_design("calls"), design.calls),
    Row(_design("history"), design.calls, design.renamed_view),
    Row(_design("rpc"), design.rpc),
    Row(_design("inspect"), design.inspect),
    Row(_design("auth"), design.auth, design.auth_view),
    Row(_design("last"), last, settles=False),
)

#: (tool, action, verb) → its row (verb None: the subcommand has one row)
BY_KEY: Mapping[tuple[str, str, str | None], Row] = {row.key: row for row in ROWS}


def row(command: Command) -> Row:
    """The row a parsed line runs through (by its verb, for a subcommand split by one)."""
    found = BY_KEY.get((command.tool, command.action, None))
    if found is None:
        found = BY_KEY[(command.tool, command.action, command.args.get("verb"))]
    return found
