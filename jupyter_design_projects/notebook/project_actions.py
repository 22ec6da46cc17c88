"""The `%project` actions: one handler per subcommand, and the table (`PROJECT_ACTIONS`)
the magics dispatch through. A new subcommand is a row in `subcommands.PROJECT` (its
grammar and help) and a row here (its handler)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from . import views
from .grammar import Command

if TYPE_CHECKING:
    from .magics import DesignProjects

#: a handler: the magics instance and the parsed line → what the cell returns
Handler = Callable[["DesignProjects", Command], Any]


def method(magics: DesignProjects, command: Command) -> Any:
    """info, read, search, write, delete: one call of the Projects tool."""
    action = command.action
    call_args = {k: v for k, v in command.args.items() if v is not None}
    if action == "info":
        call_args = {}
    session = magics.session
    # the bar stays hidden unless the transfer is a MiB or more
    transfer = action in ("read", "write")
    progress = magics._progress() if transfer else contextlib.nullcontext()
    with progress:
        data = session.run(session.projects.call(f"project_{action}", call_args))
    return views.project_outcome(action, data)


def history(magics: DesignProjects, command: Command) -> Any:
    return views.history_outcome(magics.session.projects.history(command.args["limit"]))


def restore(magics: DesignProjects, command: Command) -> Any:
    """The client refuses an entry its restore rule does not allow (a create, say)."""
    session = magics.session
    data = session.run(session.projects.restore(command.args["entry_id"]))
    return views.project_outcome("restore", data)


def sync(magics: DesignProjects, command: Command) -> Any:
    """`%project sync DIR`: the plan, one card for the batch (`sync_view`)."""
    from .sync_view import sync_command

    return sync_command(magics, command.args)


def inspect(magics: DesignProjects, command: Command) -> Any:
    """`%project inspect`: the workbench widget (`inspector`)."""
    from .inspector import inspect as workbench

    return workbench(magics, "project")


#: `%project ACTION` → its handler (`last` and `--help` are answered before dispatch)
PROJECT_ACTIONS: Mapping[str, Handler] = {
    "info": method,
    "read": method,
    "search": method,
    "write": method,
    "delete": method,
    "history": history,
    "restore": restore,
    "sync": sync,
    "inspect": inspect,
}
