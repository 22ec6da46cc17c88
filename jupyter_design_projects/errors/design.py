"""Errors of the Design pipeline: JSON-RPC and REST answers, the catalogue, argument
validation, the flat 403s, and the permission decision and its approval cards."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from .base import JdpError

if TYPE_CHECKING:
    from .remedy import Remedy


class DesignError(JdpError):
    kind: ClassVar[str] = "design_error"


class DesignRpcError(DesignError):
    """A JSON-RPC error answer; `rpc_message` is the service's (cleaned) message."""

    kind: ClassVar[str] = "design_rpc_error"
    operation: str
    code: int
    rpc_message: str

    def __init__(self, operation: str, code: int, message: str) -> None:
        super().__init__(operation=operation, code=code, rpc_message=message)


class HandshakeCancelled(DesignError):
    kind: ClassVar[str] = "design_tool_shared_handshake_cancelled"

    def __init__(self) -> None:
        super().__init__()


class UnknownOperation(DesignError):
    """`reason`: call_list_first | upgrade_client | not_in_catalogue."""

    kind: ClassVar[str] = "unknown_operation"
    operation: str
    reason: str

    def __init__(self, operation: str, reason: str) -> None:
        super().__init__(operation=operation, reason=reason)


class InvalidArguments(DesignError):
    kind: ClassVar[str] = "invalid_arguments"
    operation: str
    field: str
    rule: str
    suggestion: str | None

    def __init__(self, operation: str, field: str, rule: str,
                 suggestion: str | None = None, *, remedy: Remedy | None = None) -> None:
        super().__init__(operation=operation, field=field, rule=rule, suggestion=suggestion,
                         remedy=remedy)


class NeedsConsent(DesignError):
    """HTTP 403 `needs_consent`."""

    kind: ClassVar[str] = "needs_consent"

    def __init__(self) -> None:
        super().__init__()


class NeedsProjectGrant(DesignError):
    """HTTP 403 `needs_project_grant`, with the service's (cleaned) prompt."""

    kind: ClassVar[str] = "needs_project_grant"
    project_id: str
    prompt: str

    def __init__(self, project_id: str, prompt: str = "") -> None:
        super().__init__(project_id=project_id, prompt=prompt)


class GrantIneligible(DesignError):
    """POST /v1/design/grants answered 404: this project cannot hold a durable grant."""

    kind: ClassVar[str] = "grant_ineligible"
    project_id: str

    def __init__(self, project_id: str) -> None:
        super().__init__(project_id=project_id)


class DesignApiError(DesignError):
    """A Design REST route (consent, grants) answered a status its contract does not name."""

    kind: ClassVar[str] = "design_api_error"
    action: str
    status: int
    #: seconds the service asked to wait (`retry-after` on a 429 or 5xx), if it said
    retry_after: int | None

    def __init__(self, action: str, status: int, retry_after: int | None = None) -> None:
        super().__init__(action=action, status=status, retry_after=retry_after)


class PermissionDenied(DesignError):
    """A person said no, or nobody could answer."""

    kind: ClassVar[str] = "permission_denied"
    operation: str
    reason: str

    def __init__(self, operation: str, reason: str, **fields: Any) -> None:
        super().__init__(operation=operation, reason=reason, **fields)


class PermissionRefused(PermissionDenied):
    """A Design call the permission rules stopped before anything was sent. `reason` is the
    rule's code (`consent_not_given`, `too_many_writes`, ...), `explanation` a sentence that
    says why and what to do, and `remedy` the action to take, when there is one (else the
    explanation's second sentence is the remedy's words)."""

    kind: ClassVar[str] = "permission_denied"
    explanation: str

    def __init__(self, operation: str, reason: str, explanation: str,
                 remedy: Remedy | None = None) -> None:
        super().__init__(operation, reason, explanation=explanation, remedy=remedy)


class AwaitingApproval(DesignError):
    """A pending outcome was read before its card was answered."""

    kind: ClassVar[str] = "awaiting_approval"
    operation: str

    def __init__(self, operation: str) -> None:
        super().__init__(operation=operation)


class ApprovalClosed(DesignError):
    """A card that was already answered was answered again."""

    kind: ClassVar[str] = "approval_closed"
    operation: str

    def __init__(self, operation: str) -> None:
        super().__init__(operation=operation)
