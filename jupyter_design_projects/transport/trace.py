"""The HTTP trace: a bounded record of each exchange, redacted before it is stored.

Off unless the `http_trace` setting is on. It is attached to a client with
`make_client(event_hooks=trace.event_hooks())`, so every exchange of the session's clients
is traced, including 401s the auth flow retried and exchanges that never got an answer:

- the request hook appends a row (status None, error "no answer") for the request as it
  goes out, after the auth flow set its headers;
- the response hook fills in status and headers, and wraps the body stream;
- closing that stream fills in the sizes, the first `body_chars` of the body and the time,
  and flags a body that was not read to its end ("body not fully read": a cap or deadline).

Nothing stored is a live token: authorization and cookie headers are blanked,
credential-named JSON fields are blanked, and every secret the provider knows is redacted
in URLs, headers and bodies — before truncation. `records()` redacts once more with the
secrets known by then, so a credential learned after its exchange was recorded (the login
code read off the sign-in page) is not shown either.
"""

from __future__ import annotations

import collections
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any

import httpx

from ..core.redaction import REDACTED, Secret, redact, redact_body
from .http import ACTION_EXTENSION

#: how many exchanges the trace keeps (the oldest go first)
TRACE_LIMIT = 500
#: how many characters of each body a record keeps, after redaction
BODY_CHARS = 2000
BLANKED_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"}
)
#: longer than any token: a token cut at the end of the kept head is never shown
TOKEN_ROOM = 8192
_ROW = "jdp_trace_row"


class HttpTrace:
    def __init__(
        self,
        enabled: bool,
        secrets_provider: Callable[[], Iterable[Secret]],
        *,
        limit: int = TRACE_LIMIT,
        body_chars: int = BODY_CHARS,
    ) -> None:
        self.enabled = enabled
        self._secrets = secrets_provider
        self._body_chars = body_chars
        self._rows: collections.deque[dict[str, Any]] = collections.deque(maxlen=limit)

    def event_hooks(self) -> dict[str, list[Callable[..., Any]]]:
        return {"request": [self._on_request], "response": [self._on_response]}

    def records(self) -> list[dict[str, Any]]:
        """The exchanges, oldest first, redacted with every secret known now."""
        secrets = list(self._secrets())
        return [
            {k: _redacted(v, secrets) for k, v in row.items() if not k.startswith("_")}
            for row in self._rows
        ]

    def clear(self) -> None:
        self._rows.clear()

    # ---------------------------------------------------------------- hooks

    async def _on_request(self, request: httpx.Request) -> None:
        if not self.enabled:
            return
        secrets = list(self._secrets())
        body = request.content if isinstance(request.stream, httpx.ByteStream) else b""
        row: dict[str, Any] = {
            "action": request.extensions.get(ACTION_EXTENSION, ""),
            "method": request.method,
            "url": redact(str(request.url), secrets),
            "status": None,
            "elapsed_ms": None,
            "request_bytes": len(body),
            "response_bytes": 0,
            "request_headers": _headers(request.headers, secrets),
            "response_headers": {},
            "request_body": redact_body(body, self._body_chars, secrets),
            "response_body": "",
            "error": "no answer",
            "_started": time.perf_counter(),
        }
        request.extensions[_ROW] = row
        self._rows.append(row)

    async def _on_response(self, response: httpx.Response) -> None:
        row = response.request.extensions.get(_ROW)
        if row is None:
            return
        row["status"] = response.status_code
        row["response_headers"] = _headers(response.headers, list(self._secrets()))
        row["error"] = None
        if response.is_stream_consumed:  # a transport that handed the body over already read
            self._finish(row, response.content, len(response.content), complete=True)
            return
        # bytes enough for body_chars characters, plus room to finish a token that starts
        # within them: redaction runs on the head before it is cut to body_chars
        keep = 4 * self._body_chars + TOKEN_ROOM
        response.stream = _Recorded(response.stream, keep, lambda head, size, complete: (
            self._finish(row, head, size, complete)))

    def _finish(self, row: dict[str, Any], body: bytes, size: int, complete: bool) -> None:
        secrets = list(self._secrets())
        row["response_bytes"] = size
        row["response_body"] = redact_body(body, self._body_chars, secrets)
        row["elapsed_ms"] = round((time.perf_counter() - row.pop("_started")) * 1000, 1)
        if not complete:
            row["error"] = "body not fully read"


class _Recorded(httpx.AsyncByteStream):
    """The answer's body stream, passed through unchanged while its head is kept."""

    def __init__(
        self, inner: Any, keep: int, finish: Callable[[bytes, int, bool], None]
    ) -> None:
        self._inner = inner
        self._keep = keep
        self._finish = finish
        self._head = bytearray()
        self._size = 0
        self._complete = False
        self._done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._size += len(chunk)
            if len(self._head) < self._keep:
                self._head += chunk[: self._keep - len(self._head)]
            yield chunk
        self._complete = True

    async def aclose(self) -> None:
        if not self._done:
            self._done = True
            self._finish(bytes(self._head), self._size, self._complete)
        await self._inner.aclose()


def _redacted(value: Any, secrets: list[Secret]) -> Any:
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {k: _redacted(v, secrets) for k, v in value.items()}
    return value


def _headers(headers: Mapping[str, str], secrets: list[Secret]) -> dict[str, str]:
    return {
        name.lower(): REDACTED if name.lower() in BLANKED_HEADERS else redact(value, secrets)
        for name, value in headers.items()
    }
