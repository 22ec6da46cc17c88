"""The HTTP gate in front of the Design routes: every Design request (REST and MCP) names
`anthropic-version` (400 in Anthropic's public error shape otherwise) and is recorded with
its `anthropic-client-platform`; in front of the MCP endpoint, the bearer and scope check
(401) on every method (GET opens the session's event stream), and the flat 403s
`needs_consent` / `needs_project_grant` answered before MCP sees a `tools/call`. A plain
ASGI wrapper around the whole app: it buffers the POST body, peeks at the JSON-RPC
`method` and `params.name`, and otherwise replays the body unchanged, with the caller's
Principal put in the ASGI scope for the tool handlers."""

from __future__ import annotations

import inspect
import json
from typing import Any

from starlette.requests import Request

from .. import oauth
from ..context import Principal, ServiceContext
from ..envelopes import JSON_TYPE, envelope_body
from ..paths import DESIGN_MCP, DESIGN_PREFIX
from ..request_body import Disconnected, read_body, replay
from .errors import NotFound
from .store import DesignStore

#: the ASGI scope key under which the gate leaves the authenticated Principal
PRINCIPAL_KEY = "jdp.design.principal"
DESIGN_SCOPES = frozenset({"user:design:read", "user:design:write"})
#: holding this scope alone also admits a caller to Design
MCP_SERVERS_SCOPE = "user:mcp_servers"
WWW_AUTHENTICATE = 'Bearer scope="user:design:read user:design:write"'
#: the `anthropic-version` values the service accepts (as Anthropic's public API does)
ANTHROPIC_VERSIONS = frozenset({"2023-01-01", "2023-06-01"})
#: a recorded client platform is cut to this many characters
PLATFORM_SHOWN = 64


def version_problem(headers: dict[bytes, bytes]) -> str | None:
    """Why the request's `anthropic-version` is not acceptable, in the words Anthropic's
    public API uses, or None."""
    raw = headers.get(b"anthropic-version")
    if raw is None or not raw.strip():
        return "anthropic-version: header is required"
    version = raw.decode("latin-1").strip()
    if version not in ANTHROPIC_VERSIONS:
        return f"anthropic-version: {version[:PLATFORM_SHOWN]!r} is not a valid version"
    return None


def caller_label(headers: dict[bytes, bytes]) -> str:
    """The `anthropic-client-platform` a request named, printable and cut, or "(none)"."""
    raw = headers.get(b"anthropic-client-platform", b"").decode("latin-1")
    shown = "".join(c for c in raw if 0x21 <= ord(c) <= 0x7E)[:PLATFORM_SHOWN]
    return shown or "(none)"


def has_design_scopes(principal: Principal | None) -> bool:
    return principal is not None and (DESIGN_SCOPES <= principal.scopes
                                      or MCP_SERVERS_SCOPE in principal.scopes)


async def authenticate(ctx: ServiceContext, scope: Any) -> Principal | None:
    """The caller per `ctx.authenticate` (sync or async), or None."""
    if ctx.authenticate is None:
        return None
    principal = ctx.authenticate(Request(scope))
    if inspect.isawaitable(principal):
        principal = await principal
    return principal


def grant_prompt(project_name: str) -> str:
    return (f'Allow Claude to edit any ordinary file in the Design project "{project_name}" '
            "until you revoke it in Design settings? Deletes, copies, membership and sharing "
            "changes will still ask each time.")


class DesignGate:
    def __init__(self, app: Any, ctx: ServiceContext) -> None:
        self.app = app
        self.ctx = ctx
        self.store = DesignStore(ctx.db, ctx.clock)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(DESIGN_PREFIX):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if scope["path"].rstrip("/") != DESIGN_MCP:
            if await self._version_refused(headers, send):
                return
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        principal = await authenticate(self.ctx, scope)
        if not has_design_scopes(principal):
            error = "invalid_token" if principal is None else "insufficient_scope"
            challenge = (f'{WWW_AUTHENTICATE}, '
                         f'resource_metadata="{oauth.resource_metadata_url(scope)}"')
            await _answer(send, 401, {"error": error},
                          ((b"www-authenticate", challenge.encode()),))
            return
        assert principal is not None
        # on the MCP endpoint the version is checked after the bearer, so a standard MCP
        # client that signs in by discovery meets the 401 challenge first
        if await self._version_refused(headers, send):
            return
        scope[PRINCIPAL_KEY] = principal
        if method != "POST":
            await self.app(scope, receive, send)
            return
        try:
            body = await read_body(receive, self.ctx.config.max_body_bytes)
        except Disconnected:
            return
        if body is None:
            await _answer(send, 413, {"error": "request_too_large"})
            return
        refusal = self.refusal(principal, body)
        if refusal is not None:
            await _answer(send, 403, refusal)
            return
        await self.app(scope, replay(body, receive), send)

    async def _version_refused(self, headers: dict[bytes, bytes], send: Any) -> bool:
        """Answer 400 when `anthropic-version` is missing or unknown; else record it."""
        problem = version_problem(headers)
        if problem is not None:
            await _answer(send, 400, envelope_body("invalid_request_error", problem))
            return True
        self.record(headers)
        return False

    def record(self, headers: dict[bytes, bytes]) -> None:
        """Count the version and platform a Design request named (GET /_faults/counts)."""
        faults = self.ctx.faults
        if faults is None:
            return
        version = headers[b"anthropic-version"].decode("latin-1").strip()
        faults.counts[f"design:anthropic-version:{version}"] += 1
        faults.counts[f"design:anthropic-client-platform:{caller_label(headers)}"] += 1

    def refusal(self, principal: Principal, body: bytes) -> dict[str, Any] | None:
        """The flat 403 body this call earns, or None to let MCP handle it."""
        try:
            message = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            return None
        if not self.store.consent(principal.user_id):
            return {"error": "needs_consent"}
        params = message.get("params")
        if not isinstance(params, dict) or not self._grantable(params.get("name")):
            return None
        arguments = params.get("arguments")
        if not isinstance(arguments, dict) or arguments.get("plan_token"):
            return None
        project_id = arguments.get("project_id")
        if not isinstance(project_id, str):
            return None
        try:
            project = self.store.project(project_id)
        except NotFound:
            return None  # the tool itself answers "no such project"
        if self.store.has_grant(principal.user_id, project_id):
            return None
        return {"error": "needs_project_grant", "project_id": project_id,
                "prompt": grant_prompt(project["name"])}

    def _grantable(self, name: Any) -> bool:
        """A tokenless call of `name` needs a durable project grant (its row says so)."""
        operation = self.ctx.design_operations.get(name) if isinstance(name, str) else None
        return operation is not None and operation.grantable


async def _answer(send: Any, status: int, payload: dict[str, Any],
                  extra_headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", JSON_TYPE.encode()),
               (b"content-length", str(len(body)).encode()), *extra_headers]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
