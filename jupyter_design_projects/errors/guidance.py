"""What each error says to the person: its one user-facing line (built from its fields)
and the next step, in one table. `JdpError` takes its message from here; nothing else
words an error, except a raiser that passes its own `message` (an OAuth answer, a PKCE
paste problem).

The table is keyed by class name, and this module imports no error class: the root
(`base`) reads it when an error is built, so the import runs one way only
(every error module → `base` → `guidance`), a contract `lint-imports` checks.
`tests/test_errors.py` checks that every class of the tree has its row and every row
names a class."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

LOGIN = "%design login"
#: A failure's line says what went wrong; its next step (`Guidance.next_step`) says what to
#: do, once: the notebook shows them as "<line>. Next: <step>." (`notebook.views`), so a
#: line names no command of its own (tests/test_error_lines_table.py walks every row).
#: why each gate is closed, and the command that opens it; a gate not listed opens with
#: `= True`
GATE_OPENERS = {
    "essential_traffic_only": ("essential-traffic-only mode is on",
                               "%config DesignProjects.essential_traffic_only = False"),
    "api_base_url": ("no first-party service is configured",
                     "%config DesignProjects.api_base_url (or unset it for the reference "
                     "service)"),
}
#: why the Projects scopes could not be added, and what to do about it
SCOPE_EXPANSION_REASONS = {
    "policy_disabled": ("the allow_projects_tool policy is off",
                        "%config DesignProjects.allow_projects_tool = True"),
    "no_token": ("there is no signed-in credential", LOGIN),
    "custom_oauth_client": ("the credential belongs to a custom OAuth client and cannot be "
                            "expanded", f"{LOGIN} (with the first-party client)"),
    "no_refresh_token": ("the credential has no refresh token", LOGIN),
    "lock_contended": ("another process holds the credential lock",
                       "run the cell again in a moment"),
    "refreshed_elsewhere": ("another process refreshed the credential without the project "
                            "scopes", "run the cell again"),
    "save_failed": ("the expanded credential could not be saved",
                    "%config DesignProjects.credentials_file"),
    "scopes_not_granted": ("refresh succeeded but project scopes were not granted", LOGIN),
    "refresh_refused": ("the token endpoint refused the refresh", LOGIN),
}
#: why an operation is unknown, and what to do about it
UNKNOWN_OPERATION_REASONS = {
    "call_list_first": ("is not known yet (the catalogue has not been read)", "%design list"),
    "upgrade_client": ("is a write operation this client has no local schema for",
                       "pip install --upgrade jupyter-design-projects"),
    "not_in_catalogue": ("is not in the service's catalogue", "%design list"),
}
#: the words of each SyncRefused rule
SYNC_RULES = {
    "missing": "no such folder",
    "not_a_directory": "it is not a folder",
    "unreadable": "the folder cannot be read",
    "unwritable": "a file in it cannot be written",
}
UPLOAD_RULES = {
    "outside_cwd": "is outside the working directory",
    "missing": "does not exist",
    "unreadable": "cannot be read",
    "not_regular": "is a directory or special file, not a regular file",
    "symlink_loop": "is a symlink loop",
    "replaced": "was replaced during the upload",
    "too_large": "is larger than 26,214,400 bytes (25 MiB)",
    "not_utf8": "is not UTF-8 text",
    "undecodable": "is not valid text in the encoding given",
}
#: what a transport failure's reason code means, in words, for the codes whose error
#: carries no words of its own (`detail`)
TRANSPORT_REASONS = {
    "deadline": "no complete answer within the request deadline",
    "too_large": "the answer was larger than its byte cap, so reading stopped",
}
#: the setting that turns approval cards back on (what `approval_mode = 'deny'` refusals name)
APPROVAL_MODE_ON = "%config DesignProjects.approval_mode = 'auto'"
APPROVAL_MODE_DENY = (
    "it needs a person's approval and approval cards are off (DesignProjects.approval_mode "
    f"is 'deny'). Run `{APPROVAL_MODE_ON}` (or 'widget') and run the call again.")
#: the transport reason codes (`errors.transport.REASONS`) that mean no connection was made
CONNECTION_FAILURES = frozenset({"connect"})
#: a Projects API body is quoted up to this many characters
BODY_SHOWN = 500
#: the `%project` subcommands a Projects method is named after (their --help)
PROJECT_SUBCOMMANDS = frozenset({"info", "read", "search", "write", "delete", "history",
                                 "restore"})


#: each way `%design trace` can fail: its line (from `detail`) and its next step
TRACE_REASONS = {
    "trace_off": ("The HTTP trace is off, so it holds no exchanges{detail}.",
                  "%design trace on, then run the calls again"),
    "no_exchanges": ("The HTTP trace holds no exchanges yet{detail}.",
                     "run a %design or %project call, then ask again"),
    "no_folder": ("Cannot write the HAR to {detail}: its folder does not exist.",
                  "create the folder, or give a path in one that exists"),
    "not_writable": ("Cannot write the HAR to {detail}.",
                     "give a path in a folder you can write to"),
    "out_of_range": ("There is no exchange {detail}.",
                     "%design trace lists the exchanges (column n); --curl alone takes the "
                     "last"),
}


@dataclasses.dataclass(frozen=True)
class Guidance:
    #: the error's message, from its fields
    line: Callable[[Any], str]
    #: what the person can do next (a command or an action), from the error where it
    #: depends on its fields, or None
    next_step: str | Callable[[Any], str] | None


def _gate_row(gate: str) -> tuple[str, str]:
    return GATE_OPENERS.get(gate, (f"the gate {gate!r} is off",
                                   f"%config DesignProjects.{gate} = True"))


def _gate(e: Any) -> str:
    return f"{e.tool} is not available: {_gate_row(e.gate)[0]}."


def _scopes(e: Any) -> str:
    text = SCOPE_EXPANSION_REASONS.get(e.reason, (e.reason, LOGIN))[0]
    return (f"Could not add the Projects scopes: {text}" + (f" ({e.detail})" if e.detail else "")
            + ".")


def _unknown_operation(e: Any) -> tuple[str, str]:
    return UNKNOWN_OPERATION_REASONS.get(e.reason, (e.reason, "%design list"))


def _invalid_arguments_step(e: Any) -> str:
    """Where the valid values are: the project ids, finalize_plan for a plan token, the
    catalogue for an operation name, else the operation's own fields."""
    if e.field in ("project_id", "project"):
        return "%design list_projects (the projects and their ids)"
    if e.field == "plan_token":  # only finalize_plan mints one
        return ("%design finalize_plan project_id=… deletes=[…] (or writes=[…]), approve its "
                "card, then pass its plan_token")
    if e.field == "operation":
        return "%design list"
    if e.operation == "deck":
        return "%design deck --help"
    return f"%design {e.operation} --help (its fields)"


