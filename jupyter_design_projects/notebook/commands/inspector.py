"""`%design inspect` and `%project inspect`: the inspector's widget
(`widgets.inspector.Inspector`) over the live catalogue, its Run running the chosen
operation as the magic runs its line.

Run goes through the magics' own path (`Call.clicked`, the run path's `clicked`): the same
registry row a `%%design OP` cell or a `%project METHOD` line runs, the same permission
decision, and an approval card shown inline (event-driven: the card's buttons continue the
call). Clicking Run shows that a person is at the notebook, so a card may be shown
(approval_mode 'deny' still fails closed). Under the Design inspector, a Notifications
pane shows what the Design session's event stream kept; the inspector opens the stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..grammar.parse import Command
from ..widgets.inspector import Inspector, Operation, Runner
from ..widgets.notifications_pane import NotificationsPane

if TYPE_CHECKING:
    from ..host import NotebookHost

#: settle a parsed line a person started with a click, labelled (`run.clicked`)
Clicked = Callable[[Command, str], Any]


# ---------------------------------------------------------------- the catalogues


def design_operations(session: Any) -> list[Operation]:
    """The live Design catalogue: tools/list run again (the gates checked first), each
    operation's served schema, hints merged over the client's floor."""
    from ...design.catalogue import INSPECTOR  # its own catalogue hash (spec §4)

    listed = session.run(session.design.list(full=True, agent_key=INSPECTOR))
    if listed.is_error:
        raise listed.error
    served = {t["name"]: t for t in session.run(session.design.session.tools())}
    table = session.design.catalogue.table
    out = []
    for row in listed.data["operations"]:
        name = row["name"]
        schema = served.get(name, {}).get("inputSchema")
        known = table.get(name)
        out.append(Operation(name, row["description"],
                             schema if isinstance(schema, dict) else row["input_schema"],
                             known.schema if known is not None else None,
                             row["read_only"], row["destructive"]))
    return out


def project_operations(session: Any) -> list[Operation]:
    """The five Projects methods (the gates and the attached Project checked first, as for
    a call), each with the arguments the client's method table gives it."""
    from ...core.projects_inputs import method_schema
    from ...projects.approval import PROJECTS_DESTRUCTIVE
    from ...projects.client import METHODS
    from ..grammar.subcommands import SUBCOMMANDS

    session.projects.check_ready()
    out = []
    for name, (allowed, required) in METHODS.items():
        method = f"project_{name}"
        schema = method_schema(allowed, required)
        changes = method in PROJECTS_DESTRUCTIVE
        out.append(Operation(method, SUBCOMMANDS["project"][name].description, schema, schema,
                             not changes, changes, client_cap=None))
    return out


# ---------------------------------------------------------------- running as the magics do


def design_runner(clicked: Clicked) -> Runner:
    """A Design call as `%%design OP` with the arguments as JSON runs it (its registry
    row), a person present since they clicked Run."""
    def run(operation: str, arguments: dict[str, Any]) -> Any:
        command = Command("design", "call", {"operation": operation, "arguments": arguments})
        return clicked(command, operation)
    return run


def project_runner(clicked: Clicked) -> Runner:
    """A Projects method as its `%project` line runs it (its registry row)."""
    def run(method: str, arguments: dict[str, Any]) -> Any:
        action = method.removeprefix("project_")
        return clicked(Command("project", action, dict(arguments)), action)
    return run


# ---------------------------------------------------------------- the subcommands


def workbench(host: NotebookHost, tool: str, clicked: Clicked) -> Inspector:
    """`%design inspect` / `%project inspect`: the widget over the live catalogue, its Run
    settled by `clicked`."""
    session = host.session
    if tool == "project":
        return Inspector("project", project_operations(session),
                         project_runner(clicked), trace=session.trace,
                         history=session.history)
    inspector = Inspector("design", design_operations(session), design_runner(clicked),
                          trace=session.trace, history=session.history)
    if hasattr(session, "notifications"):
        session.notifications.listen()
        inspector.notifications = NotificationsPane(session.notifications.stream)
        inspector.widget.children = (*inspector.widget.children, inspector.notifications.widget)
    return inspector
