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
#: how to open each gate; a gate not listed opens with `= True`
GATE_OPENERS = {
    "essential_traffic_only": "essential-traffic-only mode is on "
    "(%config DesignProjects.essential_traffic_only = False)",
    "api_base_url": "no first-party service is configured "
    "(%config DesignProjects.api_base_url, or unset it for the reference service)",
}
SCOPE_EXPANSION_REASONS = {
    "policy_disabled": "the allow_projects_tool policy is off",
    "no_token": "there is no signed-in credential; run `%design login`",
    "custom_oauth_client": "the credential belongs to a custom OAuth client and cannot be "
    "expanded; sign in with the first-party client (`%design login`)",
    "no_refresh_token": "the credential has no refresh token; sign in again (`%design login`)",
    "lock_contended": "another process holds the credential lock; try again in a moment",
    "refreshed_elsewhere": "another process refreshed the credential without the project "
    "scopes; try again",
    "save_failed": "the expanded credential could not be saved",
    "scopes_not_granted": "refresh succeeded but project scopes were not granted",
    "refresh_refused": "the token endpoint refused the refresh; sign in again "
    "(`%design login`)",
}
UNKNOWN_OPERATION_REASONS = {
    "call_list_first": "is not known yet; run `%design list` first to discover the catalogue",
    "upgrade_client": "is a write operation this client has no local schema for; upgrade "
    "jupyter-design-projects to use it",
    "not_in_catalogue": "is not in the service's catalogue",
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
    "not_utf8": "is not UTF-8 text (name its encoding with --encoding, or encoding=)",
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


def _gate(e: Any) -> str:
    why = GATE_OPENERS.get(e.gate, f"the gate {e.gate!r} is off "
                           f"(%config DesignProjects.{e.gate} = True)")
    return f"{e.tool} is not available: {why}."


def _scopes(e: Any) -> str:
    text = SCOPE_EXPANSION_REASONS.get(e.reason, e.reason)
    return f"Could not add the Projects scopes: {text}" + (f" ({e.detail})" if e.detail else "")


def _shown(body: str) -> str:
    return body if len(body) <= BODY_SHOWN else body[:BODY_SHOWN] + "…"


def _listing(available: list[str]) -> str:
    return ", ".join(available) if available else "(the project is empty)"


def _log(tail: str) -> str:
    return f"\n--- service log (last lines) ---\n{tail}" if tail else ""


def _suggestion(e: Any) -> str:
    if e.field == "plan_token":  # only finalize_plan mints one
        return (" A plan token comes from finalize_plan: run `%design finalize_plan "
                "project_id=… deletes=[…]` (or writes=[…]), approve its card, then pass its "
                "plan_token.")
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
    return (f"{error.action}: could not connect to {where}. Check that the service is "
            "running and the URL is right (`%config DesignProjects.api_base_url` / "
            "`web_base_url`; empty means the built-in reference service), then run the "
            "cell again.")


class _Rewordable(Protocol):
    def with_message(self, message: str) -> Any: ...


_E = TypeVar("_E", bound=_Rewordable)


def reworded(error: _E, message: str) -> _E:
    """`error` (same class and fields) whose line is `message`, built through the error's
    constructor (`JdpError.with_message`): for the few lines only the notebook can
    complete (a did-you-mean, the configured URL)."""
    twin: _E = error.with_message(message)
    return twin


_REREAD = "Re-read the project (`%project info`); the previous content is in `%project history`."

#: error class name -> its line and next step; every class of the tree has a row
GUIDANCE: Mapping[str, Guidance] = {
    "JdpError": Guidance(lambda e: e.kind, None),
    # -- session and notebook
    "ConfigError": Guidance(lambda e: f"Setting {e.setting}: {e.reason}",
                          "%config DesignProjects"),
    "GateClosed": Guidance(_gate, "%config DesignProjects"),
    "SessionClosed": Guidance(
        lambda e: f"The {e.what} is closed (the extension was unloaded); run `%load_ext "
        "jupyter_design_projects` again.", "%load_ext jupyter_design_projects"),
    "ServiceStartFailed": Guidance(
        lambda e: f"The offline reference service did not start ({e.reason}).{_log(e.log_tail)}",
        "read the service log above"),
    "TraceUnavailable": Guidance(
        lambda e: TRACE_REASONS[e.reason][0].format(detail=e.detail),
        lambda e: TRACE_REASONS[e.reason][1]),
    "BadCommand": Guidance(
        lambda e: f"{f'%{e.command}' if e.command else 'the magic'}: {e.reason} "
        "(add --help for usage).", "--help"),
    # -- transport
    "TransportError": Guidance(lambda e: f"{e.action}: {_words(e)}", "retry"),
    "OriginNotAllowed": Guidance(
        lambda e: f"Refused to send a token to {e.origin}: it is not one of the configured "
        "origins.", "%config DesignProjects.api_base_url"),
    "ResponseTooLarge": Guidance(
        lambda e: f"{e.action}: the answer is larger than {e.limit:,} bytes; stopped reading.",
        None),
    "DeadlineExceeded": Guidance(
        lambda e: f"{e.action}: no complete answer within {e.seconds:g} s.", "retry"),
    "UnexpectedContentType": Guidance(
        lambda e: f"{e.action}: the service answered {e.content_type!r}; this client reads "
        "JSON answers only and did not parse it. Whether the service acted on the request "
        "is unknown.", "check the service's state before retrying"),
    "AuthError": Guidance(
        lambda e: f"Not signed in ({e.reason}). Run `%design login` to sign in again.", LOGIN),
    "ScopeExpansionFailed": Guidance(_scopes, LOGIN),
    "CredentialStoreError": Guidance(lambda e: f"Credential store {e.store}: {e.reason}",
                                   "%config DesignProjects.credentials_file"),
    # -- Design
    "DesignError": Guidance(lambda e: e.kind, None),
    "DesignRpcError": Guidance(
        lambda e: f"Design {e.operation}: JSON-RPC error {e.code}: {e.rpc_message}", None),
    "HandshakeCancelled": Guidance(
        lambda e: "The shared Design handshake was cancelled by another call; retry this "
        "call.", "retry"),
    "UnknownOperation": Guidance(
        lambda e: f"Design operation {e.operation!r} "
        f"{UNKNOWN_OPERATION_REASONS.get(e.reason, e.reason)}.", "%design list"),
    "InvalidArguments": Guidance(
        lambda e: f"Design {e.operation}: argument {e.field!r} {e.rule}.{_suggestion(e)}",
        "%design list --full"),
    "NeedsConsent": Guidance(
        lambda e: "The Design service needs your consent before agents may use Design "
        "projects (`%design consent`).", "%design consent"),
    "NeedsProjectGrant": Guidance(
        lambda e: f"Design project {e.project_id} needs a write grant or a finalized plan.",
        "approve the card, or finalize_plan first"),
    "GrantIneligible": Guidance(
        lambda e: f"Design project {e.project_id} cannot hold a durable grant; use "
        "finalize_plan for each batch of writes.", "finalize_plan"),
    "DesignApiError": Guidance(
        lambda e: f"Design {e.action} failed with HTTP {e.status}"
        + (f" (retry after {e.retry_after} s)." if e.retry_after is not None else "."),
        "retry"),
    "PermissionDenied": Guidance(
        lambda e: f"Design {e.operation} was not run: {e.reason}", None),
    "PermissionRefused": Guidance(
        lambda e: f"Design {e.operation} was not run: {e.explanation}", None),
    "AwaitingApproval": Guidance(
        lambda e: f"Design {e.operation} is awaiting approval: click Approve or Deny on its "
        "card (or call .card.approve() / .card.deny()).", "answer the card"),
    "ApprovalClosed": Guidance(
        lambda e: f"The approval card for Design {e.operation} was already answered.", None),
    # -- Projects
    "ProjectsError": Guidance(lambda e: e.kind, None),
    "ProjectsApiError": Guidance(
        lambda e: f"Projects {e.action} failed with HTTP {e.status}: {_shown(e.body)}"
        + (f" (retry after {e.retry_after} s)" if e.retry_after is not None else ""), None),
    "ProjectsChangeDenied": Guidance(
        lambda e: f"Projects {e.method} was not run: "
        + ("the person denied it." if e.reason == "denied_on_card" else
           "nobody can click its card here (run it in a live notebook, or see the plan "
           "with --dry-run); nothing was sent." if e.reason == "nobody_can_click" else
           "nobody can approve it here (give AgentTools an approve callback)."), None),
    "ProjectsTransportFailed": Guidance(
        lambda e: f"Projects {e.action} ({e.route} route) got no usable answer: "
        f"{_words(e)}"
        + (f" (HTTP {e.status})" if e.status is not None else "") + ".", "retry"),
    "ProjectsAuthFailed": Guidance(
        lambda e: f"Projects {e.action} ({e.route} route) was not signed in ({e.reason})"
        + (f" (HTTP {e.status})" if e.status is not None else "")
        + ". Run `%design login` to sign in again.", LOGIN),
    "ProjectsOriginRefused": Guidance(
        lambda e: f"Projects {e.action} ({e.route} route): refused to send a token to "
        f"{e.origin}: it is not one of the configured origins.",
        "%config DesignProjects.web_base_url"),
    "NoAttachedProject": Guidance(
        lambda e: "No Project is attached to this session: set CLAUDE_PROJECT_UUID "
        "(the embedded reference service sets it for you).", "set CLAUDE_PROJECT_UUID"),
    "PathRejected": Guidance(lambda e: f"Path {e.path!r} rejected: {e.rule}.", "%project info"),
    "DocNotFound": Guidance(
        lambda e: f"No doc or upload at {e.path!r}. Available: {_listing(e.available)}",
        "%project info"),
    "KnowledgeBudgetExceeded": Guidance(
        lambda e: f"Writing this would add ~{e.estimate:,} tokens to {e.knowledge_size:,} of "
        f"{e.max_knowledge_size:,}: delete unused docs or split the write. Nothing was sent.",
        "%project delete PATH"),
    "UploadRejected": Guidance(
        lambda e: f"local_path {e.local_path!r} {UPLOAD_RULES.get(e.rule, e.rule)}; nothing "
        "was uploaded.", None),
    "DownloadFailed": Guidance(lambda e: f"Download of {e.file_uuid} failed: {e.reason}", "retry"),
    "DownloadSizeMismatch": Guidance(
        lambda e: f"Download of {e.file_uuid} failed: {e.reason}. Nothing was saved.",
        "retry when the upload is saved"),
    "ReplaceIncomplete": Guidance(
        lambda e: f"Replacing {e.path!r} is half done: the old doc {e.deleted_doc_uuid} was "
        f"deleted but the new one was not created ({e.cause}). {_REREAD}", "%project history"),
    "ReplaceOutcomeUnknown": Guidance(
        lambda e: f"Replacing {e.path!r} is half done: the old doc {e.deleted_doc_uuid} was "
        f"deleted and the create got no usable answer ({e.cause}), so the new doc may or may "
        f"not exist. {_REREAD}", "%project info"),
    "InvalidProjectsArgument": Guidance(
        lambda e: f"Projects {e.method}: argument {e.field!r} {e.rule}.", None),
    "MalformedProjectsAnswer": Guidance(
        lambda e: f"Projects {e.action}: the service's answer {e.reason}; nothing was saved "
        "locally.", None),
    "SyncRefused": Guidance(
        lambda e: f"Cannot sync {e.directory!r}: {SYNC_RULES.get(e.rule, e.rule)}"
        + ("; the run stopped there." if e.rule == "unwritable"
           else "; nothing was read or sent."), None),
    "SyncOverBudget": Guidance(
        lambda e: f"This sync would bring the knowledge to ~{e.knowledge_after:,} of "
        f"{e.max_knowledge_size:,} estimated tokens: remove at least {e.over:,} tokens "
        f"(~{4 * e.over:,} bytes) from the folder or the Project, or add ignore rules. "
        "Nothing was sent.", "%project sync DIR --dry-run"),
}


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