def _denied_step(e: Any) -> str:
    if e.reason == "denied_on_card":
        return "run the call again to be asked again"
    if e.reason == "nobody_can_click":
        if e.method != "sync":  # a write, delete or restore: --yes is the explicit form
            return "run it in a live notebook, or add --yes to send it without a card"
        return "run it in a live notebook, or see the plan with --dry-run"
    if e.reason == "changed_since_card":
        return "run the cell again for a card of the doc as it is now"
    return "give AgentTools an approve callback"


def _pipeline(operation: str) -> str:
    """A card's call as its pipeline names it: `%project write` for a Projects change (its
    operation is "project …"), Design's operation name otherwise."""
    return f"%{operation}" if operation.startswith("project ") else f"Design {operation}"


def _refusal(explanation: str) -> tuple[str, str]:
    """A refusal's explanation (`core.permissions.explain`: "<why>. <What to do>.") as its
    line and its next step."""
    head, sep, step = explanation.rstrip().rpartition(". ")
    if not sep:
        return explanation, "run the call again"
    return head + ".", step[:1].lower() + step[1:].rstrip(".")


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
CONNECT_STEP = ("check that the service is running and the URL is right (%config "
                "DesignProjects.api_base_url / web_base_url; empty means the built-in "
                "reference service), then run the cell again")


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

