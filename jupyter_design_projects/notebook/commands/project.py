"""The `%project` actions: one handler per subcommand, and the table (`PROJECT_ACTIONS`)
`dispatch` runs a line through. A new subcommand is a row in `subcommands.PROJECT` (its
grammar and help) and a row here (its handler)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..grammar.parse import Command
from ..views import outcomes as views

if TYPE_CHECKING:
    from ..host import NotebookHost

#: a handler: the notebook host and the parsed line → what the cell returns
Handler = Callable[["NotebookHost", Command], Any]


def method(host: NotebookHost, command: Command) -> Any:
    """info, read, search: one call of the Projects tool."""
    action = command.action
    call_args = {k: v for k, v in command.args.items() if v is not None}
    if action == "info":
        call_args = {}
    session = host.session
    # the bar stays hidden unless the transfer is a MiB or more
    transfer = action in ("read", "write")
    progress = host.progress() if transfer else contextlib.nullcontext()
    with progress:
        data = session.run(session.projects.call(f"project_{action}", call_args))
    return views.project_outcome(action, data)


def history(host: NotebookHost, command: Command) -> Any:
    return views.history_outcome(host.session.projects.history(command.args["limit"]))


def change(host: NotebookHost, command: Command) -> Any:
    """write, delete, restore: a card first, or `--yes` (`change_card`). A restore of an
    entry its rule does not allow (a create, say) is refused before any card."""
    from ..widgets.change_card import change_command

    return change_command(host, command.action, command.args)


def sync(host: NotebookHost, command: Command) -> Any:
    """`%project sync DIR`: the plan, one card for the batch (`sync_view`)."""
    from ..widgets.sync_view import sync_command

    return sync_command(host, command.args)


def inspect(host: NotebookHost, command: Command) -> Any:
    """`%project inspect`: the workbench widget (`inspector`)."""
    from .inspector import inspect as workbench

    return workbench(host, "project")


#: `%project ACTION` → its handler (`last` and `--help` are answered before dispatch)
PROJECT_ACTIONS: Mapping[str, Handler] = {
    "info": method,
    "read": method,
    "search": method,
    "write": change,
    "delete": change,
    "history": history,
    "restore": change,
    "sync": sync,
    "inspect": inspect,
}
