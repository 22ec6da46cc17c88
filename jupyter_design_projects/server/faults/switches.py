"""Fault injection for tests (only with --faults): the switches of one run, and the ASGI
wrapper that counts every request and applies the switch that matches it. The /_faults
control routes that set the switches live in `faults/routes.py`."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import io
import json
from collections import Counter
from typing import Any, NamedTuple

from .. import paths
from ..context import ServiceContext
from ..envelopes import JSON_TYPE, send_error
from ..request_body import Disconnected, read_body, replay

LOOPBACK_CLIENTS = frozenset({"127.0.0.1", "::1", "testclient"})
#: rules that replace the answer (at most one applies); "latency" only delays it
TERMINAL_KINDS = ("fail", "sse", "drip", "oversize", "gzip-bomb")
GZIP_BOMB_BYTES = 64 * 1024 * 1024


class Peek(NamedTuple):
    """What a rule can match inside a POST body: the JSON-RPC method and tool name of an
    MCP call, the `op` of a remote-session call (None where absent or not a string)."""

    rpc_method: str | None = None
    tool: str | None = None
    op: str | None = None


def _json_object(body: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _canned(rule: Rule, request_body: bytes) -> Any:
    """A `fail` rule's answer. A canned JSON-RPC envelope answers the request it replaces,
    as a service would: its `id` becomes the request's, unless the rule says `echo_id:
    false` (to test a client against an answer to another request)."""
    answer = rule.params["body"]
    if not (rule.params["echo_id"] and isinstance(answer, dict) and "jsonrpc" in answer):
        return answer
    request = _json_object(request_body)
    if request is None or "id" not in request:
        return answer
    return {**answer, "id": request["id"]}


def peek(method: str, path: str, body: bytes) -> Peek:
    """The matchable facts of a request's body (nothing for other routes and methods)."""
    if method != "POST" or path not in (paths.DESIGN_MCP, paths.REMOTE_SESSION):
        return Peek()
    message = _json_object(body)
    if message is None:
        return Peek()
    if path == paths.REMOTE_SESSION:
        return Peek(op=_text(message.get("op")))
    rpc_method = _text(message.get("method"))
    params = message.get("params")
    tool = _text(params.get("name")) if rpc_method and isinstance(params, dict) else None
    return Peek(rpc_method=rpc_method, tool=tool)


@dataclasses.dataclass
class Rule:
    kind: str
    path: str
    count: int
    method: str | None = None
    rpc_method: str | None = None
    tool: str | None = None
    op: str | None = None
    params: dict[str, Any] = dataclasses.field(default_factory=dict)

    def matches(self, method: str, path: str, facts: Peek) -> bool:
        """A path ending in `*` is a prefix; every matcher that is set must hold."""
        if self.path.endswith("*"):
            if not path.startswith(self.path[:-1]):
                return False
        elif path != self.path:
            return False
        return ((self.method is None or self.method.upper() == method)
                and (self.rpc_method is None or self.rpc_method == facts.rpc_method)
                and (self.tool is None or self.tool == facts.tool)
                and (self.op is None or self.op == facts.op))


class FaultState:
    """The switches of one service run (ctx.faults)."""

    def __init__(self) -> None:
        self.rules: list[Rule] = []
        self.counts: Counter[str] = Counter()
        self.misreport: set[str] = set()
        self.narrowed: set[str] = set()
        #: project uuid -> its (max_knowledge_size, threshold, search_enabled) before faults
        self.saved_projects: dict[str, tuple[int, int, int]] = {}
        #: read-only Design operations served beyond the table (reset stops them)
        self.extra_operations: set[str] = set()
        self._bomb: bytes | None = None

    def narrowed_scopes(self) -> frozenset[str]:
        return frozenset(self.narrowed)

    def take_misreport(self, file_uuid: str) -> bool:
        """True once after POST /_faults/misreport-size for this file."""
        if file_uuid in self.misreport:
            self.misreport.discard(file_uuid)
            return True
        return False

    def count(self, method: str, path: str, facts: Peek) -> None:
        """One more request on this route (and on its MCP method, tool or session op)."""
        self.counts[f"{method} {path}"] += 1
        if facts.rpc_method is not None:
            self.counts[f"mcp:{facts.rpc_method}"] += 1
            if facts.rpc_method == "tools/call" and facts.tool is not None:
                self.counts[f"mcp:tools/call:{facts.tool}"] += 1
        if facts.op is not None:
            self.counts[f"session:{facts.op}"] += 1

    def take(self, method: str, path: str, facts: Peek) -> tuple[Rule | None, Rule | None]:
        """The latency rule and the terminal rule for this request, each used up once."""
        latency = self._take_first(method, path, facts, ("latency",))
        terminal = self._take_first(method, path, facts, TERMINAL_KINDS)
        return latency, terminal

    def _take_first(self, method: str, path: str, facts: Peek,
                    kinds: tuple[str, ...]) -> Rule | None:
        for rule in self.rules:
            if rule.kind in kinds and rule.matches(method, path, facts):
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


def is_loopback(scope: dict) -> bool:
    client = scope.get("client")
    return client is not None and client[0] in LOOPBACK_CLIENTS


class FaultMiddleware:
    """Counts every request and applies the switch that matches it, if any; the control
    routes answer loopback clients only (anyone else gets a 404 envelope)."""

    def __init__(self, app: Any, ctx: ServiceContext) -> None:
        self.app = app
        self.ctx = ctx

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        state: FaultState | None = self.ctx.faults
        if scope["type"] != "http" or state is None:
            await self.app(scope, receive, send)
            return
        if scope["path"].startswith(paths.FAULTS):
            if not is_loopback(scope):
                await send_error(send, 404, "not_found_error", "Not found.")
                return
            await self.app(scope, receive, send)
            return
        try:
            body = await read_body(receive) or b""
        except Disconnected:
            return
        method, path = scope["method"], scope["path"]
        facts = peek(method, path, body)
        state.count(method, path, facts)
        latency, rule = state.take(method, path, facts)
        if latency is not None:
            await asyncio.sleep(latency.params["ms"] / 1000)
        replayed = replay(body, receive)
        if rule is None:
            await self.app(scope, replayed, send)
        elif rule.kind == "fail":
            payload = json.dumps(_canned(rule, body)).encode()
            headers = [(b"content-type", JSON_TYPE.encode()),
                       (b"content-length", str(len(payload)).encode())]
            headers += [(k.lower().encode("latin-1"), v.encode("latin-1"))
                        for k, v in rule.params["headers"].items()]
            await _answer(send, rule.params["status"], headers, payload)
        elif rule.kind == "oversize":
            size = rule.params["bytes"]
            payload = b'{"padding":"' + b"x" * max(0, size - 14) + b'"}'
            await _answer(send, 200, [(b"content-type", JSON_TYPE.encode()),
                                      (b"content-length", str(len(payload)).encode())], payload)
        elif rule.kind == "gzip-bomb":
            payload = await asyncio.to_thread(state.gzip_bomb)
            await _answer(send, 200, [(b"content-type", JSON_TYPE.encode()),
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


def install(ctx: ServiceContext) -> None:
    ctx.faults = FaultState()
