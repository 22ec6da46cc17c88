"""The MCP sessions of the Design endpoint as seen from in front of the SDK: the ids its
answers give out, and the ones dropped since, which answer HTTP 404 from then on as after
a restart (the faults switch `drop-mcp-sessions`). An ASGI wrapper around the SDK's
endpoint, so nothing reaches into the session manager's own bookkeeping."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

#: the header naming a Streamable HTTP session (MCP 2025-03-26)
SESSION_HEADER = b"mcp-session-id"
#: what the SDK answers for a session it does not know: a JSON-RPC error, no request id
SESSION_NOT_FOUND = json.dumps(
    {"jsonrpc": "2.0", "id": None,
     "error": {"code": -32600, "message": "Session not found"}}, separators=(",", ":")).encode()


def _header(headers: Any, name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


class SessionBook:
    """Wraps the endpoint's ASGI app: notes each session an answer opens and each one an
    answer ends (a DELETE, or a 404 once the SDK let it expire); `drop_all` turns every
    open one into an id that answers 404."""

    def __init__(self, app: Any, on_end: Callable[[str], None] | None = None) -> None:
        self.app = app
        #: told the id of each session an answer ended
        self._on_end = on_end
        self._open: set[str] = set()
        self._dropped: set[str] = set()
        self._lock = threading.Lock()  # drop_all may run on another thread (tests)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        named = _header(scope["headers"], SESSION_HEADER)
        if named is not None and named in self._dropped:
            await _not_found(send)
            return
        answer: dict[str, Any] = {}

        async def noting(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                answer["session"] = _header(message.get("headers", ()), SESSION_HEADER)
            await send(message)

        await self.app(scope, receive, noting)
        status = answer.get("status", 0)
        with self._lock:
            if named is None and status == 200 and answer.get("session"):
                self._open.add(answer["session"])
            elif named is not None and (status == 404 or (scope["method"] == "DELETE"
                                                          and 200 <= status < 300)):
                self._open.discard(named)
            else:
                return
        if named is not None and self._on_end is not None:
            self._on_end(named)

    def drop_all(self) -> int:
        """Forget every open session, as a restart does; how many there were."""
        with self._lock:
            dropped = len(self._open)
            self._dropped |= self._open
            self._open.clear()
        return dropped


async def _not_found(send: Any) -> None:
    await send({"type": "http.response.start", "status": 404,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(SESSION_NOT_FOUND)).encode())]})
    await send({"type": "http.response.body", "body": SESSION_NOT_FOUND})
