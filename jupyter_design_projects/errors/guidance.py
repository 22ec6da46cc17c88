"""What each error says to the person: its one user-facing line (built from its fields)
and its remedy, in one table. `JdpError` takes its message from here; nothing else
words an error, except a raiser that passes its own `message` (an OAuth answer, a PKCE
paste problem).

A remedy is data (`remedy.Remedy`: an action and its arguments), never words: plain Python
words it as a call (`calls`, what `str(error)` says) and the notebook as a magic
(`notebook.remedies`). So no line or remedy here names a magic (a test reads every string
literal below `notebook/`). Nothing of the reference service loads this module: `base`
imports it when an error is first built.

The words of the reason codes an error carries (gates, rules, failures) are data of their
own (`reasons`). The table is keyed by class name, and this module imports no error class
(nor does `reasons`): the root (`base`) reads it when an error is built, so the import
runs one way only (every error module → `base` → `guidance` → `reasons`), a contract
`lint-imports` checks. `tests/errors/test_errors.py` checks that every class of the tree has its
row and every row names a class."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from .reasons import (
    CONNECTION_FAILURES,
    GATE_OPENERS,
    LOGIN,
    SCOPE_EXPANSION_REASONS,
    SYNC_RULES,
    TRACE_REASONS,
    TRANSPORT_REASONS,
    UNKNOWN_OPERATION_REASONS,
    UPLOAD_RULES,
)
from .remedy import Remedy, advise

RETRY = advise("retry")
#: a Projects API body is quoted up to this many characters
BODY_SHOWN = 500
#: the Projects methods that have help of their own (the others: the tool's)
PROJECT_METHODS = frozenset({"info", "read", "search", "write", "delete", "history",
                             "restore"})


@dataclasses.dataclass(frozen=True)
class Guidance:
    #: the error's message, from its fields
    line: Callable[[Any], str]
    #: what the person can do next, as data, from the error where it depends on its
    #: fields, or None
    remedy: Remedy | Callable[[Any], Remedy | None] | None


def _gate_row(gate: str) -> tuple[str, Remedy]:
    return GATE_OPENERS.get(gate, (f"the gate {gate!r} is off",
                                   Remedy("set_setting", name=gate, value=True)))


def _gate(e: Any) -> str:
    return f"{e.tool} is not available: {_gate_row(e.gate)[0]}."


def _scopes(e: Any) -> str:
    text = SCOPE_EXPANSION_REASONS.get(e.reason, (e.reason, LOGIN))[0]
    return (f"Could not add the Projects scopes: {text}" + (f" ({e.detail})" if e.detail else "")
            + ".")


def _unknown_operation(e: Any) -> tuple[str, Remedy]:
    return UNKNOWN_OPERATION_REASONS.get(e.reason, (e.reason, Remedy("list_operations")))


def _invalid_arguments_remedy(e: Any) -> Remedy:
    """Where the valid values are: the project ids, finalize_plan for a plan token, the
    catalogue for an operation name, else the operation's own fields."""
    if e.field in ("project_id", "project"):
        return Remedy("list_projects")
    if e.field == "plan_token":  # only finalize_plan mints one
        return Remedy("finalize_plan")
    if e.field == "operation":
        return Remedy("list_operations")
    return Remedy("operation_help", operation=e.operation)


def _denied_remedy(e: Any) -> Remedy:
    if e.reason == "denied_on_card":
        return Remedy("run_again", why="to be asked again")
    if e.reason == "nobody_can_click":
        if e.method != "sync":  # a write, delete or restore: --yes is the explicit form
            return Remedy("approve_elsewhere", change=True)
        return Remedy("approve_elsewhere")
    if e.reason == "changed_since_card":
        return Remedy("run_again", why="for a card of the doc as it is now")
    return Remedy("approve_elsewhere", agent=True)


def _pipeline(operation: str) -> str:
    """A card's call as its pipeline names it: "Projects write" for a Projects change (its
    operation is "project …"), "Design <operation>" otherwise."""
    head, sep, method = operation.partition(" ")
    return f"Projects {method}" if head == "project" and sep else f"Design {operation}"


def _refusal(explanation: str) -> tuple[str, Remedy]:
    """A refusal's explanation (`core.permissions.explain`: "<why>. <What to do>.") as its
    line and its remedy (the words of its second sentence)."""
    head, sep, step = explanation.rstrip().rpartition(". ")
    if not sep:
        return explanation, Remedy("run_again")
    return head + ".", advise(step[:1].lower() + step[1:].rstrip("."))


