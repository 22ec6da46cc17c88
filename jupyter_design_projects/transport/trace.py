"""The HTTP trace: a bounded ring of the session's exchanges, each redacted before it is
stored.

It is attached to the session's one client with
`make_client(event_hooks=trace.event_hooks())`, so every exchange of both pipelines is
traced — Design MCP and REST, the Projects org API and the remote-session route, the
OAuth token requests — including 401s the auth flow retried and exchanges that never got
an answer. The hooks are always attached; `enabled` (the `http_trace` setting, or
`%design trace on|off`) decides at each request whether it is recorded, so tracing can be
switched on or off at any time.

- the request hook appends a row (status None, error "no answer") for the request as it
  goes out, after the auth flow set its headers, and asks the connection layer (httpcore's
  `trace` extension) for the moments it connects, sends and reads the answer's headers;
- the response hook fills in status, reason, HTTP version and headers, and wraps the body
  stream;
- closing that stream fills in the sizes, the first characters of the body, the timings,
  and flags a body that was not read to its end ("body not fully read": a cap or deadline).

The ring keeps the last `limit` exchanges (the `trace_limit` setting); `dropped` counts the
ones it let go since the last `clear()`. Each exchange has a number `n` (1, 2, … for the
session, not reset by a clear), which `%design trace --curl N` names.

Nothing stored is a live token: authorization and cookie headers are blanked,
credential-named JSON fields are blanked, and every secret known is redacted by value in
URLs, headers and bodies, in every spelling (`core/redaction.py`) — before truncation.
Known are the provider's secrets (the access and refresh tokens the session held, the
login's code and verifier, the session token) and the ones the trace saw go by: the hooks
read every request body and every JSON answer, traced or not (tracing off too), for
credential-named fields — a `finalize_plan` answer's plan token, a token request's code
and verifier — and keep them (`seen_secrets`), so a plan token quoted later in an error
sentence, a URL or a JSON string is redacted too. `records()` redacts once more with the
secrets known by then, so a credential learned after its exchange was recorded (the login
code read off the sign-in page) is not shown either.

The hooks record on the session's background loop while the notebook's thread reads
(`%design trace`, the HAR export): every change to the ring or to a row, and every read
of them, holds one lock, and a reader copies the rows under it and redacts outside it.
"""

from __future__ import annotations

import collections
import datetime
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any

import httpx

from ..core.redaction import (
    REDACTED,
    Redactor,
    Secret,
    SeenSecrets,
    redact_body_cut,
    secrets_in_body,
)
from ..core.trace_limits import (
    REQUEST_BODY_CHARS,
    RESPONSE_BODY_CHARS,
    TRACE_LIMIT,
    check_trace_limit,
)
from .http import ACTION_EXTENSION

BLANKED_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"}
)
#: longer than any token: a token cut at the end of the kept head is never shown
TOKEN_ROOM = 8192
_ROW = "jdp_trace_row"
#: httpcore's request extension that reports the connection's steps
_HTTPCORE_TRACE = "trace"
#: the head of an untraced JSON answer read for credentials (a finalize_plan answer is
#: far smaller)
LEARN_BYTES = 65536


