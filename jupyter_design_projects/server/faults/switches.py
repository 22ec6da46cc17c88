"""Fault injection for tests (only with --faults): the ASGI wrapper that counts every
request and applies the switch that matches it (the switches themselves are in
`faults/state.py`; the /_faults control routes that set them in `faults/routes.py`). It
also lets the echo switch (`faults/echo.py`) note the credentials every request carries
and every token answer issues, and, while it is on, echo them in the answers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from .. import paths
from ..context import ServiceContext
from ..envelopes import JSON_TYPE, send_error
from ..request_body import Disconnected, read_body, replay
from . import hostile
from .echo import EventEcho
from .state import FaultState, Rule, canned_answer, peek

LOOPBACK_CLIENTS = frozenset({"127.0.0.1", "::1", "testclient"})


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
        state.echo.learn_request(scope.get("headers", []), body)
        facts = peek(method, path, body)
        state.count(method, path, facts)
        latency, rule = state.take(method, path, facts)
        if latency is not None:
            await asyncio.sleep(latency.params["ms"] / 1000)
        replayed = replay(body, receive)
        if rule is None:
            await _unruled(self.app, scope, replayed, send, state)
        else:
            await _ruled(self.app, scope, replayed, send, state, rule, body)


async def _unruled(app: Any, scope: dict, receive: Any, send: Any, state: FaultState) -> None:
    """A request no rule replaces: echoed (`_echoed`), rewritten by the hostile switch, or
    passed through as it is."""
    path = scope["path"]
    if state.echo.on and hostile.applies(path) or path == paths.TOKEN:
        await _echoed(app, scope, receive, send, state)
    elif state.hostile is not None and hostile.applies(path):
        status, headers, payload = await _capture(app, scope, receive)
        tainted = hostile.rewrite(payload, state.hostile)
        if tainted is not None:
            payload = tainted
            headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(payload)).encode()))
        await _answer(send, status, headers, payload)
    else:
        await app(scope, receive, send)


async def _ruled(app: Any, scope: dict, receive: Any, send: Any, state: FaultState,
                 rule: Rule, body: bytes) -> None:
    """The answer `rule` gives in place of the real one (`fail`, `oversize`, `gzip-bomb`)
    or made of it (`sse`, `drip`)."""
    if rule.kind == "fail":
        payload = json.dumps(canned_answer(rule, body)).encode()
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
        status, headers, payload = await _capture(app, scope, receive)
        if rule.kind == "sse":
            payload = b"event: message\ndata: " + payload.replace(b"\n", b" ") + b"\n\n"
            headers = [(b"content-type", b"text/event-stream"),
                       (b"cache-control", b"no-cache")]
            await _answer(send, 200, headers, payload)
        else:
            await _drip(send, status, headers, payload, rule.params)


async def _echoed(app: Any, scope: dict, receive: Any, send: Any, state: FaultState) -> None:
    """A request while the echo switch is on (or one to the token endpoint, whose answer
    is only read, for the tokens it issues): the event stream passed through with its
    messages echoing, any other answer captured, read and, while on, rewritten."""
    echo = state.echo
    if scope["method"] == "GET" and scope["path"] == paths.DESIGN_MCP:
        events = EventEcho(echo)

        async def echoing(message: dict) -> None:
            if message["type"] == "http.response.body":
                more = message.get("more_body", False)
                body = events.feed(message.get("body", b"")) + (b"" if more
                                                                 else events.flush())
                message = {**message, "body": body}
            elif message["type"] == "http.response.start":
                message = {**message, "headers": [(k, v) for k, v in message["headers"]
                                                  if k.lower() != b"content-length"]}
            await send(message)

        await app(scope, receive, echoing)
        return
    status, headers, payload = await _capture(app, scope, receive)
    echo.learn_answer(payload)
    tainted = echo.rewrite(payload) if echo.on and scope["path"] != paths.TOKEN else None
    if tainted is not None:
        payload = tainted
        headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(payload)).encode()))
    await _answer(send, status, headers, payload)


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
