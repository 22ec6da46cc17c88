"""The token authority: the OAuth token endpoint (rotating refresh, PKCE authorization code
from the authorize page in `authorize_page`), bearer authentication of requests, the
first credential written to disk for the notebook client (revocation, RFC 7009, is
`revocation`), and the discovery documents a
standard MCP client reads to find the authorize and token endpoints: protected-resource
metadata (RFC 9728) for the Design MCP endpoint, named by its 401's `resource_metadata`,
and authorization-server metadata (RFC 8414, PKCE S256 only)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import secrets
import sqlite3
from pathlib import Path
from typing import Any, Literal, overload

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from . import paths
from .bodies import parse_object
from .context import DEMO_USER_ID, Principal, ServiceContext
from .envelopes import ApiError, JsonAnswer, oauth_error
from .projects import remote_session

SCHEMA = """
CREATE TABLE IF NOT EXISTS oauth_tokens (
    token_hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    user_id TEXT NOT NULL, client_id TEXT NOT NULL, scopes TEXT NOT NULL,
    expires_at REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS oauth_codes (
    code_hash TEXT PRIMARY KEY, client_id TEXT NOT NULL, redirect_uri TEXT NOT NULL,
    scopes TEXT NOT NULL, code_challenge TEXT NOT NULL, state TEXT NOT NULL,
    user_id TEXT NOT NULL, expires_at REAL NOT NULL, used INTEGER NOT NULL DEFAULT 0);
"""

#: the first-party client (the notebook client's settings.FIRST_PARTY_CLIENT_ID)
FIRST_PARTY_CLIENT_ID = "jdp-notebook-client"
CLIENTS = frozenset({FIRST_PARTY_CLIENT_ID})
BASE_SCOPES = ("user:profile", "user:inference", "user:mcp_servers", "user:file_upload")
PROJECT_SCOPES = ("user:projects:read", "user:projects:write")
DESIGN_SCOPES = ("user:design:read", "user:design:write")
KNOWN_SCOPES = frozenset(BASE_SCOPES + PROJECT_SCOPES + DESIGN_SCOPES)
#: the credential the service hands the notebook on first start: no project scopes
FIRST_CREDENTIAL_SCOPES = BASE_SCOPES + DESIGN_SCOPES

ACCESS_TTL_S = 28_800
REFRESH_TTL_S = 30 * 24 * 3600
CODE_TTL_S = 600
PKCE_PATTERN = re.compile(r"^[A-Za-z0-9._~-]{43,128}$")
_FIELD_MAX = 4096


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def scope_list(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(text.split()))


# ---------------------------------------------------------------- issuing


def issue_tokens(ctx: ServiceContext, conn: sqlite3.Connection, *, user_id: str,
                 client_id: str, scopes: tuple[str, ...],
                 grant_id: str | None = None) -> dict[str, Any]:
    """A new access + refresh token pair; the fault switch may narrow the granted scopes.
    `grant_id` names the sign-in the pair continues (a refresh keeps it; a new sign-in
    gets a new one): revoking a refresh token revokes every token of its grant."""
    grant_id = grant_id or secrets.token_hex(16)
    narrowed = ctx.faults.narrowed_scopes() if ctx.faults is not None else frozenset()
    granted = " ".join(s for s in scopes if s not in narrowed)
    now = ctx.clock()
    access, refresh = "jdp_at_" + secrets.token_urlsafe(32), "jdp_rt_" + secrets.token_urlsafe(32)
    for token, kind, ttl in ((access, "access", ACCESS_TTL_S), (refresh, "refresh", REFRESH_TTL_S)):
        conn.execute(
            "INSERT INTO oauth_tokens (token_hash, kind, user_id, client_id, scopes, "
            "expires_at, created_at, grant_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (token_hash(token), kind, user_id, client_id, granted, now + ttl, now, grant_id),
        )
    return {"token_type": "Bearer", "access_token": access, "refresh_token": refresh,
            "expires_in": ACCESS_TTL_S, "scope": granted}


def refresh_token_valid(ctx: ServiceContext, refresh_token: str) -> bool:
    row = ctx.db.read().execute(
        "SELECT 1 FROM oauth_tokens WHERE token_hash = ? AND kind = 'refresh' AND revoked = 0 "
        "AND expires_at > ?", (token_hash(refresh_token), ctx.clock())).fetchone()
    return row is not None


def expire_access_tokens(ctx: ServiceContext) -> int:
    """Every current access token answers 401 from now on (a fault switch)."""
    with ctx.db.transaction() as conn:
        return conn.execute("UPDATE oauth_tokens SET expires_at = ? WHERE kind = 'access' "
                            "AND expires_at > ?", (ctx.clock() - 1, ctx.clock())).rowcount


def ensure_credential_file(ctx: ServiceContext, path: Path) -> Path:
    """Write the notebook's first credential (without project scopes, mode 0600) unless the
    file already holds a credential whose refresh token still works."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(stored, dict) and isinstance(stored.get("refresh_token"), str) \
                and refresh_token_valid(ctx, stored["refresh_token"]):
            return path
    except (OSError, ValueError):
        pass
    with ctx.db.transaction() as conn:
        answer = issue_tokens(ctx, conn, user_id=DEMO_USER_ID, client_id=FIRST_PARTY_CLIENT_ID,
                              scopes=FIRST_CREDENTIAL_SCOPES)
    credential = {
        "access_token": answer["access_token"],
        "refresh_token": answer["refresh_token"],
        "expires_at": int((ctx.clock() + ACCESS_TTL_S) * 1000),
        "scopes": answer["scope"].split(),
        "client_id": FIRST_PARTY_CLIENT_ID,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(credential, out)
    os.chmod(partial, 0o600)
    os.replace(partial, path)
    return path


# ---------------------------------------------------------------- authentication


def bearer(source: Any) -> str | None:
    """The bearer token of a Request or an ASGI scope, or None."""
    headers = source.headers if hasattr(source, "headers") else Headers(scope=source)
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def authenticate(ctx: ServiceContext, source: Any) -> Principal | None:
    """Who the bearer token of `source` belongs to: an unexpired, unrevoked access token, or
    a remote-session token (which binds one org and project)."""
    token = bearer(source)
    if token is None or len(token) > 8192:
        return None
    if token.count(".") == 2:
        return remote_session.verify_token(ctx, token)
    row = ctx.db.read().execute(
        "SELECT user_id, scopes FROM oauth_tokens WHERE token_hash = ? AND kind = 'access' "
        "AND revoked = 0 AND expires_at > ?", (token_hash(token), ctx.clock())).fetchone()
    if row is None:
        return None
    return Principal(user_id=row["user_id"], scopes=frozenset(row["scopes"].split()))


def install(ctx: ServiceContext) -> None:
    ctx.db.migrate(SCHEMA)
    columns = {row["name"] for row in ctx.db.read().execute("PRAGMA table_info(oauth_tokens)")}
    if "grant_id" not in columns:  # a data dir from before revocation: its tokens stand alone
        with ctx.db.transaction() as conn:
            conn.execute("ALTER TABLE oauth_tokens ADD COLUMN grant_id TEXT")
    ctx.authenticate = lambda source: authenticate(ctx, source)


# ---------------------------------------------------------------- the token endpoint


@overload
def _field(body: dict[str, Any], name: str, *, required: Literal[True] = True) -> str: ...
@overload
def _field(body: dict[str, Any], name: str, *, required: bool) -> str | None: ...
def _field(body: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value or len(value) > _FIELD_MAX:
        raise ApiError("invalid_request_error", f"{name} must be a non-empty string")
    return value


def _refresh(ctx: ServiceContext, body: dict[str, Any], client_id: str) -> Response:
    refresh = _field(body, "refresh_token")
    asked = _field(body, "scope", required=False)
    with ctx.db.transaction() as conn:
        row = conn.execute(
            "SELECT * FROM oauth_tokens WHERE token_hash = ? AND kind = 'refresh'",
            (token_hash(refresh),)).fetchone()
        if row is None or row["revoked"] or row["expires_at"] <= ctx.clock() \
                or row["client_id"] != client_id:
            return oauth_error("invalid_grant", "The refresh token is not valid.")
        scopes = scope_list(asked) if asked is not None else scope_list(row["scopes"])
        unknown = [s for s in scopes if s not in KNOWN_SCOPES]
        if unknown or not scopes:
            return oauth_error("invalid_scope", "Unknown or empty scope list.")
        conn.execute("UPDATE oauth_tokens SET revoked = 1 WHERE token_hash = ?",
                     (row["token_hash"],))
        answer = issue_tokens(ctx, conn, user_id=row["user_id"], client_id=client_id,
                              scopes=scopes, grant_id=row["grant_id"])
    return JsonAnswer(answer, headers={"cache-control": "no-store"})


def _authorization_code(ctx: ServiceContext, body: dict[str, Any], client_id: str) -> Response:
    code = _field(body, "code")
    verifier = _field(body, "code_verifier")
    redirect_uri = _field(body, "redirect_uri")
    state = _field(body, "state", required=False)
    if not PKCE_PATTERN.match(verifier):
        return oauth_error("invalid_request", "code_verifier must be 43-128 unreserved characters.")
    with ctx.db.transaction() as conn:
        row = conn.execute("SELECT * FROM oauth_codes WHERE code_hash = ?",
                           (token_hash(code),)).fetchone()
        if row is None or row["used"] or row["expires_at"] <= ctx.clock():
            return oauth_error("invalid_grant", "The authorization code is not valid.")
        conn.execute("UPDATE oauth_codes SET used = 1 WHERE code_hash = ?", (row["code_hash"],))
        challenge = base64.urlsafe_b64encode(
            hashlib.sha256(verifier.encode("ascii")).digest()).decode("ascii").rstrip("=")
        if row["client_id"] != client_id or row["redirect_uri"] != redirect_uri \
                or not secrets.compare_digest(challenge, row["code_challenge"]) \
                or (state is not None and state != row["state"]):
            return oauth_error("invalid_grant", "The authorization code does not match this "
                               "client, redirect_uri, state or code_verifier.")
        answer = issue_tokens(ctx, conn, user_id=row["user_id"], client_id=client_id,
                              scopes=scope_list(row["scopes"]))
    return JsonAnswer(answer, headers={"cache-control": "no-store"})


async def token_endpoint(ctx: ServiceContext, request: Request) -> Response:
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        return oauth_error("invalid_request", "The token endpoint takes a JSON body.")
    try:
        body = parse_object(await request.body())
        client_id = _field(body, "client_id")
        if client_id not in CLIENTS:
            return oauth_error("invalid_client", "Unknown client_id.", status=401)
        grant_type = body.get("grant_type")
        if grant_type == "refresh_token":
            return _refresh(ctx, body, client_id)
        if grant_type == "authorization_code":
            return _authorization_code(ctx, body, client_id)
        return oauth_error("invalid_request", "grant_type must be refresh_token or "
                           "authorization_code.")
    except ApiError as error:
        return oauth_error("invalid_request", error.message)


# ---------------------------------------------------------------- discovery (RFC 9728, 8414)


def origin_of(scope: Any) -> str:
    """This service's origin as the request addressed it (its Host header, which the
    host check has already kept to loopback names)."""
    headers = Headers(scope=scope)
    return f"{scope.get('scheme', 'http')}://{headers.get('host', '127.0.0.1')}"


def resource_metadata_url(scope: Any) -> str:
    """Where the protected-resource metadata of the Design MCP endpoint is served."""
    return origin_of(scope) + paths.PROTECTED_RESOURCE_METADATA + paths.DESIGN_MCP


def protected_resource_metadata(origin: str) -> dict[str, Any]:
    return {
        "resource": origin + paths.DESIGN_MCP,
        "authorization_servers": [origin],
        "scopes_supported": list(DESIGN_SCOPES),
        "bearer_methods_supported": ["header"],
        "resource_name": "Design MCP endpoint of the jupyter-design-projects reference service",
    }


def authorization_server_metadata(origin: str) -> dict[str, Any]:
    return {
        "issuer": origin,
        "authorization_endpoint": origin + paths.AUTHORIZE,
        "token_endpoint": origin + paths.TOKEN,
        "revocation_endpoint": origin + paths.REVOKE,
        "revocation_endpoint_auth_methods_supported": ["none"],
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": sorted(KNOWN_SCOPES),
    }


def routes(ctx: ServiceContext) -> list[Route]:
    async def token(request: Request) -> Response:
        return await token_endpoint(ctx, request)

    async def resource_metadata(request: Request) -> Response:
        return JsonAnswer(protected_resource_metadata(origin_of(request.scope)))

    async def server_metadata(request: Request) -> Response:
        return JsonAnswer(authorization_server_metadata(origin_of(request.scope)))

    return [Route(paths.TOKEN, token, methods=["POST"]),
            Route(paths.PROTECTED_RESOURCE_METADATA, resource_metadata, methods=["GET"]),
            Route(paths.PROTECTED_RESOURCE_METADATA + paths.DESIGN_MCP, resource_metadata,
                  methods=["GET"]),
            Route(paths.AUTHORIZATION_SERVER_METADATA, server_metadata, methods=["GET"])]
