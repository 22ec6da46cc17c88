"""The remote-session Projects route (PROTOCOL §5): `POST /v2/ccr-sessions/-/chat-project`
with an `op` body, authenticated by a session token that binds one org and project, and the
minting and checking of those tokens (HMAC-SHA256 signed, JWT-shaped)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import bodies, paths
from ..context import DEMO_USER_ID, Principal, ServiceContext
from ..envelopes import ApiError, JsonAnswer, flat
from . import api as projects_api
from . import store as projects_store

SESSION_TTL_S = 30 * 24 * 3600
_KEY_META = "remote_session.signing_key"
_SCOPES = frozenset({"user:projects:read", "user:projects:write"})
_HEADER = {"alg": "HS256", "typ": "JWT"}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _key(ctx: ServiceContext) -> bytes:
    """The signing key of this data dir, created on first use (tokens survive restarts)."""
    key = ctx.db.get_meta(_KEY_META)
    if key is None:
        ctx.db.set_meta(_KEY_META, secrets.token_hex(32))
        key = ctx.db.get_meta(_KEY_META)  # read back: the stored key is the one in force
        assert key is not None
    return bytes.fromhex(key)


def mint_token(ctx: ServiceContext, org_uuid: str, project_uuid: str) -> str:
    now = int(ctx.clock())
    claims = {"iss": "jdp-reference-service", "sub": DEMO_USER_ID, "org_uuid": org_uuid,
              "project_uuid": project_uuid, "iat": now, "exp": now + SESSION_TTL_S}
    signing_input = _b64(json.dumps(_HEADER).encode()) + "." + _b64(json.dumps(claims).encode())
    signature = hmac.new(_key(ctx), signing_input.encode("ascii"), hashlib.sha256).digest()
    return signing_input + "." + _b64(signature)


def verify_token(ctx: ServiceContext, token: str) -> Principal | None:
    """The principal a well-signed, unexpired session token names, or None."""
    try:
        head, payload, signature = token.split(".")
        expected = hmac.new(_key(ctx), f"{head}.{payload}".encode("ascii"),
                            hashlib.sha256).digest()
        if not hmac.compare_digest(expected, _unb64(signature)):
            return None
        if json.loads(_unb64(head)) != _HEADER:
            return None
        claims = json.loads(_unb64(payload))
        if not isinstance(claims, dict) or not claims.get("exp", 0) > ctx.clock():
            return None
        return Principal(user_id=str(claims["sub"]), scopes=_SCOPES,
                         org_uuid=str(claims["org_uuid"]),
                         project_uuid=str(claims["project_uuid"]))
    except (ValueError, KeyError, UnicodeError, TypeError):
        return None


# ---------------------------------------------------------------- the route


def _op(ctx: ServiceContext, org: str, project: str, body: dict[str, Any]) -> Response:
    op = body.get("op")
    if op == "detail":
        return JsonAnswer(projects_api.detail(ctx, org, project))
    if op == "kb-stats":
        return JsonAnswer(projects_api.stats(ctx, org, project))
    if op == "kb-search":
        query = bodies.string(body, "query", max_len=4096)
        n = bodies.integer(body.get("n", projects_api.DEFAULT_N), "n", low=1,
                           high=projects_api.MAX_N)
        return JsonAnswer(projects_api.search(ctx, org, project, query, n))
    if op == "read-doc":
        return JsonAnswer(projects_api.read_doc(ctx, org, project,
                                                  bodies.string(body, "doc_uuid", max_len=64)))
    if op == "read-file":
        return JsonAnswer(projects_api.read_extracted(
            ctx, org, project, bodies.string(body, "file_uuid", max_len=64)))
    if op == "read-file-raw":
        return JsonAnswer(projects_api.read_raw(ctx, org, project,
                                                  bodies.string(body, "file_uuid", max_len=64)))
    if op == "write-doc":
        name = bodies.doc_name(body.get("file_name"))
        content = bodies.string(body, "content", min_len=0, max_len=1 << 40)
        doc, created = projects_api.write_doc(ctx, org, project, name, content)
        return JsonAnswer(doc, status_code=201 if created else 200)
    if op == "delete-doc":
        projects_api.delete_doc(ctx, org, project, bodies.string(body, "doc_uuid", max_len=64))
        return Response(status_code=204)
    raise ApiError("invalid_request_error", "Unknown op; expected one of detail, kb-stats, "
                   "kb-search, read-doc, read-file, read-file-raw, write-doc, delete-doc.")


async def chat_project(ctx: ServiceContext, request: Request) -> Response:
    try:
        principal = ctx.authenticate(request) if ctx.authenticate else None
        if principal is None or principal.project_uuid is None or principal.org_uuid is None:
            raise ApiError("authentication_error", "A valid remote-session token is required.",
                           headers={"www-authenticate": 'Bearer error="invalid_token"'})
        body = bodies.parse_object(await request.body())
        op = body.get("op")
        needed = "user:projects:write" if op in ("write-doc", "delete-doc") \
            else "user:projects:read"
        if needed not in principal.scopes:
            raise ApiError("permission_error", f"The session token lacks {needed}.")
        projects_store.project(ctx.db.read(), principal.org_uuid, principal.project_uuid)
        return _op(ctx, principal.org_uuid, principal.project_uuid, body)
    except ApiError as error:
        return flat(error)


def routes(ctx: ServiceContext) -> list[Route]:
    async def endpoint(request: Request) -> Response:
        return await chat_project(ctx, request)

    return [Route(paths.REMOTE_SESSION, endpoint, methods=["POST"])]
