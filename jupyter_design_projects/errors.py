"""The one error tree of the client: every failure a user can see is one of these.

Errors mirror the wire: each carries fields (never only a message), and wire answers are
mapped to them in exactly one place per pipeline (`design/wire.py`, `projects/wire.py`,
`transport/http.py`). Messages are built from fields after redaction, so no token can
reach a message, repr or traceback. The notebook layer turns them into `UsageError` at the
magic boundary and nowhere else.

    JdpError
    ├── ConfigError(setting, reason)               a setting is missing or malformed
    ├── GateClosed(tool, gate)                     a policy / feature gate is off
    ├── TransportError(action, reason)             the request never produced a usable answer
    │   ├── OriginNotAllowed(origin)               a token would have left the allowlist
    │   ├── ResponseTooLarge(action, limit)        the byte cap was hit while reading
    │   ├── DeadlineExceeded(action, seconds)      the total deadline passed
    │   └── UnexpectedContentType(action, content_type)   e.g. text/event-stream
    ├── AuthError(reason)                          no usable credential (second 401, no login)
    │   └── ScopeExpansionFailed(reason)           Projects scopes could not be added
    ├── CredentialStoreError(store, reason)        the credential could not be read or saved
    ├── SessionClosed(what)                        the background loop / session was closed
    ├── ServiceStartFailed(reason, log_tail)       the embedded reference service did not start
    ├── BadCommand(command, reason)                a magic line that does not parse
    ├── DesignError
    │   ├── DesignRpcError(operation, code, message)       a JSON-RPC error answer
    │   ├── HandshakeCancelled()                   design_tool_shared_handshake_cancelled
    │   ├── UnknownOperation(operation, reason)    call `list` first / upgrade the client
    │   ├── InvalidArguments(operation, field, rule, suggestion)
    │   ├── NeedsConsent()                         HTTP 403 needs_consent
    │   ├── NeedsProjectGrant(project_id, prompt)  HTTP 403 needs_project_grant
    │   ├── GrantIneligible(project_id)            POST grants answered 404
    │   ├── DesignApiError(action, status)         a Design REST route answered otherwise
    │   ├── PermissionDenied(operation, reason)    a person said no, or nobody could answer
    │   │   └── PermissionRefused(operation, reason, explanation, command)
    │   │                                          refused before sending: a code, in words
    │   ├── AwaitingApproval(operation)            a pending outcome was read too early
    │   └── ApprovalClosed(operation)              a card that was already answered
    └── ProjectsError
        ├── ProjectsApiError(action, status, body, retry_after)   a non-2xx Projects answer
        ├── NoAttachedProject()                    CLAUDE_PROJECT_UUID is not set
        ├── PathRejected(path, rule)               a path broke a path rule
        ├── DocNotFound(path, available)           no doc or upload at that path
        ├── KnowledgeBudgetExceeded(knowledge_size, estimate, max_knowledge_size)
        ├── UploadRejected(local_path, rule)       the local_path guard refused the file
        ├── DownloadFailed(file_uuid, reason)      e.g. not base64, over 20 MiB
        │   └── DownloadSizeMismatch(file_uuid, sizes)   reported ≠ decoded, twice
        ├── ReplaceIncomplete(path, deleted_doc_uuid, cause)   delete done, create failed
        │   └── ReplaceOutcomeUnknown(path, deleted_doc_uuid, cause)   create unanswered
        ├── InvalidProjectsArgument(method, field, rule)   e.g. search n outside 1–15
        └── MalformedProjectsAnswer(action, reason)        a 2xx answer of the wrong shape
"""

from __future__ import annotations

from typing import Any


class JdpError(Exception):
    """Base of every error this package raises on purpose."""

    #: a stable machine-readable kind, used in tool_result blocks and tests
    kind: str = "error"

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields
        for name, value in fields.items():
            setattr(self, name, value)

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.fields.items())
        return f"{type(self).__name__}({inner})"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.kind, "message": self.message}
        for k, v in self.fields.items():
            if isinstance(v, (str, int, float, bool, type(None), list, tuple, dict)):
                out[k] = v
        return out