class HttpTrace:
    def __init__(
        self,
        enabled: bool,
        secrets_provider: Callable[[], Iterable[Secret]],
        *,
        limit: int = TRACE_LIMIT,
        body_chars: int = RESPONSE_BODY_CHARS,
        request_body_chars: int = REQUEST_BODY_CHARS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.enabled = enabled
        self._secrets = secrets_provider
        self._body_chars = body_chars
        self._request_body_chars = request_body_chars
        self._clock = clock
        self._rows: collections.deque[dict[str, Any]] = collections.deque(
            maxlen=check_trace_limit(limit))
        #: held for every change to the ring or a row, and while a reader copies them
        self._lock = threading.Lock()
        self._numbered = 0
        self._appended = 0
        self._seen = SeenSecrets()
        #: the secrets the last redactor was made of, and that redactor (one pair, swapped
        #: whole: the notebook's thread and the loop both ask for it)
        self._redactor: tuple[tuple[Secret, ...], Redactor] = ((), Redactor())

    def event_hooks(self) -> dict[str, list[Callable[..., Any]]]:
        return {"request": [self._on_request], "response": [self._on_response]}

    @property
    def limit(self) -> int:
        return self._rows.maxlen or TRACE_LIMIT

    @property
    def dropped(self) -> int:
        """Exchanges the ring let go since the trace began or was last cleared."""
        with self._lock:
            return self._appended - len(self._rows)

    def resize(self, limit: int) -> None:
        """Keep at most `limit` exchanges from now on (the oldest go first)."""
        maxlen = check_trace_limit(limit)
        with self._lock:
            self._rows = collections.deque(self._rows, maxlen=maxlen)

    def seen_secrets(self) -> tuple[Secret, ...]:
        """The credentials seen in the traffic (plan tokens, codes, verifiers …), newest
        last: for every redactor of the session, not only the trace's."""
        with self._lock:
            return tuple(self._seen)

    def _known(self) -> Redactor:
        """A redactor of every secret known now (remade only when they change)."""
        known = (*self._secrets(), *self.seen_secrets())  # compared by value, never shown
        made_of, redactor = self._redactor
        if known != made_of:
            redactor = Redactor(known)
            self._redactor = (known, redactor)
        return redactor

    def _learn(self, body: bytes) -> None:
        found = secrets_in_body(body)
        if found:
            with self._lock:
                self._seen.add(found)

    @property
    def held(self) -> int:
        """How many exchanges the ring holds now (a property, not `len()`: an empty trace
        must not read as a missing one where code asks `if trace`)."""
        with self._lock:
            return len(self._rows)

    @property
    def newest(self) -> int:
        """The number of the newest exchange the ring holds (0 when it holds none): what
        a call history marks a call's exchanges with, read without redacting a row (a
        mark taken through `records()` redacted the whole ring twice a call)."""
        with self._lock:
            return self._rows[-1]["n"] if self._rows else 0

    def records(self) -> list[dict[str, Any]]:
        """The exchanges, oldest first, redacted with every secret known now."""
        redact = self._known()
        with self._lock:  # a shallow copy: a row's values are replaced, never changed
            rows = [{k: v for k, v in row.items() if not k.startswith("_")}
                    for row in self._rows]
        return [{k: _redacted(v, redact) for k, v in row.items()} for row in rows]

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()
            self._appended = 0

    # ---------------------------------------------------------------- hooks

    async def _on_request(self, request: httpx.Request) -> None:
        body = request.content if isinstance(request.stream, httpx.ByteStream) else b""
        self._learn(body)  # traced or not: a credential sent is redacted from now on
        if not self.enabled:
            return
        redact = self._known()
        text, cut = redact_body_cut(body, self._request_body_chars, redact)
        size = _request_size(request, body)
        cut = cut or len(body) < size  # a streamed body (over a MiB) is not kept at all
        row: dict[str, Any] = {
            "n": 0,
            "action": request.extensions.get(ACTION_EXTENSION, ""),
            "method": request.method,
            "url": redact(str(request.url)),
            "status": None,
            "reason": "",
            "http_version": "",
            "started": iso_time(self._clock()),
            "elapsed_ms": None,
            "timings": {},
            "request_bytes": size,
            "response_bytes": 0,
            "request_headers": _headers(request.headers, redact),
            "response_headers": {},
            "request_body": text,
            "request_body_cut": cut,
            "response_body": "",
            "response_body_cut": False,
            "error": "no answer",
            "_marks": {"start": time.perf_counter()},
        }
        marks = row["_marks"]

        async def connection_step(name: str, info: Mapping[str, Any]) -> None:
            marks.setdefault(name, time.perf_counter())

        if _HTTPCORE_TRACE not in request.extensions:
            request.extensions[_HTTPCORE_TRACE] = connection_step
        request.extensions[_ROW] = row
        with self._lock:
            self._numbered += 1
            row["n"] = self._numbered
            self._rows.append(row)
            self._appended += 1

    async def _on_response(self, response: httpx.Response) -> None:
        row = response.request.extensions.get(_ROW)
        if row is None:
            self._learn_from(response)
            return
        row["_marks"]["headers"] = time.perf_counter()
        headers = _headers(response.headers, self._known())
        with self._lock:
            row.update(status=response.status_code, reason=response.reason_phrase,
                       http_version=response.http_version, response_headers=headers,
                       error=None)
        if response.is_stream_consumed:  # a transport that handed the body over already read
            self._finish(row, response.content, len(response.content), complete=True)
            return
        # bytes enough for body_chars characters, plus room to finish a token that starts
        # within them: redaction runs on the head before it is cut to body_chars
        keep = 4 * self._body_chars + TOKEN_ROOM
        response.stream = _Recorded(response.stream, keep, lambda head, size, complete: (
            self._finish(row, head, size, complete)))

    def _learn_from(self, response: httpx.Response) -> None:
        """Read an untraced JSON answer's head for credentials as it streams by."""
        if "json" not in response.headers.get("content-type", "").lower():
            return
        if response.is_stream_consumed:
            self._learn(response.content)
            return
        response.stream = _Recorded(response.stream, LEARN_BYTES,
                                    lambda head, size, complete: self._learn(head))

    def _finish(self, row: dict[str, Any], body: bytes, size: int, complete: bool) -> None:
        self._learn(body)  # before redacting: a plan token in this answer is known already
        redact = self._known()
        marks = row["_marks"]
        marks["closed"] = time.perf_counter()
        text, cut = redact_body_cut(body, self._body_chars, redact)
        done: dict[str, Any] = {
            "response_bytes": size, "response_body": text,
            "response_body_cut": cut or not complete or len(body) < size,
            "elapsed_ms": _ms(marks["start"], marks["closed"]), "timings": timings(marks)}
        if not complete:
            done["error"] = "body not fully read"
        with self._lock:
            row.update(done)
            del row["_marks"]


def iso_time(epoch_s: float) -> str:
    """A Unix time as HAR's ISO 8601 date-time, in UTC to the millisecond."""
    moment = datetime.datetime.fromtimestamp(epoch_s, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def timings(marks: Mapping[str, float]) -> dict[str, float]:
    """HAR's phases in milliseconds from the moments an exchange passed (perf_counter
    readings): `start` (the request hook), httpcore's steps where the connection layer
    reported them, `headers` (the response hook) and `closed` (the body stream closed).
    A phase with no reading is left out (the HAR builder makes it -1, or 0 for the
    required ones)."""
    out: dict[str, float] = {}
    tcp = _span(marks, "connection.connect_tcp")
    tls = _span(marks, "connection.start_tls")
    if tcp is not None:
        out["connect"] = tcp + (tls or 0.0)
    if tls is not None:
        out["ssl"] = tls
    sent_from = _first(marks, "http11.send_request_headers.started",
                       "http2.send_request_headers.started")
    sent = _first(marks, "http11.send_request_body.complete", "http2.send_request_body.complete")
    answered = _first(marks, "http11.receive_response_headers.complete",
                      "http2.receive_response_headers.complete")
    opened = _first(marks, "connection.connect_tcp.started") or sent_from
    if opened is not None:
        out["blocked"] = _ms(marks["start"], opened)
    if sent_from is not None and sent is not None:
        out["send"] = _ms(sent_from, sent)
        out["wait"] = _ms(sent, answered if answered is not None else marks["headers"])
    elif "headers" in marks:
        out["send"] = 0.0
        out["wait"] = _ms(marks["start"], marks["headers"])
    if "headers" in marks:
        out["receive"] = _ms(marks["headers"], marks["closed"])
    return out


def _first(marks: Mapping[str, float], *names: str) -> float | None:
    for name in names:
        if name in marks:
            return marks[name]
    return None


def _span(marks: Mapping[str, float], step: str) -> float | None:
    began, ended = marks.get(step + ".started"), marks.get(step + ".complete")
    return _ms(began, ended) if began is not None and ended is not None else None


def _ms(began: float, ended: float) -> float:
    return round(max(0.0, ended - began) * 1000, 3)


def _request_size(request: httpx.Request, body: bytes) -> int:
    if body:
        return len(body)
    declared = request.headers.get("content-length", "")
    return int(declared) if declared.isdigit() else 0


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


def _redacted(value: Any, redact: Redactor) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redacted(v, redact) for k, v in value.items()}
    return value


def _headers(headers: Mapping[str, str], redact: Redactor) -> dict[str, str]:
    return {
        name.lower(): REDACTED if name.lower() in BLANKED_HEADERS else redact(value)
        for name, value in headers.items()
    }
