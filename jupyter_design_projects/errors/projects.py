"""Errors of the Projects pipeline: API answers, the attached project, path and upload
rules, downloads, the knowledge budget, and half-done replaces."""

from __future__ import annotations

from typing import Any, ClassVar

from .base import JdpError


class ProjectsError(JdpError):
    kind: ClassVar[str] = "projects_error"


class ProjectsApiError(ProjectsError):
    """A non-2xx answer of the Projects API (`body` redacted, not yet shortened); `route`
    is the transport that sent it (org or remote-session), "" where it is not known."""

    kind: ClassVar[str] = "projects_api_error"
    action: str
    status: int | None
    body: str
    route: str
    #: seconds the service asked to wait (`retry-after` on a 429 or 5xx), if it said
    retry_after: int | None

    def __init__(self, action: str, status: int | None, body: str, route: str = "",
                 retry_after: int | None = None, **fields: Any) -> None:
        super().__init__(action=action, status=status, body=body, route=route,
                         retry_after=retry_after, **fields)


class ProjectsTransportFailed(ProjectsApiError):
    """A Projects request with no usable answer (spec §12: the transport reason is wrapped
    with the action and, where one was read, the HTTP status). `reason` is the transport's
    code (`errors.transport.REASONS`: `connect`, `timeout`, `too_large` (the byte cap),
    `deadline`, ...) and `detail` its words. The request may have reached the service, so
    a change it carried may have happened. `limit` is the byte cap when that was the
    reason."""

    kind: ClassVar[str] = "projects_transport_failed"
    reason: str
    detail: str
    limit: int | None

    def __init__(self, action: str, reason: str, route: str, status: int | None = None,
                 limit: int | None = None, *, detail: str = "") -> None:
        super().__init__(action, status, "", route, reason=reason, detail=detail,
                         limit=limit)


class ProjectsAuthFailed(ProjectsApiError):
    """A Projects request that had no usable credential (spec §12: wrapped with the action,
    the HTTP status and the route): a 401 after the one refresh (`status` 401), a failed
    refresh, or the Projects scopes that could not be added. `reason` is the credential
    error's reason and `cause` its kind; the credential error itself (an `AuthError`) is
    `__cause__`, which sign-in guidance reads (`labserver/failures.py`)."""

    kind: ClassVar[str] = "projects_auth_failed"
    reason: str
    cause: str

    def __init__(self, action: str, route: str, reason: str, cause: str,
                 status: int | None = None, message: str | None = None) -> None:
        super().__init__(action, status, "", route, reason=reason, cause=cause,
                         message=message)


class ProjectsOriginRefused(ProjectsApiError):
    """A Projects request the allowlist stopped before any token left (spec §12: wrapped
    with the action and the route): `origin` is not one of the configured origins."""

    kind: ClassVar[str] = "projects_origin_refused"
    origin: str

    def __init__(self, action: str, route: str, origin: str) -> None:
        super().__init__(action, None, "", route, origin=origin)


class ProjectsChangeDenied(ProjectsError):
    """A Projects change that no person approved, or whose doc changed after its card was
    shown, so nothing was sent. `reason`: denied_on_card | nobody_can_approve |
    nobody_can_click | changed_since_card."""

    kind: ClassVar[str] = "projects_change_denied"
    method: str
    reason: str

    def __init__(self, method: str, reason: str) -> None:
        super().__init__(method=method, reason=reason)


class NoAttachedProject(ProjectsError):
    kind: ClassVar[str] = "no_attached_project"

    def __init__(self) -> None:
        super().__init__()


class PathRejected(ProjectsError):
    kind: ClassVar[str] = "path_rejected"
    path: str
    rule: str

    def __init__(self, path: str, rule: str) -> None:
        super().__init__(path=path, rule=rule)


class DocNotFound(ProjectsError):
    kind: ClassVar[str] = "doc_not_found"
    path: str
    available: list[str]

    def __init__(self, path: str, available: list[str]) -> None:
        super().__init__(path=path, available=list(available))


