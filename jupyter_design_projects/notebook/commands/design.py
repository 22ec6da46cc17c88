"""The `%design` actions: one handler per subcommand (and `call`, any other word: a Design
operation), the table (`DESIGN_ACTIONS`) `dispatch` runs a line through, and the catalogue
lookups `--help` and the did-you-mean line use. A new subcommand is a row in
`subcommands.DESIGN` (its grammar and help) and a row here (its handler)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...errors import JdpError, PermissionRefused
from ..grammar.parse import Command
from ..views import outcomes as views

if TYPE_CHECKING:
    from ..host import NotebookHost

#: a handler: the notebook host and the parsed line → what the cell returns
Handler = Callable[["NotebookHost", Command], Any]


def catalogue_list(host: NotebookHost, command: Command) -> Any:
    from ..widgets.catalogue import CatalogueView

    session = host.session
    result = session.run(session.design.list(full=command.args["full"]))
    return views.design_outcome(result, catalogue_widget=CatalogueView)


def consent_or_revoke(host: NotebookHost, command: Command) -> Any:
    action = command.action
    session = host.session
    data = session.run(getattr(session.design, action)())
    status = {"consent": action == "consent"} if data is None else data
    return views.status_outcome(status, label=f"design {action}")


def status(host: NotebookHost, command: Command) -> Any:
    session = host.session
    found = session.run(session.design.status())
    names = session.run(session.design.project_names(views.status_projects(found)))
    return views.status_outcome(found, names=names)


def trace(host: NotebookHost, command: Command) -> Any:
    """The HTTP trace (its table), on|off, --clear, --har, --curl (`trace`)."""
    from ..views.trace import trace_command

    return trace_command(host.session.trace, command.args, host.session)


def login(host: NotebookHost, command: Command) -> Any:
    from .login import sign_in

    return sign_in(host, command.args.get("code"), paste=command.args.get("paste", False))


def deck(host: NotebookHost, command: Command) -> Any:
    """`%design deck …` and `%%design slide …`: the notebook's deck lives on the host."""
    from ..widgets.deck import NotebookDeck, deck_command

    result = deck_command(host, command, host.deck)
    if isinstance(result, NotebookDeck):
        host.deck = result
    return result


def call(host: NotebookHost, command: Command) -> Any:
    """One Design operation; a call that needs a person shows its approval card (where
    nobody can click, it fails closed)."""
    operation, arguments = command.args["operation"], command.args["arguments"]
    session = host.session
    result = session.run(session.design.call(operation, arguments))
    from ...design.approval import PendingApproval

    if not isinstance(result, PendingApproval):
        return views.design_outcome(result)
    if not host.can_ask():  # fail closed
        from ...core.permissions import explain

        raise PermissionRefused(operation, "nobody_can_approve", explain("nobody_can_approve"))
    from ..views.outcome import PendingOutcome
    from ..widgets.cards import ApprovalCard

    def watch(pending: Any, claim: Any) -> Any:
        """The grant watcher of a waiting grant card, on the session's loop (spec §8)."""
        return session.submit(session.design.watch_grant(pending, claim=claim))

    card = ApprovalCard(result, resume=host.resume, present=views.design_outcome,
                        watch=watch, project_names=session.design.projects_seen)
    card.show()
    return PendingOutcome(operation, card)


def inspect(host: NotebookHost, command: Command) -> Any:
    """`%design inspect` / `%project inspect`: the workbench widget (`inspector`)."""
    from .inspector import inspect as workbench

    return workbench(host, command.tool)


def calls(host: NotebookHost, command: Command) -> Any:
    """`%design calls`: the session's calls; replay, diff, copy as code."""
    from .history_view import history_command

    return history_command(host, command.args, command.args.get("body"))


def renamed_history(host: NotebookHost, command: Command) -> Any:
    """`%design history`, the former name of `%design calls`: runs it and says so."""
    from ..views.outcome import Outcome
    from .history_view import RENAMED

    shown = calls(host, command)
    if isinstance(shown, Outcome):  # a replay's card waiting is shown as it is
        shown.notice = RENAMED + (f" {shown.notice}" if shown.notice else "")
    return shown


def rpc(host: NotebookHost, command: Command) -> Any:
    """`%design rpc METHOD [JSON]`: one raw JSON-RPC exchange (`rpc_view`)."""
    from .rpc_view import rpc_command

    return rpc_command(host, command.args, command.args.get("body"))


def auth(host: NotebookHost, command: Command) -> Any:
    """`%design auth`: the sign-in, step by step, with Refresh now and Sign out."""
    from .auth_view import auth_command

    return auth_command(host)


#: `%design ACTION` → its handler (`last` and `--help` are answered before dispatch; any
#: word that is not a subcommand parses as `call`)
DESIGN_ACTIONS: Mapping[str, Handler] = {
    "list": catalogue_list,
    "consent": consent_or_revoke,
    "revoke": consent_or_revoke,
    "status": status,
    "trace": trace,
    "login": login,
    "deck": deck,
    "slide": deck,
    "call": call,
    "inspect": inspect,
    "calls": calls,
    "history": renamed_history,
    "rpc": rpc,
    "auth": auth,
}


# ------------------------------------------------------------ the catalogue, for words

def help_text(session: Any, command: Command) -> str:
    """--help text; for a Design operation, its fields from the catalogue's schema."""
    if command.tool != "design" or command.action != "call":
        return command.help or ""
    schema = known_schema(session, command.args["operation"])
    return (command.help or "") + views.schema_fields(command.args["operation"], schema)


def known_schema(session: Any, operation: str) -> dict | None:
    """The input schema of `operation`: the client's declared floor, else the service's
    once the catalogue is known in this session (no call is made for --help)."""
    from ..widgets.catalogue import known_schema as of_table
    from ..widgets.catalogue import operations_of

    return of_table(operations_of(session), catalogue_entries(session), operation)


def catalogue_entries(session: Any) -> list:
    """The live catalogue's entries when `session` has already listed it, else []."""
    if session is None or not session.design.session.state.discovered:
        return []
    try:
        return session.run(session.design.catalogue.entries())
    except JdpError:
        return []