def _shown(body: str) -> str:
    return body if len(body) <= BODY_SHOWN else body[:BODY_SHOWN] + "…"


def _listing(available: list[str]) -> str:
    return ", ".join(available) if available else "(the project is empty)"


def _log(tail: str) -> str:
    return f"\n--- service log (last lines) ---\n{tail}" if tail else ""


def _suggestion(e: Any) -> str:
    return f" Did you mean {e.suggestion!r}?" if e.suggestion else ""


class _Failure(Protocol):
    reason: str


def is_connection_failure(error: _Failure) -> bool:
    """Whether the request never reached a service (nothing listening, no route): its
    `reason` code, which `transport.http.send` sets, is a connection failure's."""
    return error.reason in CONNECTION_FAILURES


def _words(e: Any) -> str:
    """What a transport failure says: the raiser's words, else its reason code's."""
    return e.detail or TRANSPORT_REASONS.get(e.reason, e.reason)


def connection_line(error: Any, url: str) -> str:
    """A connection failure, naming the URL and what to do."""
    where = url or "the offline reference service"
    return f"{error.action}: could not connect to {where}."


#: what to do when no connection was made (`connection_line` says where it went)
CHECK_SERVICE = Remedy("check_service")


class _Rewordable(Protocol):
    def with_message(self, message: str) -> Any: ...


_E = TypeVar("_E", bound=_Rewordable)


def reworded(error: _E, message: str) -> _E:
    """`error` (same class and fields) whose line is `message`, built through the error's
    constructor (`JdpError.with_message`): for the few lines only the notebook can
    complete (a did-you-mean, the configured URL)."""
    twin: _E = error.with_message(message)
    return twin


_REREAD = "The previous content is kept in the project's history."

# A failure's line says what went wrong; its remedy (`Guidance.remedy`) says what to do,
# once: a reader shows them as "<line>. Next: <remedy in its words>.", so a line names no
# command of its own (tests/errors/test_error_lines_table.py walks every row).