class KnowledgeBudgetExceeded(ProjectsError):
    kind: ClassVar[str] = "knowledge_budget_exceeded"
    knowledge_size: int
    estimate: int
    max_knowledge_size: int

    def __init__(self, knowledge_size: int, estimate: int, max_knowledge_size: int) -> None:
        super().__init__(knowledge_size=knowledge_size, estimate=estimate,
                         max_knowledge_size=max_knowledge_size)


class UploadRejected(ProjectsError):
    """`rule`: outside_cwd | missing | unreadable | not_regular | symlink_loop | replaced |
    too_large | not_utf8 | undecodable (not valid text in the encoding asked for)."""

    kind: ClassVar[str] = "upload_rejected"
    local_path: str
    rule: str

    def __init__(self, local_path: str, rule: str) -> None:
        super().__init__(local_path=local_path, rule=rule)


class DownloadFailed(ProjectsError):
    """A download that could not be saved, e.g. not base64 or over 20 MiB."""

    kind: ClassVar[str] = "download_failed"
    file_uuid: str
    reason: str

    def __init__(self, file_uuid: str, reason: str, **fields: Any) -> None:
        super().__init__(file_uuid=file_uuid, reason=reason, **fields)


class DownloadSizeMismatch(DownloadFailed):
    """The reported size and the decoded bytes disagreed on the first download and on its
    one full retry: the upload is probably being modified. `sizes` holds one
    `(reported, decoded)` pair per attempt."""

    kind: ClassVar[str] = "download_size_mismatch"
    sizes: list[tuple[int, int]]

    def __init__(self, file_uuid: str, sizes: list[tuple[int, int]]) -> None:
        seen = ", ".join(f"reported {r:,} bytes, decoded {d:,}" for r, d in sizes)
        reason = (f"size mismatch on every attempt ({seen}): the upload may be under "
                  "concurrent modification; retry when it is saved")
        pairs: list[tuple[int, int]] = [(r, d) for r, d in sizes]
        super().__init__(file_uuid, reason, sizes=pairs)


class ReplaceIncomplete(ProjectsError):
    """A replace deleted the old doc and failed to create the new one."""

    kind: ClassVar[str] = "replace_incomplete"
    path: str
    deleted_doc_uuid: str
    cause: str

    def __init__(self, path: str, deleted_doc_uuid: str, cause: str) -> None:
        super().__init__(path=path, deleted_doc_uuid=deleted_doc_uuid, cause=cause)


class ReplaceOutcomeUnknown(ReplaceIncomplete):
    """The delete of a remote-session replace succeeded, then the create got no usable
    answer (a deadline, a dropped connection, a malformed answer): the new doc may or may
    not exist."""

    kind: ClassVar[str] = "replace_outcome_unknown"


class InvalidProjectsArgument(ProjectsError):
    kind: ClassVar[str] = "invalid_projects_argument"
    method: str
    field: str
    rule: str

    def __init__(self, method: str, field: str, rule: str) -> None:
        super().__init__(method=method, field=field, rule=rule)


class MalformedProjectsAnswer(ProjectsError):
    """A 2xx answer of the wrong shape."""

    kind: ClassVar[str] = "malformed_projects_answer"
    action: str
    reason: str

    def __init__(self, action: str, reason: str) -> None:
        super().__init__(action=action, reason=reason)


class SyncRefused(ProjectsError):
    """`%project sync` refused its folder: before anything was read or sent (missing,
    not_a_directory, unreadable), or, on a pull, a file of it could not be written
    (unwritable: the run stops there, its report says what was written)."""

    kind: ClassVar[str] = "sync_refused"
    directory: str
    rule: str

    def __init__(self, directory: str, rule: str) -> None:
        super().__init__(directory=directory, rule=rule)


class SyncOverBudget(ProjectsError):
    """A sync plan whose writes would take the knowledge past its budget: refused before
    any card, with how many estimated tokens to remove."""

    kind: ClassVar[str] = "sync_over_budget"
    knowledge_size: int
    knowledge_after: int
    max_knowledge_size: int
    over: int

    def __init__(self, knowledge_size: int, knowledge_after: int,
                 max_knowledge_size: int) -> None:
        super().__init__(knowledge_size=knowledge_size, knowledge_after=knowledge_after,
                         max_knowledge_size=max_knowledge_size,
                         over=max(0, knowledge_after - max_knowledge_size))
