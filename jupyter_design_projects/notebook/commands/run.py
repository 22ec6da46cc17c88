"""The one run-and-settle path: a line is parsed, its registry row's handler runs and its
view draws the answer, and the outcome is settled — a failure reworded with what only the
notebook knows, and whatever the cell shows kept as the magic's `last`.

Every way a line runs takes it: the magics (`run`: a failure then fails the cell with one
`UsageError` line, or with errors='outcome' or `--outcome` is returned), the inspector's Run
(`clicked`: a person is present, and a failure is shown in the widget), and a line run
inside another — a replay, `%design rpc tools/call` (`invoke`, settled by the line it runs
in). The magics class imports this module on its first call, not at `%load_ext`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ...errors import (
    BadCommand,
    JdpError,
    PermissionDenied,
    PermissionRefused,
    TransportError,
    UnknownOperation,
    guidance,
)
from .. import remedies
from ..grammar import parse as grammar
from ..grammar.subcommands import SUBCOMMANDS
from ..views import outcomes
from ..views.outcome import Outcome
from . import registry
from .call import Call
from .design import catalogue_entries, help_text

if TYPE_CHECKING:
    from ..host import NotebookHost

OUTCOME_FLAG = "--outcome"


def run(host: NotebookHost, tool: str, line: str, cell: str | None, local_ns: Any) -> Any:
    """One magic line, parsed, run and settled: a failure raises one `UsageError` line (or,
    with errors='outcome' or `--outcome`, is returned); every outcome becomes `last`."""
    as_outcome, line = _outcome_flag(line, host.options.errors == "outcome")
    parse = grammar.parse_project if tool == "project" else grammar.parse_design
    try:
        command = parse(line, cell, host.namespace(local_ns))
        if command.help is not None:
            print(help_text(host.opened, command))
            return None
        row = registry.row(command)
        if not row.settles:
            return row.handler(_call(host, command))
        design = tool == "design"
        outcome = settle(host, command, _label(line),
                         answerable=host.live_can_ask() if design else None, handshake=design)
    except BadCommand as exc:  # a mistyped line: nothing ran, nothing to keep
        raise UsageError(outcomes.failure_line(exc, tool)) from None
    if as_outcome or not isinstance(outcome, Outcome) or not outcome.is_error:
        return outcome  # a pending card is not a failure
    raise UsageError(outcomes.failure_line(outcome, tool)) from None


def clicked(host: NotebookHost, command: Any, label: str) -> Any:
    """A line a person started with a click (the inspector's Run): settled as the magic
    settles it, a person present (approval_mode 'deny' still fails closed); a refused
    form is a failed outcome too, shown where they clicked, and a failure keeps the
    pipeline's own words (the rewording names what to type at a magic)."""
    return settle(host, command, label, answerable=host.options.approval_mode != "deny",
                  mistyped_fails=True, reword=False)


def invoke(host: NotebookHost, command: Any) -> Any:
    """A parsed line through its row: the handler, then the view (unsettled: the line it
    runs in settles it)."""
    row = registry.row(command)
    call = _call(host, command)
    return row.view(call, row.handler(call))


def inspect(host: NotebookHost, tool: str) -> Any:
    """`%design inspect` / `%project inspect` as its line runs it: the workbench widget."""
    return invoke(host, grammar.Command(tool, "inspect"))


def _call(host: NotebookHost, command: Any) -> Call:
    return Call(host, command, again=lambda other: invoke(host, other),
                clicked=lambda other, label: clicked(host, other, label))


def settle(host: NotebookHost, command: Any, label: str, *, answerable: bool | None = None,
           handshake: bool = False, mistyped_fails: bool = False, reword: bool = True) -> Any:
    """Run `command` (`invoke`) and settle what it shows: a failure becomes a failed
    outcome (reworded, with `reword`); the outcome becomes the magic's `last`.
    `answerable` fixes who can answer a card while it runs; `handshake` shows the first
    Design handshake; `mistyped_fails` makes a refused line a failed outcome too."""
    tool = command.tool
    words = (lambda error: reworded(host, error)) if reword else (lambda error: error)
    try:
        with _running(host, answerable, handshake):
            outcome = invoke(host, command)
    except BadCommand as exc:
        if not mistyped_fails:
            raise
        outcome = outcomes.failed_outcome(f"{tool} {label}", exc)
    except JdpError as exc:
        outcome = outcomes.failed_outcome(f"{tool} {label}", words(exc))
    if isinstance(outcome, Outcome) and outcome.error is not None:
        error = words(outcome.error)
        if error is not outcome.error:
            outcome.error, outcome.notice = error, error.message
    host.last[tool] = outcome
    return outcome


@contextlib.contextmanager
def _running(host: NotebookHost, answerable: bool | None, handshake: bool) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        if answerable is not None:
            stack.enter_context(host.answering(answerable))
        if handshake:
            panel = stack.enter_context(host.first_handshake())
            if panel is not None:
                panel.report("Design handshake (initialize, tools/list)", 0, 1)
        yield


def reworded(host: NotebookHost, error: JdpError) -> JdpError:
    """The few failures whose line needs what only the magic knows: the approval_mode
    setting, the catalogue (did-you-mean) and the configured URL."""
    if (isinstance(error, PermissionDenied) and error.reason == "nobody_can_approve"
            and host.options.approval_mode == "deny"):
        return PermissionRefused(error.operation, "approval_mode_deny",
                                 remedies.APPROVAL_MODE_DENY, remedies.APPROVAL_MODE_ON)
    if isinstance(error, UnknownOperation):
        from ..widgets.catalogue import closest_operation, operations_of

        # a subcommand's name is a word a person may have meant too (`auht` → `auth`)
        named = [*catalogue_entries(host.opened), *SUBCOMMANDS["design"].values()]
        close = closest_operation(error.operation, operations_of(host.opened), named)
        if close:
            return guidance.reworded(error, f"{error.message} Did you mean {close!r}?")
    if isinstance(error, TransportError) and guidance.is_connection_failure(error):
        settings = host.settings()
        url = (settings.web_base_url if error.action.startswith("project")
               else settings.api_base_url)
        return guidance.reworded(error, guidance.connection_line(error, url))
    return error


def _outcome_flag(line: str, default: bool) -> tuple[bool, str]:
    """`--outcome` as the line's first word returns error outcomes for this call."""
    head, _, rest = line.strip().partition(" ")
    if head == OUTCOME_FLAG:
        return True, rest
    return default, line


def _label(line: str) -> str:
    return line.strip().partition(" ")[0] or "call"
