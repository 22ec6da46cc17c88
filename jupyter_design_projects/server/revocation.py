"""Token revocation (RFC 7009): `POST /v1/oauth/revoke` with `token` (and optionally
`token_type_hint`) and the public client's `client_id`, as a form (the RFC's body) or as
JSON (the token endpoint's). Revoking a refresh token revokes every token of its sign-in
(the access tokens issued with it and after it); revoking an access token revokes that one.

As the RFC says (§2.2), an unknown, expired or already revoked token is answered 200 too:
the answer tells nobody whether a token existed. A token of another client is left alone
(also 200). Only a request without a token (400 invalid_request) or of an unknown client
(401 invalid_client) is refused.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from . import paths
from .context import ServiceContext
from .envelopes import oauth_error
from .oauth import CLIENTS, token_hash
from .request_body import Disconnected, read_body

MAX_BODY_BYTES = 16 * 1024
_FIELD_MAX = 8192


def revoke(ctx: ServiceContext, token: str, client_id: str) -> int:
    """Revoke `token` (and, for a refresh token, its whole sign-in); how many rows changed."""
    with ctx.db.transaction() as conn:
        row = conn.execute("SELECT kind, client_id, grant_id FROM oauth_tokens "
                           "WHERE token_hash = ?", (token_hash(token),)).fetchone()
        if row is None or row["client_id"] != client_id:
            return 0
        if row["kind"] == "refresh" and row["grant_id"]:
            return conn.execute("UPDATE oauth_tokens SET revoked = 1 WHERE grant_id = ? "
                                "AND revoked = 0", (row["grant_id"],)).rowcount
        return conn.execute("UPDATE oauth_tokens SET revoked = 1 WHERE token_hash = ? "
                            "AND revoked = 0", (token_hash(token),)).rowcount


def _fields(content_type: str, raw: bytes) -> dict[str, Any] | None:
    if content_type == "application/x-www-form-urlencoded":
        return {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}
    if content_type == "application/json":
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None
    return None


async def revocation_endpoint(ctx: ServiceContext, request: Request) -> Response:
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    try:
        raw = await read_body(request.receive, MAX_BODY_BYTES)
    except Disconnected:
        return Response(status_code=400)
    fields = None if raw is None else _fields(content_type, raw)
    if fields is None:
        return oauth_error("invalid_request", "The revocation endpoint takes a form or JSON "
                           f"body of at most {MAX_BODY_BYTES} bytes.")
    client_id, token = fields.get("client_id"), fields.get("token")
    if not isinstance(client_id, str) or client_id not in CLIENTS:
        return oauth_error("invalid_client", "Unknown client_id.", status=401)
    if not isinstance(token, str) or not token or len(token) > _FIELD_MAX:
        return oauth_error("invalid_request", "token must be a non-empty string.")
    revoke(ctx, token, client_id)
    return Response(status_code=200, headers={"cache-control": "no-store"})


def routes(ctx: ServiceContext) -> list[Route]:
    async def endpoint(request: Request) -> Response:
        return await revocation_endpoint(ctx, request)

    return [Route(paths.REVOKE, endpoint, methods=["POST"])]
