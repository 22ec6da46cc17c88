"""The error answers of the reference service: the PROTOCOL §0 envelope, the flat OAuth,
remote-session and MCP-endpoint shapes, and `ApiError`, the one exception a route raises to
produce them."""

from __future__ import annotations

import json
import secrets
from typing import Any

from starlette.responses import JSONResponse

#: envelope kind -> HTTP status (PROTOCOL §0)
KINDS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}
STATUS_KINDS = {status: kind for kind, status in KINDS.items()}


#: PROTOCOL §0: every JSON answer is labelled with its charset
JSON_TYPE = "application/json; charset=utf-8"


class JsonAnswer(JSONResponse):
    """A JSON answer with the content type PROTOCOL §0 pins."""

    media_type = JSON_TYPE


class ApiError(Exception):
    """A refusal with a kind from KINDS; each route family renders it in its own shape."""

    def __init__(self, kind: str, message: str, *, headers: dict[str, str] | None = None,
                 status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status or KINDS[kind]
        self.headers = headers or {}


def request_id() -> str:
    return "req_" + secrets.token_hex(12)


def envelope_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message},
            "request_id": request_id()}


def envelope(error: ApiError) -> JSONResponse:
    """The org API / Design REST shape: {"type":"error","error":{...},"request_id"}."""
    return JsonAnswer(envelope_body(error.kind, error.message), status_code=error.status,
                        headers=error.headers)


def flat(error: ApiError) -> JSONResponse:
    """The remote-session shape: {"error": <message>, "code": <kind>}."""
    return JsonAnswer({"error": error.message, "code": error.kind}, status_code=error.status,
                        headers=error.headers)


def oauth_error(error: str, description: str, status: int = 400) -> JSONResponse:
    """Flat OAuth errors: {"error": "invalid_grant", "error_description": ...}."""
    return JsonAnswer({"error": error, "error_description": description}, status_code=status,
                        headers={"cache-control": "no-store"})


#: the error shapes of the route families: the §0 envelope (org API, Design REST, the rest),
#: the flat remote-session error (§5), the flat OAuth error (§1), the flat MCP-endpoint
#: error (§3)
ENVELOPE, FLAT, OAUTH, MCP = "envelope", "flat", "oauth", "mcp"


def error_payload(shape: str, kind: str, message: str) -> dict[str, Any]:
    """An error in the shape of its route family."""
    if shape == FLAT:
        return {"error": message, "code": kind}
    if shape == OAUTH:
        return {"error": "invalid_request", "error_description": message}
    if shape == MCP:
        return {"error": kind}
    return envelope_body(kind, message)


def raw_error(status: int, kind: str, message: str, shape: str = ENVELOPE
              ) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """An error as ASGI parts, for middleware that answers before any route runs."""
    body = json.dumps(error_payload(shape, kind, message)).encode()
    headers = [(b"content-type", JSON_TYPE.encode()),
               (b"content-length", str(len(body)).encode())]
    return status, headers, body


async def send_error(send: Any, status: int, kind: str, message: str,
                     shape: str = ENVELOPE) -> None:
    """Answer an error straight through ASGI `send` (for wrappers that run before routes)."""
    status, headers, body = raw_error(status, kind, message, shape)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
