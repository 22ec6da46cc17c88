"""Fault injection for tests (only with --faults, loopback clients only): the switches, the
ASGI wrapper that applies them to matching requests and counts every request, and the
/_faults control routes."""

from __future__ import annotations

import asyncio
import base64
import binascii
import dataclasses
import gzip
import io
import json
from collections import Counter
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from . import bodies, oauth, projects_store
from .context import ServiceContext
from .envelopes import STATUS_KINDS, ApiError, envelope_body, raw_envelope
from .request_body import Disconnected, read_body, replay

MCP_PATH = "/v1/design/mcp"
LOOPBACK_CLIENTS = frozenset({"127.0.0.1", "::1", "testclient"})
#: rules that replace the answer (at most one applies); "latency" only delays it
TERMINAL_KINDS = ("fail", "sse", "drip", "oversize", "gzip-bomb")
GZIP_BOMB_BYTES = 64 * 1024 * 1024
MAX_UPLOAD_BYTES = 24 * 1024 * 1024


@dataclasses.dataclass
class Rule:
    kind: str
    path: str
    count: int
    method: str | None = None
    rpc_method: str | None = None
    tool: str | None = None
    params: dict[str, Any] = dataclasses.field(default_factory=dict)

    def matches(self, method: str, path: str, rpc: tuple[str | None, str | None]) -> bool:
        if self.path.endswith("*"):
            if not path.startswith(self.path[:-1]):
                return False
        elif path != self.path:
            return False
        if self.method is not None and self.method.upper() != method:
            return False
        if self.rpc_method is not None and self.rpc_method != rpc[0]:
            return False
        return self.tool is None or self.tool == rpc[1]


