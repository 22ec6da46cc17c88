"""The one place Design MCP answers become results or errors: status codes, flat 403
bodies, content types and JSON-RPC envelopes are read here and nowhere else. Every value
read comes from `Answer.json()`, with each secret the session knows already replaced
(`transport/http.py`); a server text kept in an error is redacted once more after its
control characters are dropped (a token split by one is whole again then)."""

from __future__ import annotations

from typing import Any

from ..core.redaction import Redactor, redact_then_truncate
from ..errors import (
    AuthError,
    DesignRpcError,
    NeedsConsent,
    NeedsProjectGrant,
    TransportError,
    UnexpectedContentType,
)
from ..transport.http import Answer

#: how much of an unexpected body an error may quote
BODY_SHOWN = 200
#: how much of a server-provided prompt or message is kept
PROMPT_KEPT = 2_000

EVENT_STREAM = "text/event-stream"


def refuse_event_stream(answer: Answer) -> None:
    """An SSE answer is rejected (`send` refuses it from its headers, unread)."""
    if answer.content_type == EVENT_STREAM:
        raise UnexpectedContentType(answer.action, EVENT_STREAM, answer.status)


def check_status(answer: Answer) -> None:
    """Raise the error a non-2xx answer stands for (404 is the session's business)."""
    refuse_event_stream(answer)
    if 200 <= answer.status < 300:
        return
    check_auth(answer)
    if answer.status == 403:
        _raise_flat_403(answer)
    retry = f" (retry after {answer.retry_after} s)" if answer.retry_after is not None else ""
    raise TransportError(
        answer.action, "http_status", answer.status,
        detail=f"HTTP {answer.status}: {shown_body(answer)}{retry}",
        retry_after=answer.retry_after,
    )


def check_auth(answer: Answer) -> None:
    """A 401 that reaches a Design route (BearerAuth already refreshed once) is an
    AuthError telling the person to sign in again."""
    if answer.status == 401:
        raise AuthError(
            "rejected",
            "The Design service rejected the credential (HTTP 401) even after a refresh.",
        )


def flat_error(answer: Answer) -> tuple[str | None, dict]:
    """The `error` kind of a flat JSON error body (`{"error": "needs_consent", ...}`) and
    the body, or (None, {}) when the answer is not one."""
    body: Any = None
    if answer.content_type == "application/json":
        try:
            body = answer.json()
        except TransportError:
            body = None
    if not isinstance(body, dict):
        return None, {}
    kind = body.get("error")
    return (kind if isinstance(kind, str) else None), body


def rpc_result(answer: Answer, operation: str, request_id: int) -> dict:
    """The `result` object of the JSON-RPC answer to request `request_id`; an `error`
    becomes `DesignRpcError`. An answer to another request is malformed (a result must echo
    the id; an error may carry null, when the service could not read the request's id)."""
    check_status(answer)
    if answer.content_type != "application/json":
        raise UnexpectedContentType(answer.action, answer.content_type or "(none)",
                                    answer.status)
    problem, rpc_error, result = _split_envelope(answer, request_id)
    if rpc_error is not None:
        code, message = rpc_error
        raise DesignRpcError(operation, code, _clean(message, answer.redactor()))
    if result is None:
        raise TransportError(answer.action, "malformed",
                             detail=problem or "the JSON-RPC answer is malformed")
    return result


def _split_envelope(answer: Answer, request_id: int,
                    ) -> tuple[str | None, tuple[int, str] | None, dict | None]:
    """(what is wrong, the JSON-RPC error's cleaned fields, the result object). Returns
    rather than raises, so the parsed answer (which a hostile service can fill with the
    client's own token) never sits in a frame of an error's traceback."""
    envelope = answer.json()
    if not isinstance(envelope, dict):
        return "the answer is not a JSON-RPC object", None, None
    answered = envelope.get("id")
    # `True == 1` in Python: an id must be the very int sent, not a bool or a float
    same = type(answered) is int and answered == request_id
    error = envelope.get("error")
    if error is not None and (same or answered is None):
        return None, _rpc_error_fields(error), None
    if not same:
        return f"the JSON-RPC answer is not to request {request_id}", None, None
    result = envelope.get("result")
    if not isinstance(result, dict):
        return "the JSON-RPC answer has no result object", None, None
    return None, None, result


def shown_body(answer: Answer) -> str:
    """A short, redacted excerpt of a body for an error message."""
    return redact_then_truncate(answer.text(BODY_SHOWN * 4), BODY_SHOWN) or "(empty body)"


def session_id_of(answer: Answer) -> str | None:
    """The `Mcp-Session-Id` header, which must be visible ASCII (MCP spec), or None."""
    value = answer.headers.get("mcp-session-id")
    if value is None:
        return None
    if not value or len(value) > 1024 or any(not 0x21 <= ord(c) <= 0x7E for c in value):
        raise TransportError(answer.action, "malformed",
                             detail="the service sent a malformed Mcp-Session-Id")
    return value


def _raise_flat_403(answer: Answer) -> None:
    kind, body = flat_error(answer)
    if kind == "needs_consent":
        raise NeedsConsent()
    if kind == "needs_project_grant":
        project_id = body.get("project_id")
        prompt = body.get("prompt")
        redact = answer.redactor()
        raise NeedsProjectGrant(
            _clean(project_id, redact) if isinstance(project_id, str) else "",
            _clean(prompt, redact) if isinstance(prompt, str) else "",
        )
    raise TransportError(answer.action, "http_status", 403,
                         detail=f"HTTP 403: {shown_body(answer)}")


def _rpc_error_fields(error: Any) -> tuple[int, str]:
    if not isinstance(error, dict):
        return 0, "malformed error"
    code = error.get("code")
    message = error.get("message")
    return (
        code if isinstance(code, int) and not isinstance(code, bool) else 0,
        message if isinstance(message, str) else "",
    )


def _clean(text: str, redact: Redactor) -> str:
    """Server text kept in an error: control characters dropped, redacted (the session's
    secrets and any `Bearer …`), then cut."""
    visible = "".join(c for c in text if c in "\n\t" or c.isprintable())
    return redact_then_truncate(visible, PROMPT_KEPT, redact)
