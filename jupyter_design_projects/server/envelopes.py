"""The error answers of the reference service: the PROTOCOL §0 envelope, the flat OAuth and
remote-session shapes, and `ApiError`, the one exception a route raises to produce them."""

from __future__ import annotations

import json
import secrets
from typing import Any

from starlette.responses import JSONResponse, Response

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
    return JSONResponse(envelope_body(error.kind, error.message), status_code=error.status,
                        headers=error.headers)


def flat(error: ApiError) -> JSONResponse:
    """The remote-session shape: {"error": <message>, "code": <kind>}."""
    return JSONResponse({"error": error.message, "code": error.kind}, status_code=error.status,
                        headers=error.headers)


def oauth_error(error: str, description: str, status: int = 400) -> JSONResponse:
    """Flat OAuth errors: {"error": "invalid_grant", "error_description": ...}."""
    return JSONResponse({"error": error, "error_description": description}, status_code=status,
                        headers={"cache-control": "no-store"})


def no_content() -> Response:
    return Response(status_code=204)


def raw_envelope(status: int, kind: str, message: str) -> tuple[int, list[tuple[bytes, bytes]],
                                                                 bytes]:
    """The envelope as ASGI parts, for middleware that answers before any route runs."""
    body = json.dumps(envelope_body(kind, message)).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    return status, headers, body