class FaultState:
    """The switches of one service run (ctx.faults)."""

    def __init__(self) -> None:
        self.rules: list[Rule] = []
        self.counts: Counter[str] = Counter()
        self.misreport: set[str] = set()
        self.narrowed: set[str] = set()
        #: project uuid -> its (max_knowledge_size, threshold, search_enabled) before faults
        self.saved_projects: dict[str, tuple[int, int, int]] = {}
        self._bomb: bytes | None = None

    def narrowed_scopes(self) -> frozenset[str]:
        return frozenset(self.narrowed)

    def take_misreport(self, file_uuid: str) -> bool:
        """True once after POST /_faults/misreport-size for this file."""
        if file_uuid in self.misreport:
            self.misreport.discard(file_uuid)
            return True
        return False

    def take(self, method: str, path: str,
             rpc: tuple[str | None, str | None]) -> tuple[Rule | None, Rule | None]:
        """The latency rule and the terminal rule for this request, each used up once."""
        latency = self._take_first(method, path, rpc, ("latency",))
        terminal = self._take_first(method, path, rpc, TERMINAL_KINDS)
        return latency, terminal

    def _take_first(self, method: str, path: str, rpc: tuple[str | None, str | None],
                    kinds: tuple[str, ...]) -> Rule | None:
        for rule in self.rules:
            if rule.kind in kinds and rule.matches(method, path, rpc):
                rule.count -= 1
                if rule.count <= 0:
                    self.rules.remove(rule)
                return rule
        return None

    def gzip_bomb(self) -> bytes:
        """A small gzip body that inflates to GZIP_BOMB_BYTES of JSON whitespace."""
        if self._bomb is None:
            out = io.BytesIO()
            with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as packer:
                packer.write(b'{"padding":"')
                block = b" " * (1024 * 1024)
                for _ in range(GZIP_BOMB_BYTES // len(block)):
                    packer.write(block)
                packer.write(b'"}')
            self._bomb = out.getvalue()
        return self._bomb


def _peek_rpc(body: bytes) -> tuple[str | None, str | None]:
    """The JSON-RPC method and, for tools/call, the tool name of an MCP POST body."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None, None
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return None, None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return message["method"], name if isinstance(name, str) else None


def is_loopback(scope: dict) -> bool:
    client = scope.get("client")
    return bool(client) and client[0] in LOOPBACK_CLIENTS


class FaultMiddleware:
    """Counts every request and applies the switch that matches it, if any."""

    def __init__(self, app: Any, ctx: ServiceContext) -> None:
        self.app = app
        self.ctx = ctx

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        state: FaultState | None = self.ctx.faults
        if scope["type"] != "http" or state is None:
            await self.app(scope, receive, send)
            return
        if scope["path"].startswith("/_faults"):
            if not is_loopback(scope):
                status, headers, body = raw_envelope(404, "not_found_error", "Not found.")
                await _answer(send, status, headers, body)
                return
            await self.app(scope, receive, send)
            return
        try:
            body = await read_body(receive) or b""
        except Disconnected:
            return
        method, path = scope["method"], scope["path"]
        rpc = _peek_rpc(body) if method == "POST" and path == MCP_PATH else (None, None)
        state.counts[f"{method} {path}"] += 1
        if rpc[0] is not None:
            state.counts[f"mcp:{rpc[0]}"] += 1
            if rpc[0] == "tools/call" and rpc[1] is not None:
                state.counts[f"mcp:tools/call:{rpc[1]}"] += 1
        latency, rule = state.take(method, path, rpc)
        if latency is not None:
            await asyncio.sleep(latency.params["ms"] / 1000)
        replayed = replay(body, receive)
        if rule is None:
            await self.app(scope, replayed, send)
        elif rule.kind == "fail":
            payload = json.dumps(rule.params["body"]).encode()
            headers = [(b"content-type", b"application/json"),
                       (b"content-length", str(len(payload)).encode())]
            headers += [(k.lower().encode("latin-1"), v.encode("latin-1"))
                        for k, v in rule.params["headers"].items()]
            await _answer(send, rule.params["status"], headers, payload)
        elif rule.kind == "oversize":
            size = rule.params["bytes"]
            payload = b'{"padding":"' + b"x" * max(0, size - 14) + b'"}'
            await _answer(send, 200, [(b"content-type", b"application/json"),
                                      (b"content-length", str(len(payload)).encode())], payload)
        elif rule.kind == "gzip-bomb":
            payload = await asyncio.to_thread(state.gzip_bomb)
            await _answer(send, 200, [(b"content-type", b"application/json"),
                                      (b"content-encoding", b"gzip"),
                                      (b"content-length", str(len(payload)).encode())], payload)
        else:
            status, headers, payload = await _capture(self.app, scope, replayed)
            if rule.kind == "sse":
                payload = b"event: message\ndata: " + payload.replace(b"\n", b" ") + b"\n\n"
                headers = [(b"content-type", b"text/event-stream"),
                           (b"cache-control", b"no-cache")]
                await _answer(send, 200, headers, payload)
            else:
                await _drip(send, status, headers, payload, rule.params)


async def _answer(send: Any, status: int, headers: list, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _capture(app: Any, scope: dict, receive: Any) -> tuple[int, list, bytes]:
    """Run the real app and keep its whole answer."""
    start: dict = {}
    chunks: list[bytes] = []

    async def keep(message: dict) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, keep)
    return start.get("status", 500), list(start.get("headers", [])), b"".join(chunks)


async def _drip(send: Any, status: int, headers: list, body: bytes, params: dict) -> None:
    """The real answer, `bytes_per_tick` bytes every `tick_ms` milliseconds."""
    await send({"type": "http.response.start", "status": status, "headers": headers})
    step, tick = params["bytes_per_tick"], params["tick_ms"] / 1000
    for offset in range(0, len(body), step):
        await send({"type": "http.response.body", "body": body[offset:offset + step],
                    "more_body": True})
        await asyncio.sleep(tick)
    await send({"type": "http.response.body", "body": b""})


# ---------------------------------------------------------------- the control routes


def _rule(kind: str, request_body: dict[str, Any], **params: Any) -> Rule:
    body = request_body
    path = bodies.string(body, "path", max_len=2048)
    if not path.startswith("/"):
        raise ApiError("invalid_request_error", "'path' must start with '/'.")
    return Rule(
        kind=kind, path=path,
        count=bodies.integer(body.get("count", 1), "count", low=1, high=100_000),
        method=bodies.string(body, "method", max_len=16, required=False),
        rpc_method=bodies.string(body, "rpc_method", max_len=256, required=False),
        tool=bodies.string(body, "tool", max_len=256, required=False),
        params=params,
    )


def _fail_rule(body: dict[str, Any]) -> Rule:
    status = bodies.integer(body.get("status"), "status", low=100, high=599)
    headers = body.get("headers", {})
    if not isinstance(headers, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and k.isascii() and v.isascii()
            for k, v in headers.items()):
        raise ApiError("invalid_request_error", "'headers' must map ASCII names to ASCII values.")
    kind = STATUS_KINDS.get(status, "api_error")
    answer = body["body"] if "body" in body else envelope_body(kind, f"Injected HTTP {status}.")
    return _rule("fail", body, status=status, body=answer, headers=headers)


def _project_uuid(ctx: ServiceContext, body: dict[str, Any]) -> str:
    value = body.get("project_uuid")
    row = None
    if isinstance(value, str) and projects_store.is_uuid(value):
        row = ctx.db.read().execute("SELECT uuid FROM projects WHERE uuid = ?",
                                    (value,)).fetchone()
    if row is None:
        raise ApiError("not_found_error", "No such project.")
    return value


def _remember(ctx: ServiceContext, state: FaultState, project_uuid: str) -> None:
    if project_uuid not in state.saved_projects:
        row = ctx.db.read().execute(
            "SELECT max_knowledge_size, search_threshold, search_enabled FROM projects "
            "WHERE uuid = ?", (project_uuid,)).fetchone()
        state.saved_projects[project_uuid] = tuple(row)


def _reset(ctx: ServiceContext, state: FaultState) -> None:
    with ctx.db.transaction() as conn:
        for project_uuid, (maximum, threshold, enabled) in state.saved_projects.items():
            projects_store.set_limits(conn, project_uuid, max_knowledge_size=maximum,
                                      threshold=threshold)
            projects_store.set_search_enabled(conn, project_uuid, bool(enabled))
    state.rules.clear()
    state.counts.clear()
    state.misreport.clear()
    state.narrowed.clear()
    state.saved_projects.clear()


def _upload(ctx: ServiceContext, body: dict[str, Any]) -> dict[str, Any]:
    project_uuid = (_project_uuid(ctx, body) if "project_uuid" in body
                    else ctx.hooks["demo_project_uuid"])
    try:
        data = base64.b64decode(bodies.string(body, "data_b64", min_len=0, max_len=1 << 40),
                                validate=True)
    except (binascii.Error, ValueError):
        raise ApiError("invalid_request_error", "'data_b64' must be base64.") from None
    if len(data) > MAX_UPLOAD_BYTES:
        raise ApiError("request_too_large", "Uploads are limited to 24 MiB here.")
    with ctx.db.transaction() as conn:
        file_uuid = projects_store.add_upload(
            conn, project_uuid,
            file_name=bodies.doc_name(body.get("file_name")),
            file_kind=bodies.string(body, "file_kind", max_len=16),
            mime_type=bodies.string(body, "mime_type", max_len=255),
            data=data,
            extracted=bodies.string(body, "extracted", min_len=0, max_len=1 << 40,
                                    required=False),
            now=ctx.clock())
    return {"file_uuid": file_uuid, "project_uuid": project_uuid}


def routes(ctx: ServiceContext) -> list[Route]:
    state: FaultState = ctx.faults
    simple = {
        "sse": lambda b: _rule("sse", b),
        "latency": lambda b: _rule("latency", b,
                                   ms=bodies.integer(b.get("ms"), "ms", low=0, high=600_000)),
        "drip": lambda b: _rule(
            "drip", b,
            bytes_per_tick=bodies.integer(b.get("bytes_per_tick"), "bytes_per_tick", low=1,
                                          high=1 << 30),
            tick_ms=bodies.integer(b.get("tick_ms"), "tick_ms", low=0, high=60_000)),
        "oversize": lambda b: _rule("oversize", b, bytes=bodies.integer(
            b.get("bytes"), "bytes", low=16, high=256 * 1024 * 1024)),
        "gzip-bomb": lambda b: _rule("gzip-bomb", b),
        "fail": _fail_rule,
    }

    def adder(kind: str) -> Any:
        async def add_rule(request: Request) -> Response:
            rule = simple[kind](await bodies.read_object(request))
            state.rules.append(rule)
            return JSONResponse({"ok": True, "kind": rule.kind, "path": rule.path,
                                 "count": rule.count})
        return add_rule

    async def drop_sessions(request: Request) -> Response:
        if ctx.drop_mcp_sessions is None:
            raise ApiError("not_found_error", "The MCP endpoint is not running.")
        return JSONResponse({"dropped": ctx.drop_mcp_sessions()})

    async def misreport(request: Request) -> Response:
        body = await bodies.read_object(request)
        state.misreport.add(bodies.string(body, "file_uuid", max_len=64))
        return JSONResponse({"ok": True})

    async def narrow(request: Request) -> Response:
        drop = (await bodies.read_object(request)).get("drop")
        if not isinstance(drop, list) or not all(isinstance(s, str) for s in drop):
            raise ApiError("invalid_request_error", "'drop' must be a list of scopes.")
        state.narrowed.update(drop)
        return JSONResponse({"narrowed": sorted(state.narrowed)})

    async def expire(request: Request) -> Response:
        return JSONResponse({"expired": oauth.expire_access_tokens(ctx)})

    async def search_switch(request: Request) -> Response:
        body = await bodies.read_object(request)
        project_uuid = _project_uuid(ctx, body)
        enabled = body.get("enabled")
        if not isinstance(enabled, bool):
            raise ApiError("invalid_request_error", "'enabled' must be true or false.")
        _remember(ctx, state, project_uuid)
        with ctx.db.transaction() as conn:
            projects_store.set_search_enabled(conn, project_uuid, enabled)
        return JSONResponse({"project_uuid": project_uuid, "enabled": enabled})

    async def knowledge(request: Request) -> Response:
        body = await bodies.read_object(request)
        project_uuid = _project_uuid(ctx, body)
        limits = {name: bodies.integer(body[name], name, low=0, high=1 << 40)
                  for name in ("max_knowledge_size", "threshold") if name in body}
        _remember(ctx, state, project_uuid)
        with ctx.db.transaction() as conn:
            projects_store.set_limits(conn, project_uuid,
                                      max_knowledge_size=limits.get("max_knowledge_size"),
                                      threshold=limits.get("threshold"))
            return JSONResponse(projects_store.knowledge_stats(
                conn, conn.execute("SELECT * FROM projects WHERE uuid = ?",
                                   (project_uuid,)).fetchone()))

    async def upload(request: Request) -> Response:
        return JSONResponse(_upload(ctx, await bodies.read_object(request)), status_code=201)

    async def counts(request: Request) -> Response:
        return JSONResponse(dict(state.counts))

    async def reset(request: Request) -> Response:
        _reset(ctx, state)
        return JSONResponse({"ok": True})

    return [
        Route("/_faults/counts", counts, methods=["GET"]),
        Route("/_faults/reset", reset, methods=["POST"]),
        Route("/_faults/drop-mcp-sessions", drop_sessions, methods=["POST"]),
        Route("/_faults/misreport-size", misreport, methods=["POST"]),
        Route("/_faults/narrow-scopes", narrow, methods=["POST"]),
        Route("/_faults/expire-tokens", expire, methods=["POST"]),
        Route("/_faults/search", search_switch, methods=["POST"]),
        Route("/_faults/knowledge", knowledge, methods=["POST"]),
        Route("/_faults/upload", upload, methods=["POST"]),
    ] + [Route(f"/_faults/{kind}", adder(kind), methods=["POST"]) for kind in simple]


def install(ctx: ServiceContext) -> None:
    ctx.faults = FaultState()
