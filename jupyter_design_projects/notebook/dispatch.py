"""What one `%design` / `%project` line does: parse it, dispatch it through the action
tables, and settle its outcome (kept as `last`; a failure becomes one `UsageError` line).

The magics class (`magics.DesignProjects`) imports this module on its first call, not at
`%load_ext`: the grammar, the action tables, the views and the error tree load with the
first line that needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ..errors import (
    BadCommand,
    JdpError,
    PermissionDenied,
    PermissionRefused,
    TransportError,
    UnknownOperation,
    guidance,
)
from . import grammar, remedies, views
from .design_actions import DESIGN_ACTIONS, catalogue_entries, help_text
from .outcome import Outcome
from .project_actions import PROJECT_ACTIONS

if TYPE_CHECKING:
    from .magics import DesignProjects

OUTCOME_FLAG = "--outcome"


def run(magics: DesignProjects, tool: str, line: str, cell: str | None, local_ns: Any) -> Any:
    """Parse, run and settle one magic: a failure raises one `UsageError` line (or, with
    errors='outcome' or `--outcome`, is returned); every outcome becomes `last`."""
    as_outcome, line = _outcome_flag(line, magics.errors == "outcome")
    try:
        if tool == "project":
            command = grammar.parse_project(line, cell, magics._namespace(local_ns))
        else:
            command = grammar.parse_design(line, cell, magics._namespace(local_ns))
        if command.help is not None:
            print(help_text(magics._session, command))
            return None
        if command.action == "last":
            return _last_outcome(magics, tool)
        if tool == "project":
            outcome = PROJECT_ACTIONS[command.action](magics, command)
        else:
            with magics._answering(magics._live_can_ask()), \
                    magics._first_handshake() as panel:
                if panel is not None:
                    panel.report("Design handshake (initialize, tools/list)", 0, 1)
                outcome = DESIGN_ACTIONS[command.action](magics, command)
    except BadCommand as exc:  # a mistyped line: nothing ran, nothing to keep
        raise UsageError(views.failure_line(exc, tool)) from None
    except JdpError as exc:
        error = _reworded(magics, exc)
        outcome = views.failed_outcome(f"{tool} {_label(line)}", error)
    return _settle(magics, tool, outcome, as_outcome)


def _settle(magics: DesignProjects, tool: str, outcome: Any, as_outcome: bool) -> Any:
    if isinstance(outcome, Outcome) and outcome.error is not None:
        error = _reworded(magics, outcome.error)
        if error is not outcome.error:
            outcome.error, outcome.notice = error, error.message
    magics._last[tool] = outcome
    if as_outcome or not isinstance(outcome, Outcome) or not outcome.is_error:
        return outcome  # a pending card is not a failure
    raise UsageError(views.failure_line(outcome, tool)) from None


def _last_outcome(magics: DesignProjects, tool: str) -> Any:
    if tool not in magics._last:
        raise UsageError(f"%{tool} last: no %{tool} call has finished in this session yet.")
    return magics._last[tool]


def _reworded(magics: DesignProjects, error: JdpError) -> JdpError:
    """The few failures whose line needs what only the magic knows: the approval_mode
    setting, the catalogue (did-you-mean) and the configured URL."""
    if (isinstance(error, PermissionDenied) and error.reason == "nobody_can_approve"
            and magics.approval_mode == "deny"):
        return PermissionRefused(error.operation, "approval_mode_deny",
                                 remedies.APPROVAL_MODE_DENY, remedies.APPROVAL_MODE_ON)
    if isinstance(error, UnknownOperation):
        import difflib

        from ..core.design_operations import BY_NAME

        names = sorted({*BY_NAME, *(e.name for e in catalogue_entries(magics._session))})
        close = difflib.get_close_matches(error.operation, names, n=1, cutoff=0.6)
        if close:
            return guidance.reworded(error, f"{error.message} Did you mean {close[0]!r}?")
    if isinstance(error, TransportError) and guidance.is_connection_failure(error):
        settings = magics.settings()
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
