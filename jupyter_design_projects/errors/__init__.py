"""The one error tree of the client: every failure a user can see is one of these.

Errors mirror the wire: each carries fields (never only a message), and wire answers are
mapped to them in exactly one place per pipeline (`design/wire.py`, `projects/wire.py`,
`transport/http.py`). Messages are built from fields after redaction, so no token can
reach a message, repr or traceback. The notebook layer turns them into `UsageError` at the
magic boundary and nowhere else.

One module per layer (`transport`, `design`, `projects`, `session`), the root in `base`,
and each error's user-facing line and remedy in one table (`guidance.GUIDANCE`, keyed
by class name). A remedy is data (`remedy.Remedy`: an action and its arguments); `str(error)`
words it as a Python call (`calls`), the notebook as a magic (`notebook.remedies`). Imports
run one way: each layer's module → `base` → `guidance` and `calls` → `remedy`, none of
which imports an error class (a `lint-imports` contract); `base` loads the wording when an
error is first built, so the reference service, which only declares errors, loads none.
Every error declares its fields as annotations and sets them through `JdpError.__init__`;
`error.with_message(line)` is the same error worded otherwise, built through that
constructor. Import them from here
(`from jupyter_design_projects.errors import X`). A failure kind that code tells apart is
a code field (`TransportError.reason`: `connect`, `timeout`, ...), never its words.

    JdpError                                                        base.py
    ├── TransportError(action, reason, detail, status, retry_after)  no usable answer  transport.py
    │   ├── OriginNotAllowed(origin)               a token would have left the allowlist
    │   ├── ResponseTooLarge(action, limit)        the byte cap was hit while reading
    │   ├── DeadlineExceeded(action, seconds)      the total deadline passed
    │   └── UnexpectedContentType(action, content_type)   e.g. text/event-stream
    ├── AuthError(reason)                          no usable credential (second 401, no login)
    │   └── ScopeExpansionFailed(reason, detail)   Projects scopes could not be added
    ├── CredentialStoreError(store, reason)        the credential could not be read or saved
    ├── DesignError                                                   design.py
    │   ├── DesignRpcError(operation, code, rpc_message)  a JSON-RPC error answer
    │   ├── HandshakeCancelled()                   design_tool_shared_handshake_cancelled
    │   ├── UnknownOperation(operation, reason)    call `list` first / upgrade the client
    │   ├── InvalidArguments(operation, field, rule, suggestion)
    │   ├── NeedsConsent()                         HTTP 403 needs_consent
    │   ├── NeedsProjectGrant(project_id, prompt)  HTTP 403 needs_project_grant
    │   ├── GrantIneligible(project_id)            POST grants answered 404
    │   ├── DesignApiError(action, status, retry_after)  a Design REST route answered otherwise
    │   ├── PermissionDenied(operation, reason)    a person said no, or nobody could answer
    │   │   └── PermissionRefused(operation, reason, explanation, command)
    │   │                                          refused before sending: a code, in words
    │   ├── AwaitingApproval(operation)            a pending outcome was read too early
    │   └── ApprovalClosed(operation)              a card that was already answered
    ├── ProjectsError                                                 projects.py
    │   ├── ProjectsApiError(action, status, body, route, retry_after)  a non-2xx answer
    │   │   ├── ProjectsTransportFailed(action, status, body, route, reason, detail)
    │   │   │                                      no usable answer
    │   │   ├── ProjectsAuthFailed(…, reason, cause)   no usable credential (an AuthError under)
    │   │   └── ProjectsOriginRefused(…, origin)       the allowlist kept the token back
    │   ├── ProjectsChangeDenied(method, reason)   a model's write/delete nobody approved
    │   ├── NoAttachedProject()                    CLAUDE_PROJECT_UUID is not set
    │   ├── PathRejected(path, rule)               a path broke a path rule
    │   ├── DocNotFound(path, available)           no doc or upload at that path
    │   ├── KnowledgeBudgetExceeded(knowledge_size, estimate, max_knowledge_size)
    │   ├── UploadRejected(local_path, rule)       the local_path guard refused the file
    │   ├── DownloadFailed(file_uuid, reason)      e.g. not base64, over 20 MiB
    │   │   └── DownloadSizeMismatch(file_uuid, reason, sizes)   reported ≠ decoded, twice
    │   ├── ReplaceIncomplete(path, deleted_doc_uuid, cause)   delete done, create failed
    │   │   └── ReplaceOutcomeUnknown(path, deleted_doc_uuid, cause)   create unanswered
    │   ├── InvalidProjectsArgument(method, field, rule)   e.g. search n outside 1–15
    │   ├── MalformedProjectsAnswer(action, reason)        a 2xx answer of the wrong shape
    │   ├── SyncRefused(directory, rule)           a sync's folder: missing, unreadable
    │   └── SyncOverBudget(knowledge_size, knowledge_after, max_knowledge_size, over)
    ├── ConfigError(setting, reason)               a setting is missing or malformed  session.py
    ├── GateClosed(tool, gate)                     a policy / feature gate is off
    ├── SessionClosed(what)                        the background loop / session was closed
    ├── ServiceStartFailed(reason, log_tail)       the embedded reference service did not start
    ├── BadCommand(command, reason)                a magic line that does not parse
    └── TraceUnavailable(reason, detail)           the trace's view: off, no folder, no such N
"""