class ConfigError(JdpError):
    kind = "config_error"
    setting: str
    reason: str

    def __init__(self, setting: str, reason: str) -> None:
        super().__init__(f"Setting {setting}: {reason}", setting=setting, reason=reason)


class GateClosed(JdpError):
    kind = "gate_closed"
    tool: str
    gate: str

    #: how to open each gate; a gate not listed opens with `= True`
    OPENERS = {
        "essential_traffic_only": "essential-traffic-only mode is on "
        "(%config DesignProjects.essential_traffic_only = False)",
        "api_base_url": "no first-party service is configured "
        "(%config DesignProjects.api_base_url, or unset it for the reference service)",
    }

    def __init__(self, tool: str, gate: str) -> None:
        why = self.OPENERS.get(
            gate, f"the gate {gate!r} is off (%config DesignProjects.{gate} = True)"
        )
        super().__init__(f"{tool} is not available: {why}.", tool=tool, gate=gate)


# ---------------------------------------------------------------- transport


class TransportError(JdpError):
    kind = "transport_error"
    action: str
    reason: str

    def __init__(self, action: str, reason: str, **fields: Any) -> None:
        super().__init__(f"{action}: {reason}", action=action, reason=reason, **fields)


class OriginNotAllowed(TransportError):
    kind = "origin_not_allowed"
    origin: str

    def __init__(self, origin: str) -> None:
        JdpError.__init__(
            self,
            f"Refused to send a token to {origin}: it is not one of the configured origins.",
            action="request",
            reason="origin_not_allowed",
            origin=origin,
        )


class ResponseTooLarge(TransportError):
    kind = "response_too_large"
    action: str
    limit: int

    def __init__(self, action: str, limit: int) -> None:
        JdpError.__init__(
            self,
            f"{action}: the answer is larger than {limit:,} bytes; stopped reading.",
            action=action,
            reason="too_large",
            limit=limit,
        )


class DeadlineExceeded(TransportError):
    kind = "deadline_exceeded"
    action: str
    seconds: float

    def __init__(self, action: str, seconds: float) -> None:
        JdpError.__init__(
            self,
            f"{action}: no complete answer within {seconds:g} s.",
            action=action,
            reason="deadline",
            seconds=seconds,
        )


class UnexpectedContentType(TransportError):
    kind = "unexpected_content_type"
    action: str
    content_type: str

    def __init__(self, action: str, content_type: str) -> None:
        JdpError.__init__(
            self,
            f"{action}: the service answered {content_type!r}; this client reads JSON answers "
            "only and did not parse it. Whether the service acted on the request is unknown.",
            action=action,
            reason="content_type",
            content_type=content_type,
        )


# ---------------------------------------------------------------- credentials


class AuthError(JdpError):
    kind = "auth_error"
    reason: str

    def __init__(self, reason: str, message: str | None = None) -> None:
        super().__init__(
            message or f"Not signed in ({reason}). Run `%design login` to sign in again.",
            reason=reason,
        )