#: error class name -> its line and next step; every class of the tree has a row
GUIDANCE: Mapping[str, Guidance] = {
    "JdpError": Guidance(lambda e: e.kind, None),
    # -- session and notebook
    "ConfigError": Guidance(lambda e: f"Setting {e.setting}: {e.reason}",
                          "%config DesignProjects"),
    "GateClosed": Guidance(_gate, lambda e: _gate_row(e.gate)[1]),
    "SessionClosed": Guidance(
        lambda e: f"The {e.what} is closed (the extension was unloaded).",
        "%load_ext jupyter_design_projects"),
    "ServiceStartFailed": Guidance(
        lambda e: f"The offline reference service did not start ({e.reason}).{_log(e.log_tail)}",
        "read the service log above"),
    "TraceUnavailable": Guidance(
        lambda e: TRACE_REASONS[e.reason][0].format(detail=e.detail),
        lambda e: TRACE_REASONS[e.reason][1]),
    "BadCommand": Guidance(
        lambda e: f"{f'%{e.command}' if e.command else 'the magic'}: {e.reason}.",
        lambda e: e.step or (f"%{e.command} --help" if e.command else "%design --help")),
    # -- transport
    "TransportError": Guidance(
        lambda e: f"{e.action}: {_words(e)}",
        lambda e: CONNECT_STEP if is_connection_failure(e) else "retry"),
    "OriginNotAllowed": Guidance(
        lambda e: f"Refused to send a token to {e.origin}: it is not one of the configured "
        "origins.", "%config DesignProjects.api_base_url"),
    "ResponseTooLarge": Guidance(
        lambda e: f"{e.action}: the answer is larger than {e.limit:,} bytes; stopped reading.",
        "ask for a smaller part (a limit or a narrower path)"),
    "DeadlineExceeded": Guidance(
        lambda e: f"{e.action}: no complete answer within {e.seconds:g} s.", "retry"),
    "UnexpectedContentType": Guidance(
        lambda e: f"{e.action}: the service answered {e.content_type!r}; this client reads "
        "JSON answers only and did not parse it. Whether the service acted on the request "
        "is unknown.", "check the service's state before retrying"),
    "AuthError": Guidance(lambda e: f"Not signed in ({e.reason}).", LOGIN),
    "ScopeExpansionFailed": Guidance(
        _scopes, lambda e: SCOPE_EXPANSION_REASONS.get(e.reason, ("", LOGIN))[1]),
    "CredentialStoreError": Guidance(lambda e: f"Credential store {e.store}: {e.reason}",
                                   "%config DesignProjects.credentials_file"),
    # -- Design
    "DesignError": Guidance(lambda e: e.kind, None),
    "DesignRpcError": Guidance(
        lambda e: f"Design {e.operation}: JSON-RPC error {e.code}: {e.rpc_message}",
        lambda e: f"%design {e.operation} --help (its fields), then run the call again"),
    "HandshakeCancelled": Guidance(
        lambda e: "The shared Design handshake was cancelled by another call; retry this "
        "call.", "retry"),
    "UnknownOperation": Guidance(
        lambda e: f"Design operation {e.operation!r} {_unknown_operation(e)[0]}.",
        lambda e: _unknown_operation(e)[1]),
    "InvalidArguments": Guidance(
        lambda e: f"Design {e.operation}: argument {e.field!r} {e.rule}.{_suggestion(e)}",
        _invalid_arguments_step),
    "NeedsConsent": Guidance(
        lambda e: "The Design service needs your consent before agents may use Design "
        "projects.", "%design consent"),
    "NeedsProjectGrant": Guidance(
        lambda e: f"Design project {e.project_id} needs a write grant or a finalized plan.",
        "approve the card, or finalize_plan first"),
    "GrantIneligible": Guidance(
        lambda e: f"Design project {e.project_id} cannot hold a durable grant.",
        "%design finalize_plan for each batch of writes"),
    "DesignApiError": Guidance(
        lambda e: f"Design {e.action} failed with HTTP {e.status}"
        + (f" (retry after {e.retry_after} s)." if e.retry_after is not None else "."),
        "retry"),
    "PermissionDenied": Guidance(
        lambda e: f"Design {e.operation} was not run: {e.reason}",
        "run the call again to be asked again"),
    "PermissionRefused": Guidance(
        lambda e: f"Design {e.operation} was not run: {_refusal(e.explanation)[0]}",
        lambda e: _refusal(e.explanation)[1]),
    "AwaitingApproval": Guidance(
        lambda e: f"{_pipeline(e.operation)} is awaiting approval on its card.",
        "click Approve or Deny on the card (from code: .card.approve() / .card.deny())"),
    "ApprovalClosed": Guidance(
        lambda e: f"The approval card for {_pipeline(e.operation)} was already answered.",
        "run the cell again for a new card"),
    # -- Projects
    "ProjectsError": Guidance(lambda e: e.kind, None),
    "ProjectsApiError": Guidance(
        lambda e: f"Projects {e.action} failed with HTTP {e.status}: {_shown(e.body)}"
        + (f" (retry after {e.retry_after} s)" if e.retry_after is not None else ""), "retry"),
    "ProjectsChangeDenied": Guidance(
        lambda e: f"Projects {e.method} was not run: "
        + ("the person denied it." if e.reason == "denied_on_card" else
           "nobody can click its card here; nothing was sent." if e.reason == "nobody_can_click"
           else "the doc changed in the Project after its card was shown; nothing was sent."
           if e.reason == "changed_since_card" else "nobody can approve it here."),
        _denied_step),
    "ProjectsTransportFailed": Guidance(
        lambda e: f"Projects {e.action} ({e.route} route) got no usable answer: "
        f"{_words(e)}"
        + (f" (HTTP {e.status})" if e.status is not None else "") + ".",
        lambda e: CONNECT_STEP if is_connection_failure(e) else "retry"),
    "ProjectsAuthFailed": Guidance(
        lambda e: f"Projects {e.action} ({e.route} route) was not signed in ({e.reason})"
        + (f" (HTTP {e.status})" if e.status is not None else "") + ".", LOGIN),
    "ProjectsOriginRefused": Guidance(
        lambda e: f"Projects {e.action} ({e.route} route): refused to send a token to "
        f"{e.origin}: it is not one of the configured origins.",
        "%config DesignProjects.web_base_url"),
    "NoAttachedProject": Guidance(
        lambda e: "No Project is attached to this session (CLAUDE_PROJECT_UUID is not set).",
        "set CLAUDE_PROJECT_UUID (the embedded reference service sets it for you)"),
    "PathRejected": Guidance(lambda e: f"Path {e.path!r} rejected: {e.rule}.", "%project info"),
    "DocNotFound": Guidance(
        lambda e: f"No doc or upload at {e.path!r}. Available: {_listing(e.available)}.",
        "%project info"),
    "KnowledgeBudgetExceeded": Guidance(
        lambda e: f"Writing this would add ~{e.estimate:,} tokens to {e.knowledge_size:,} of "
        f"{e.max_knowledge_size:,}. Nothing was sent.",
        "delete unused docs (%project delete PATH) or split the write"),
    "UploadRejected": Guidance(
        lambda e: f"local_path {e.local_path!r} {UPLOAD_RULES.get(e.rule, e.rule)}; nothing "
        "was uploaded.",
        lambda e: ("name its encoding (--encoding, or encoding=)" if e.rule == "not_utf8"
                   else "give a readable file inside the working directory")),
    "DownloadFailed": Guidance(lambda e: f"Download of {e.file_uuid} failed: {e.reason}", "retry"),
    "DownloadSizeMismatch": Guidance(
        lambda e: f"Download of {e.file_uuid} failed: {e.reason}. Nothing was saved.",
        "retry when the upload is saved"),
    "ReplaceIncomplete": Guidance(
        lambda e: f"Replacing {e.path!r} is half done: the old doc {e.deleted_doc_uuid} was "
        f"deleted but the new one was not created ({e.cause}). {_REREAD}",
        "%project history (then %project restore ENTRY)"),
    "ReplaceOutcomeUnknown": Guidance(
        lambda e: f"Replacing {e.path!r} is half done: the old doc {e.deleted_doc_uuid} was "
        f"deleted and the create got no usable answer ({e.cause}), so the new doc may or may "
        f"not exist. {_REREAD}", "%project info (to see whether the new doc exists)"),
    "InvalidProjectsArgument": Guidance(
        lambda e: f"Projects {e.method}: argument {e.field!r} {e.rule}.",
        lambda e: ("%project history (the entries and their ids)" if e.field == "entry_id"
                   else f"%project {e.method} --help" if e.method in PROJECT_SUBCOMMANDS
                   else "%project --help")),
    "MalformedProjectsAnswer": Guidance(
        lambda e: f"Projects {e.action}: the service's answer {e.reason}; nothing was saved "
        "locally.", "retry"),
    "SyncRefused": Guidance(
        lambda e: f"Cannot sync {e.directory!r}: {SYNC_RULES.get(e.rule, e.rule)}"
        + ("; the run stopped there." if e.rule == "unwritable"
           else "; nothing was read or sent."),
        lambda e: ("make its files writable, then run the sync again" if e.rule == "unwritable"
                   else "give a folder that exists and can be read")),
    "SyncOverBudget": Guidance(
        lambda e: f"This sync would bring the knowledge to ~{e.knowledge_after:,} of "
        f"{e.max_knowledge_size:,} estimated tokens: remove at least {e.over:,} tokens "
        f"(~{4 * e.over:,} bytes) from the folder or the Project, or add ignore rules. "
        "Nothing was sent.", "%project sync DIR --dry-run"),
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


def next_step(error: BaseException) -> str | None:
    """What the person can do next, if anything."""
    step = _row(error).next_step
    return step(error) if callable(step) else step