from __future__ import annotations

from .base import JdpError
from .design import (
    ApprovalClosed,
    AwaitingApproval,
    DesignApiError,
    DesignError,
    DesignRpcError,
    GrantIneligible,
    HandshakeCancelled,
    InvalidArguments,
    NeedsConsent,
    NeedsProjectGrant,
    PermissionDenied,
    PermissionRefused,
    UnknownOperation,
)
from .projects import (
    DocNotFound,
    DownloadFailed,
    DownloadSizeMismatch,
    InvalidProjectsArgument,
    KnowledgeBudgetExceeded,
    MalformedProjectsAnswer,
    NoAttachedProject,
    PathRejected,
    ProjectsApiError,
    ProjectsAuthFailed,
    ProjectsChangeDenied,
    ProjectsError,
    ProjectsOriginRefused,
    ProjectsTransportFailed,
    ReplaceIncomplete,
    ReplaceOutcomeUnknown,
    SyncOverBudget,
    SyncRefused,
    UploadRejected,
)
from .session import (
    BadCommand,
    ConfigError,
    GateClosed,
    ServiceStartFailed,
    SessionClosed,
    TraceUnavailable,
)
from .transport import (
    AuthError,
    CredentialStoreError,
    DeadlineExceeded,
    OriginNotAllowed,
    ResponseTooLarge,
    ScopeExpansionFailed,
    TransportError,
    UnexpectedContentType,
)

__all__ = [
    "GUIDANCE", "ApprovalClosed", "AuthError", "AwaitingApproval", "BadCommand", "ConfigError",
    "CredentialStoreError", "DeadlineExceeded", "DesignApiError", "DesignError",
    "DesignRpcError", "DocNotFound", "DownloadFailed", "DownloadSizeMismatch", "GateClosed",
    "GrantIneligible", "Guidance", "HandshakeCancelled", "InvalidArguments",
    "InvalidProjectsArgument", "JdpError", "KnowledgeBudgetExceeded", "MalformedProjectsAnswer",
    "NeedsConsent", "NeedsProjectGrant", "NoAttachedProject", "OriginNotAllowed",
    "PathRejected", "PermissionDenied", "PermissionRefused", "ProjectsApiError",
    "ProjectsAuthFailed", "ProjectsChangeDenied", "ProjectsError", "ProjectsOriginRefused",
    "ProjectsTransportFailed", "ReplaceIncomplete", "ReplaceOutcomeUnknown", "ResponseTooLarge",
    "ScopeExpansionFailed", "ServiceStartFailed", "SessionClosed", "SyncOverBudget",
    "SyncRefused", "TraceUnavailable", "TransportError",
    "UnexpectedContentType", "UnknownOperation", "UploadRejected",
    "base", "calls", "design", "guidance", "projects", "reasons", "remedy", "session",
    "transport",
]


def __getattr__(name: str) -> object:
    """`GUIDANCE` and `Guidance`, loaded on first use (the wording stays unloaded until an
    error is built or read)."""
    if name in ("GUIDANCE", "Guidance"):
        from . import guidance

        return getattr(guidance, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
