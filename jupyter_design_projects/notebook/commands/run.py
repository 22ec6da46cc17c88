"""What one `%design` / `%project` line does: parse it, dispatch it through the action
tables, and settle its outcome (kept as `last`; a failure becomes one `UsageError` line).

The magics class (`magics.DesignProjects`) imports this module on its first call, not at
`%load_ext`: the grammar, the action tables, the views and the error tree load with the
first line that needs them. Everything a line works with besides its words is the
notebook host (`host.NotebookHost`) the magics hand over; each handler is handed it too.
"""

from __future__ import annotations

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
from ..views import outcomes as views
from ..views.outcome import Outcome
from .design import DESIGN_ACTIONS, catalogue_entries, help_text
from .project import PROJECT_ACTIONS

if TYPE_CHECKING:
    from ..host import NotebookHost

OUTCOME_FLAG = "--outcome"
#: each magic's action table, handed to the host (`NotebookHost.run_command`)
ACTIONS = {"design": DESIGN_ACTIONS, "project": PROJECT_ACTIONS}


def run(host: NotebookHost, tool: str, line: str, cell: str | None, local_ns: Any) -> Any:
    """Parse, run and settle one magic: a failure raises one `UsageError` line (or, with
    errors='outcome' or `--outcome`, is returned); every outcome becomes `last`."""
    as_outcome, line = _outcome_flag(line, host.options.errors == "outcome")
    try:
        if tool == "project":
            command = grammar.parse_project(line, cell, host.namespace(local_ns))
        else:
            command = grammar.parse_design(line, cell, host.namespace(local_ns))
        if command.help is not None:
            print(help_text(host.opened, command))
            return None
        if command.action == "last":
            return _last_outcome(host, tool)
        if tool == "project":
            outcome = PROJECT_ACTIONS[command.action](host, command)
        else:
            with host.answering(host.live_can_ask()), host.first_handshake() as panel:
                if panel is not None:
                    panel.report("Design handshake (initialize, tools/list)", 0, 1)
                outcome = DESIGN_ACTIONS[command.action](host, command)
    except BadCommand as exc:  # a mistyped line: nothing ran, nothing to keep
        raise UsageError(views.failure_line(exc, tool)) from None
    except JdpError as exc:
        error = _reworded(host, exc)
        outcome = views.failed_outcome(f"{tool} {_label(line)}", error)
    return _settle(host, tool, outcome, as_outcome)


def _settle(host: NotebookHost, tool: str, outcome: Any, as_outcome: bool) -> Any:
    if isinstance(outcome, Outcome) and outcome.error is not None:
        error = _reworded(host, outcome.error)
        if error is not outcome.error:
            outcome.error, outcome.notice = error, error.message
    host.last[tool] = outcome
    if as_outcome or not isinstance(outcome, Outcome) or not outcome.is_error:
        return outcome  # a pending card is not a failure
    raise UsageError(views.failure_line(outcome, tool)) from None


def _last_outcome(host: NotebookHost, tool: str) -> Any:
    if tool not in host.last:
        raise UsageError(f"%{tool} last: no %{tool} call has finished in this session yet.")
    return host.last[tool]


def _reworded(host: NotebookHost, error: JdpError) -> JdpError:
    """The few failures whose line needs what only the magic knows: the approval_mode
    setting, the catalogue (did-you-mean) and the configured URL."""
    if (isinstance(error, PermissionDenied) and error.reason == "nobody_can_approve"
            and host.options.approval_mode == "deny"):
        return PermissionRefused(error.operation, "approval_mode_deny",
                                 remedies.APPROVAL_MODE_DENY, remedies.APPROVAL_MODE_ON)
    if isinstance(error, UnknownOperation):
        from ..grammar.subcommands import SUBCOMMANDS
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
