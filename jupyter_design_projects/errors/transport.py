"""Errors of the transport layer: a request that produced no usable answer, and a
credential that could not be used, refreshed, expanded, read or saved."""

from __future__ import annotations

from typing import Any, ClassVar

from .base import JdpError

#: why a request produced no usable answer: `TransportError.reason` is one of these codes,
#: and code matches on it (never on the words, which are `detail`)
REASONS = frozenset({
    "connect",             # no connection was made (refused, no route, connect timed out)
    "timeout",             # connected, then a read or write timed out
    "network",             # the exchange broke off (connection reset, protocol error)
    "invalid_url",         # the request could not be built from its URL
    "encoding",            # the answer was compressed although identity was asked for
    "not_json",            # the answer's body is not JSON
    "malformed",           # a JSON answer of the wrong shape
    "http_status",         # a status the route's contract does not name
    "origin_not_allowed",  # OriginNotAllowed
    "too_large",           # ResponseTooLarge
    "deadline",            # DeadlineExceeded
    "content_type",        # UnexpectedContentType
})


class TransportError(JdpError):
    """The request never produced a usable answer. `reason` is a code of `REASONS`,
    `detail` the raiser's words for it ("" when the code says it all), `status` the HTTP
    status when one was read."""

    kind: ClassVar[str] = "transport_error"
    action: str
    reason: str
    detail: str
    status: int | None
    #: seconds the service asked to wait (`retry-after` on a 429 or 5xx), if it said
    retry_after: int | None

    def __init__(self, action: str, reason: str, status: int | None = None, *,
                 detail: str = "", message: str | None = None,
                 retry_after: int | None = None, **fields: Any) -> None:
        if reason not in REASONS:
            raise ValueError(f"TransportError: {reason!r} is not a reason code")
        super().__init__(message=message, action=action, reason=reason, detail=detail,
                         status=status, retry_after=retry_after, **fields)


class OriginNotAllowed(TransportError):
    kind: ClassVar[str] = "origin_not_allowed"
    origin: str

    def __init__(self, origin: str) -> None:
        super().__init__("request", "origin_not_allowed", origin=origin)


class ResponseTooLarge(TransportError):
    kind: ClassVar[str] = "response_too_large"
    limit: int

    def __init__(self, action: str, limit: int, status: int | None = None) -> None:
        super().__init__(action, "too_large", status, limit=limit)


class DeadlineExceeded(TransportError):
    kind: ClassVar[str] = "deadline_exceeded"
    seconds: float

    def __init__(self, action: str, seconds: float) -> None:
        super().__init__(action, "deadline", seconds=seconds)


class UnexpectedContentType(TransportError):
    kind: ClassVar[str] = "unexpected_content_type"
    content_type: str

    def __init__(self, action: str, content_type: str, status: int | None = None) -> None:
        super().__init__(action, "content_type", status, content_type=content_type)


class AuthError(JdpError):
    """No usable credential. The raiser may say why in its own words (`message`)."""

    kind: ClassVar[str] = "auth_error"
    reason: str

    def __init__(self, reason: str, message: str | None = None, **fields: Any) -> None:
        super().__init__(message=message, reason=reason, **fields)


class ScopeExpansionFailed(AuthError):
    """Projects scopes could not be added to the stored credential.

    `reason` is one of: policy_disabled, no_token, custom_oauth_client, no_refresh_token,
    lock_contended, refreshed_elsewhere, save_failed, scopes_not_granted, refresh_refused;
    `detail` what the token endpoint said, when it said something.
    """

    kind: ClassVar[str] = "scope_expansion_failed"
    detail: str

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason, detail=detail)


class CredentialStoreError(JdpError):
    kind: ClassVar[str] = "credential_store_error"
    store: str
    reason: str

    def __init__(self, store: str, reason: str) -> None:
        super().__init__(store=store, reason=reason)
