"""The `%design` handlers and views: each subcommand's handler asks the pipeline, its view
draws the answer (the rows pairing them are in `registry`), and the catalogue lookups
`--help` and the did-you-mean line use."""

from __future__ import annotations

from typing import Any

from ...errors import JdpError, PermissionRefused
from ..views import outcomes
from .call import Call


def catalogue_list(call: Call) -> Any:
    session = call.session
    return session.run(session.design.list(full=call.args["full"]))


def catalogue_view(call: Call, result: Any) -> Any:
    from ..widgets.catalogue import CatalogueView

    return outcomes.design_outcome(result, catalogue_widget=CatalogueView)


def consent_or_revoke(call: Call) -> Any:
    session = call.session
    data = session.run(getattr(session.design, call.action)())
    return {"consent": call.action == "consent"} if data is None else data


def consent_view(call: Call, status: Any) -> Any:
    return outcomes.status_outcome(status, label=f"design {call.action}")


def status(call: Call) -> Any:
    session = call.session
    found = session.run(session.design.status())
    names = session.run(session.design.project_names(outcomes.status_projects(found)))
    return found, names


def status_view(call: Call, answer: Any) -> Any:
    found, names = answer
    return outcomes.status_outcome(found, names=names)


def trace(call: Call) -> Any:
    """The HTTP trace (its table), on|off, --clear, --har, --curl (`trace`)."""
    from ..views.trace import trace_command

    return trace_command(call.session.trace, call.args, call.session)


def login(call: Call) -> Any:
    from .login import sign_in

    return sign_in(call.host, call.args.get("code"), paste=call.args.get("paste", False))


def operation(call: Call) -> Any:
    """One Design operation: the outcome, or the PendingApproval of a call that needs a
    person (drawn by `operation_view`)."""
    session = call.session
    return session.run(session.design.call(call.args["operation"], call.args["arguments"]))


def operation_view(call: Call, result: Any) -> Any:
    """The outcome; or the approval card of a call that needs a person (where nobody can
    click, it fails closed)."""
    from ...design.approval import PendingApproval

    if not isinstance(result, PendingApproval):
        return outcomes.design_outcome(result)
    name, host = call.args["operation"], call.host
    if not host.can_ask():  # fail closed
        from ...core.permissions import explain

        raise PermissionRefused(name, "nobody_can_approve", explain("nobody_can_approve"))
    from ..views.outcome import PendingOutcome
    from ..widgets.cards import ApprovalCard

    session = call.session

    def watch(pending: Any, claim: Any) -> Any:
        """The grant watcher of a waiting grant card, on the session's loop (spec §8)."""
        return session.submit(session.design.watch_grant(pending, claim=claim))

    card = ApprovalCard(result, resume=host.resume, present=outcomes.design_outcome,
                        watch=watch, project_names=session.design.projects_seen)
    card.show()
    return PendingOutcome(name, card)


def inspect(call: Call) -> Any:
    """`%design inspect` / `%project inspect`: the workbench widget (`inspector`), its Run
    settled as the magic settles a line."""
    from .inspector import workbench

    return workbench(call.host, call.tool, call.clicked)


def calls(call: Call) -> Any:
    """`%design calls`: the session's calls; replay, diff, copy as code."""
    from .history_view import history_command

    return history_command(call)


def renamed_view(call: Call, shown: Any) -> Any:
    """`%design history`, the former name of `%design calls`: its answer, saying so."""
    from ..views.outcome import Outcome
    from .history_view import RENAMED

    if isinstance(shown, Outcome):  # a replay's card waiting is shown as it is
        shown.notice = RENAMED + (f" {shown.notice}" if shown.notice else "")
    return shown


def rpc(call: Call) -> Any:
    """`%design rpc METHOD [JSON]`: one raw JSON-RPC exchange (`rpc_view`)."""
    from .rpc_view import rpc_command

    return rpc_command(call)


def auth(call: Call) -> Any:
    """`%design auth`: the session's `auth` part, whose sign-in the view shows (discovery
    fetched then)."""
    return call.session.auth


def auth_view(call: Call, auth: Any) -> Any:
    from ..widgets.auth_view import AuthView

    return AuthView(auth)


# ------------------------------------------------------------ the catalogue, for words

def help_text(session: Any, command: Any) -> str:
    """--help text; for a Design operation, its fields from the catalogue's schema."""
    if command.tool != "design" or command.action != "call":
        return command.help or ""
    schema = known_schema(session, command.args["operation"])
    return (command.help or "") + outcomes.schema_fields(command.args["operation"], schema)


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