class ScopeExpansionFailed(AuthError):
    """Projects scopes could not be added to the stored credential.

    `reason` is one of: policy_disabled, no_token, custom_oauth_client, no_refresh_token,
    lock_contended, refreshed_elsewhere, save_failed, scopes_not_granted, refresh_refused.
    """

    kind = "scope_expansion_failed"
    reason: str
    detail: str

    MESSAGES = {
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

    def __init__(self, reason: str, detail: str = "") -> None:
        text = self.MESSAGES.get(reason, reason)
        JdpError.__init__(
            self,
            f"Could not add the Projects scopes: {text}" + (f" ({detail})" if detail else ""),
            reason=reason,
            detail=detail,
        )


class CredentialStoreError(JdpError):
    kind = "credential_store_error"
    store: str
    reason: str

    def __init__(self, store: str, reason: str) -> None:
        super().__init__(f"Credential store {store}: {reason}", store=store, reason=reason)


# ---------------------------------------------------------------- Design


class DesignError(JdpError):
    kind = "design_error"


class DesignRpcError(DesignError):
    kind = "design_rpc_error"
    operation: str
    code: int

    def __init__(self, operation: str, code: int, message: str) -> None:
        super().__init__(
            f"Design {operation}: JSON-RPC error {code}: {message}",
            operation=operation,
            code=code,
            rpc_message=message,
        )


class HandshakeCancelled(DesignError):
    kind = "design_tool_shared_handshake_cancelled"

    def __init__(self) -> None:
        super().__init__(
            "The shared Design handshake was cancelled by another call; retry this call."
        )


class UnknownOperation(DesignError):
    """`reason`: call_list_first | upgrade_client | not_in_catalogue."""

    kind = "unknown_operation"
    operation: str
    reason: str

    MESSAGES = {
        "call_list_first": "is not known yet; run `%design list` first to discover the catalogue",
        "upgrade_client": "is a write operation this client has no local schema for; upgrade "
        "jupyter-design-projects to use it",
        "not_in_catalogue": "is not in the service's catalogue",
    }

    def __init__(self, operation: str, reason: str) -> None:
        super().__init__(
            f"Design operation {operation!r} {self.MESSAGES.get(reason, reason)}.",
            operation=operation,
            reason=reason,
        )


class InvalidArguments(DesignError):
    kind = "invalid_arguments"
    operation: str
    field: str
    rule: str
    suggestion: str | None

    def __init__(
        self, operation: str, field: str, rule: str, suggestion: str | None = None
    ) -> None:
        hint = f" Did you mean {suggestion!r}?" if suggestion else ""
        super().__init__(
            f"Design {operation}: argument {field!r} {rule}.{hint}",
            operation=operation,
            field=field,
            rule=rule,
            suggestion=suggestion,
        )


class NeedsConsent(DesignError):
    kind = "needs_consent"

    def __init__(self) -> None:
        super().__init__(
            "The Design service needs your consent before agents may use Design projects "
            "(`%design consent`)."
        )


class NeedsProjectGrant(DesignError):
    kind = "needs_project_grant"
    project_id: str
    prompt: str

    def __init__(self, project_id: str, prompt: str = "") -> None:
        super().__init__(
            f"Design project {project_id} needs a write grant or a finalized plan.",
            project_id=project_id,
            prompt=prompt,
        )


class GrantIneligible(DesignError):
    kind = "grant_ineligible"
    project_id: str

    def __init__(self, project_id: str) -> None:
        super().__init__(
            f"Design project {project_id} cannot hold a durable grant; use finalize_plan "
            "for each batch of writes.",
            project_id=project_id,
        )


class PermissionDenied(DesignError):
    kind = "permission_denied"
    operation: str
    reason: str

    def __init__(self, operation: str, reason: str) -> None:
        super().__init__(f"Design {operation} was not run: {reason}", operation=operation,
                         reason=reason)


class AwaitingApproval(DesignError):
    kind = "awaiting_approval"
    operation: str

    def __init__(self, operation: str) -> None:
        super().__init__(
            f"Design {operation} is awaiting approval: click Approve or Deny on its card "
            "(or call .card.approve() / .card.deny()).",
            operation=operation,
        )


# ---------------------------------------------------------------- Projects


class ProjectsError(JdpError):
    kind = "projects_error"


class ProjectsApiError(ProjectsError):
    kind = "projects_api_error"
    action: str
    status: int
    body: str
    #: seconds the service asked to wait (`retry-after` on a 429 or 5xx), if it said
    retry_after: int | None

    def __init__(self, action: str, status: int, body: str,
                 retry_after: int | None = None) -> None:
        shown = body if len(body) <= 500 else body[:500] + "…"
        retry = f" (retry after {retry_after} s)" if retry_after is not None else ""
        super().__init__(
            f"Projects {action} failed with HTTP {status}: {shown}{retry}",
            action=action,
            status=status,
            body=body,
            retry_after=retry_after,
        )


class NoAttachedProject(ProjectsError):
    kind = "no_attached_project"

    def __init__(self) -> None:
        super().__init__(
            "No Project is attached to this session: set CLAUDE_PROJECT_UUID "
            "(the embedded reference service sets it for you)."
        )


class PathRejected(ProjectsError):
    kind = "path_rejected"
    path: str
    rule: str

    def __init__(self, path: str, rule: str) -> None:
        super().__init__(f"Path {path!r} rejected: {rule}.", path=path, rule=rule)


class DocNotFound(ProjectsError):
    kind = "doc_not_found"
    path: str
    available: list[str]

    def __init__(self, path: str, available: list[str]) -> None:
        listing = ", ".join(available) if available else "(the project is empty)"
        super().__init__(
            f"No doc or upload at {path!r}. Available: {listing}",
            path=path,
            available=list(available),
        )


class KnowledgeBudgetExceeded(ProjectsError):
    kind = "knowledge_budget_exceeded"
    knowledge_size: int
    estimate: int
    max_knowledge_size: int

    def __init__(self, knowledge_size: int, estimate: int, max_knowledge_size: int) -> None:
        super().__init__(
            f"Writing this would add ~{estimate:,} tokens to {knowledge_size:,} of "
            f"{max_knowledge_size:,}: delete unused docs or split the write. Nothing was sent.",
            knowledge_size=knowledge_size,
            estimate=estimate,
            max_knowledge_size=max_knowledge_size,
        )


class UploadRejected(ProjectsError):
    """`rule`: outside_cwd | missing | unreadable | not_regular | symlink_loop | replaced |
    too_large | not_utf8."""

    kind = "upload_rejected"
    local_path: str
    rule: str

    MESSAGES = {
        "outside_cwd": "is outside the working directory",
        "missing": "does not exist",
        "unreadable": "cannot be read",
        "not_regular": "is a directory or special file, not a regular file",
        "symlink_loop": "is a symlink loop",
        "replaced": "was replaced during the upload",
        "too_large": "is larger than 26,214,400 bytes (25 MiB)",
        "not_utf8": "is not UTF-8 text",
    }

    def __init__(self, local_path: str, rule: str) -> None:
        super().__init__(
            f"local_path {local_path!r} {self.MESSAGES.get(rule, rule)}; nothing was uploaded.",
            local_path=local_path,
            rule=rule,
        )


class DownloadFailed(ProjectsError):
    kind = "download_failed"
    file_uuid: str
    reason: str

    def __init__(self, file_uuid: str, reason: str) -> None:
        super().__init__(f"Download of {file_uuid} failed: {reason}", file_uuid=file_uuid,
                         reason=reason)


class ReplaceIncomplete(ProjectsError):
    kind = "replace_incomplete"
    path: str
    deleted_doc_uuid: str
    cause: str

    def __init__(self, path: str, deleted_doc_uuid: str, cause: str) -> None:
        super().__init__(
            f"Replacing {path!r} is half done: the old doc {deleted_doc_uuid} was deleted but "
            f"the new one was not created ({cause}). Re-read the project (`%project info`); "
            "the previous content is in `%project history`.",
            path=path,
            deleted_doc_uuid=deleted_doc_uuid,
            cause=cause,
        )


class InvalidProjectsArgument(ProjectsError):
    kind = "invalid_projects_argument"
    method: str
    field: str
    rule: str

    def __init__(self, method: str, field: str, rule: str) -> None:
        super().__init__(
            f"Projects {method}: argument {field!r} {rule}.", method=method, field=field,
            rule=rule,
        )


class MalformedProjectsAnswer(ProjectsError):
    kind = "malformed_projects_answer"
    action: str
    reason: str

    def __init__(self, action: str, reason: str) -> None:
        super().__init__(
            f"Projects {action}: the service's answer {reason}; nothing was saved locally.",
            action=action,
            reason=reason,
        )


# ---------------------------------------------------------------- notebook


class BadCommand(JdpError):
    """A `%design` / `%project` line that does not parse; `command` is the subcommand."""

    kind = "bad_command"
    command: str
    reason: str

    def __init__(self, command: str, reason: str) -> None:
        where = f"%{command}" if command else "the magic"
        super().__init__(f"{where}: {reason} (add --help for usage).", command=command,
                         reason=reason)


class ApprovalClosed(DesignError):
    kind = "approval_closed"
    operation: str

    def __init__(self, operation: str) -> None:
        super().__init__(
            f"The approval card for Design {operation} was already answered.",
            operation=operation,
        )


# ---------------------------------------------------------------- the embedded service


class ServiceStartFailed(JdpError):
    """The embedded reference service did not start. `reason`: exited | timeout | bad_line."""

    kind = "service_start_failed"
    reason: str
    log_tail: str

    def __init__(self, reason: str, log_tail: str = "") -> None:
        detail = f"\n--- service log (last lines) ---\n{log_tail}" if log_tail else ""
        super().__init__(
            f"The offline reference service did not start ({reason}).{detail}",
            reason=reason,
            log_tail=log_tail,
        )


class DesignApiError(DesignError):
    """A Design REST route (consent, grants) answered a status its contract does not name."""

    kind = "design_api_error"
    action: str
    status: int

    def __init__(self, action: str, status: int) -> None:
        super().__init__(f"Design {action} failed with HTTP {status}.", action=action,
                         status=status)


# ---------------------------------------------------------------- session


class SessionClosed(JdpError):
    kind = "session_closed"
    what: str

    def __init__(self, what: str) -> None:
        super().__init__(
            f"The {what} is closed (the extension was unloaded); run `%load_ext "
            "jupyter_design_projects` again.",
            what=what,
        )


# ---------------------------------------------------------------- projects (appended)


class DownloadSizeMismatch(DownloadFailed):
    """The reported size and the decoded bytes disagreed on the first download and on its
    one full retry: the upload is probably being modified. `sizes` holds one
    `(reported, decoded)` pair per attempt."""

    kind = "download_size_mismatch"
    sizes: list[tuple[int, int]]

    def __init__(self, file_uuid: str, sizes: list[tuple[int, int]]) -> None:
        seen = ", ".join(f"reported {r:,} bytes, decoded {d:,}" for r, d in sizes)
        reason = (f"size mismatch on every attempt ({seen}): the upload may be under "
                  "concurrent modification; retry when it is saved")
        JdpError.__init__(
            self, f"Download of {file_uuid} failed: {reason}. Nothing was saved.",
            file_uuid=file_uuid, reason=reason, sizes=[tuple(pair) for pair in sizes],
        )


class ReplaceOutcomeUnknown(ReplaceIncomplete):
    """The delete of a remote-session replace succeeded, then the create got no usable
    answer (a deadline, a dropped connection, a malformed answer): the new doc may or may
    not exist."""

    kind = "replace_outcome_unknown"

    def __init__(self, path: str, deleted_doc_uuid: str, cause: str) -> None:
        JdpError.__init__(
            self,
            f"Replacing {path!r} is half done: the old doc {deleted_doc_uuid} was deleted and "
            f"the create got no usable answer ({cause}), so the new doc may or may not exist. "
            "Re-read the project (`%project info`); the previous content is in "
            "`%project history`.",
            path=path,
            deleted_doc_uuid=deleted_doc_uuid,
            cause=cause,
        )


class PermissionRefused(PermissionDenied):
    """A Design call the permission rules stopped before anything was sent. `reason` is the
    rule's code (`consent_not_given`, `too_many_writes`, ...), the message a sentence that
    names the next step, and `command` the explicit command to run, when there is one."""

    kind = "permission_denied"
    operation: str
    reason: str
    command: str | None

    def __init__(self, operation: str, reason: str, explanation: str,
                 command: str | None = None) -> None:
        JdpError.__init__(self, f"Design {operation} was not run: {explanation}",
                          operation=operation, reason=reason, command=command)