#: error class name -> its line and next step; every class of the tree has a row
GUIDANCE: Mapping[str, Guidance] = {
    "JdpError": Guidance(lambda e: e.kind, None),
    # -- session and notebook
    "ConfigError": Guidance(lambda e: f"Setting {e.setting}: {e.reason}",
                          lambda e: Remedy("set_setting", name=e.setting)),
    "GateClosed": Guidance(_gate, lambda e: _gate_row(e.gate)[1]),
    "SessionClosed": Guidance(
        lambda e: f"The {e.what} is closed (the extension was unloaded).",
        Remedy("reopen_session")),
    "ServiceStartFailed": Guidance(
        lambda e: f"The offline reference service did not start ({e.reason}).{_log(e.log_tail)}",
        advise("read the service log above")),
    "TraceUnavailable": Guidance(
        lambda e: TRACE_REASONS[e.reason][0].format(detail=e.detail),
        lambda e: TRACE_REASONS[e.reason][1]),
    "BadCommand": Guidance(
        lambda e: f"{f'%{e.command}' if e.command else 'the magic'}: {e.reason}.",
        lambda e: advise(e.step) if e.step else Remedy("command_help", command=e.command)),
    # -- transport
    "TransportError": Guidance(
        lambda e: f"{e.action}: {_words(e)}",
        lambda e: CHECK_SERVICE if is_connection_failure(e) else RETRY),
    "OriginNotAllowed": Guidance(
        lambda e: f"Refused to send a token to {e.origin}: it is not one of the configured "
        "origins.", Remedy("set_setting", name="api_base_url")),
    "ResponseTooLarge": Guidance(
        lambda e: f"{e.action}: the answer is larger than {e.limit:,} bytes; stopped reading.",
        advise("ask for a smaller part (a limit or a narrower path)")),
    "DeadlineExceeded": Guidance(
        lambda e: f"{e.action}: no complete answer within {e.seconds:g} s.", RETRY),
    "UnexpectedContentType": Guidance(
        lambda e: f"{e.action}: the service answered {e.content_type!r}; this client reads "
        "JSON answers only and did not parse it. Whether the service acted on the request "
        "is unknown.", advise("check the service's state before retrying")),
    "AuthError": Guidance(
        lambda e: f"Not signed in ({e.reason}).",
        # the loopback sign-in's page never answered: the paste flow needs no redirect
        lambda e: Remedy("login", paste=True) if e.reason == "login_timeout" else LOGIN),
    "ScopeExpansionFailed": Guidance(
        _scopes, lambda e: SCOPE_EXPANSION_REASONS.get(e.reason, ("", LOGIN))[1]),
    "CredentialStoreError": Guidance(lambda e: f"Credential store {e.store}: {e.reason}",
                                   Remedy("set_setting", name="credentials_file")),
    # -- Design
    "DesignError": Guidance(lambda e: e.kind, None),
    "DesignRpcError": Guidance(
        lambda e: f"Design {e.operation}: JSON-RPC error {e.code}: {e.rpc_message}",
        lambda e: Remedy("operation_help", operation=e.operation)),
    "HandshakeCancelled": Guidance(
        lambda e: "The shared Design handshake was cancelled by another call; retry this "
        "call.", RETRY),
    "UnknownOperation": Guidance(
        lambda e: f"Design operation {e.operation!r} {_unknown_operation(e)[0]}.",
        lambda e: _unknown_operation(e)[1]),
    "InvalidArguments": Guidance(
        lambda e: f"Design {e.operation}: argument {e.field!r} {e.rule}.{_suggestion(e)}",
        _invalid_arguments_remedy),
    "NeedsConsent": Guidance(
        lambda e: "The Design service needs your consent before agents may use Design "
        "projects.", Remedy("consent")),
    "NeedsProjectGrant": Guidance(
        lambda e: f"Design project {e.project_id} needs a write grant or a finalized plan.",
        advise("approve the card, or finalize_plan first")),
    "GrantIneligible": Guidance(
        lambda e: f"Design project {e.project_id} cannot hold a durable grant.",
        Remedy("finalize_plan", per_batch=True)),
    "DesignApiError": Guidance(
        lambda e: f"Design {e.action} failed with HTTP {e.status}"
        + (f" (retry after {e.retry_after} s)." if e.retry_after is not None else "."),
        RETRY),
    "PermissionDenied": Guidance(
        lambda e: f"Design {e.operation} was not run: {e.reason}",
        Remedy("run_again", why="to be asked again")),
    "PermissionRefused": Guidance(
        lambda e: f"Design {e.operation} was not run: {_refusal(e.explanation)[0]}",
        lambda e: _refusal(e.explanation)[1]),
    "AwaitingApproval": Guidance(
        lambda e: f"{_pipeline(e.operation)} is awaiting approval on its card.",
        Remedy("answer_card")),
    "ApprovalClosed": Guidance(
        lambda e: f"The approval card for {_pipeline(e.operation)} was already answered.",
        Remedy("run_again", why="for a new card")),
    # -- Projects
    "ProjectsError": Guidance(lambda e: e.kind, None),
    "ProjectsApiError": Guidance(
        lambda e: f"Projects {e.action} failed with HTTP {e.status}: {_shown(e.body)}"
        + (f" (retry after {e.retry_after} s)" if e.retry_after is not None else ""), RETRY),
    "ProjectsChangeDenied": Guidance(
        lambda e: f"Projects {e.method} was not run: "
        + ("the person denied it." if e.reason == "denied_on_card" else
           "nobody can click its card here; nothing was sent." if e.reason == "nobody_can_click"
           else "the doc changed in the Project after its card was shown; nothing was sent."
           if e.reason == "changed_since_card" else "nobody can approve it here."),
        _denied_remedy),
    "ProjectsTransportFailed": Guidance(
        lambda e: f"Projects {e.action} ({e.route} route) got no usable answer: "
        f"{_words(e)}"
        + (f" (HTTP {e.status})" if e.status is not None else "") + ".",
        lambda e: CHECK_SERVICE if is_connection_failure(e) else RETRY),
    "ProjectsAuthFailed": Guidance(
        lambda e: f"Projects {e.action} ({e.route} route) was not signed in ({e.reason})"
        + (f" (HTTP {e.status})" if e.status is not None else "") + ".", LOGIN),
    "ProjectsOriginRefused": Guidance(
        lambda e: f"Projects {e.action} ({e.route} route): refused to send a token to "
        f"{e.origin}: it is not one of the configured origins.",
        Remedy("set_setting", name="web_base_url")),
    "NoAttachedProject": Guidance(
        lambda e: "No Project is attached to this session (CLAUDE_PROJECT_UUID is not set).",
        Remedy("attach_project")),
    "PathRejected": Guidance(lambda e: f"Path {e.path!r} rejected: {e.rule}.",
                             Remedy("project_info")),
    "DocNotFound": Guidance(
        lambda e: f"No doc or upload at {e.path!r}. Available: {_listing(e.available)}.",
        Remedy("project_info")),
    "KnowledgeBudgetExceeded": Guidance(
        lambda e: f"Writing this would add ~{e.estimate:,} tokens to {e.knowledge_size:,} of "
        f"{e.max_knowledge_size:,}. Nothing was sent.",
        Remedy("project_delete")),
    "UploadRejected": Guidance(
        lambda e: f"local_path {e.local_path!r} {UPLOAD_RULES.get(e.rule, e.rule)}; nothing "
        "was uploaded.",
        lambda e: (Remedy("name_encoding") if e.rule == "not_utf8"
                   else advise("give a readable file inside the working directory"))),
    "DownloadFailed": Guidance(lambda e: f"Download of {e.file_uuid} failed: {e.reason}", RETRY),
    "DownloadSizeMismatch": Guidance(
        lambda e: f"Download of {e.file_uuid} failed: {e.reason}. Nothing was saved.",
        advise("retry when the upload is saved")),
    "ReplaceIncomplete": Guidance(
        lambda e: f"Replacing {e.path!r} is half done: the old doc {e.deleted_doc_uuid} was "
        f"deleted but the new one was not created ({e.cause}). {_REREAD}",
        Remedy("project_history", restore=True)),
    "ReplaceOutcomeUnknown": Guidance(
        lambda e: f"Replacing {e.path!r} is half done: the old doc {e.deleted_doc_uuid} was "
        f"deleted and the create got no usable answer ({e.cause}), so the new doc may or may "
        f"not exist. {_REREAD}", Remedy("project_info")),
    "InvalidProjectsArgument": Guidance(
        lambda e: f"Projects {e.method}: argument {e.field!r} {e.rule}.",
        lambda e: (Remedy("project_history") if e.field == "entry_id"
                   else Remedy("project_help", method=e.method) if e.method in PROJECT_METHODS
                   else Remedy("project_help"))),
    "MalformedProjectsAnswer": Guidance(
        lambda e: f"Projects {e.action}: the service's answer {e.reason}; nothing was saved "
        "locally.", RETRY),
    "SyncRefused": Guidance(
        lambda e: f"Cannot sync {e.directory!r}: {SYNC_RULES.get(e.rule, e.rule)}"
        + ("; the run stopped there." if e.rule == "unwritable"
           else "; nothing was read or sent."),
        lambda e: (advise("make its files writable, then run the sync again")
                   if e.rule == "unwritable"
                   else advise("give a folder that exists and can be read"))),
    "SyncOverBudget": Guidance(
        lambda e: f"This sync would bring the knowledge to ~{e.knowledge_after:,} of "
        f"{e.max_knowledge_size:,} estimated tokens: remove at least {e.over:,} tokens "
        f"(~{4 * e.over:,} bytes) from the folder or the Project, or add ignore rules. "
        "Nothing was sent.", Remedy("sync_dry_run")),
}


#: the ends of a sentence (a line gets a full stop before "Next:" unless it has one)
SENTENCE_ENDS = (".", "?", "!")


def with_next(text: str, step: str | None) -> str:
    """A failure's line and its next step as "<line>. Next: <step>." (each one sentence):
    what a failed cell, a refusal's notice and the side panel say."""
    text = text.rstrip()
    if not step:
        return text
    if not text.endswith(SENTENCE_ENDS):
        text += "."
    step = step.rstrip()
    return f"{text} Next: {step}{'' if step.endswith(SENTENCE_ENDS) else '.'}"


def _row(error: BaseException) -> Guidance:
    """The row of the error's class, else of its nearest ancestor that has one (the
    root's row, `JdpError`, catches a class defined outside the tree)."""
    for klass in type(error).__mro__:
        if klass.__name__ in GUIDANCE:
            return GUIDANCE[klass.__name__]
    raise AssertionError("JdpError has a row")


def line(error: BaseException) -> str:
    """The error's one user-facing line."""
    return _row(error).line(error)


def remedy(error: BaseException) -> Remedy | None:
    """What the person can do next, as data, if anything."""
    found = _row(error).remedy
    return found(error) if callable(found) else found
