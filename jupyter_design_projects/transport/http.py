"""One capped exchange: send a request, read at most `max_bytes` of identity-encoded body
within a total deadline, and hand back an `Answer`. Every client in the package reads
answers through `send`, so caps, deadlines and encoding rules live in one place.

`send` tags each request with its action (`request.extensions["jdp_action"]`) for the
HTTP trace, which is attached to the client (`HttpTrace.event_hooks()`), so every exchange
of a session's clients is traced. `authenticate=False` bypasses the client's auth (the
token endpoint must never receive a bearer header, and a refresh must not re-enter the auth
flow that asked for it).

An `Answer` carries the secrets its client's auth knew when the answer arrived (and those
the client's trace saw in its traffic, and a bearer the caller set on the request itself),
so `Answer.text()` is redacted (then cut) even where the caller knows no token; its repr
never shows the body, and the body read so far is held in a buffer whose repr shows only
its size, so a traceback that prints locals shows no token answer.

This is the transport boundary of redaction: `Answer.json()` (and `take_json()`) hand back
the decoded answer with every one of those secrets replaced by value in every string
(keys too), in every spelling `core/redaction.py` knows, before any pipeline reads it —
a service that echoes the person's access or refresh token, a plan token, a login code or
verifier, in a result, an error message or a prompt, shows none of them. Kept are only
the credentials the answer itself issues (`Answer.issued`: a credential-named field whose
value nobody knew before this exchange — a `finalize_plan` answer's new plan token), and
the OAuth client alone reads its token answers unredacted (`json(redacted=False)`)."""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import json as jsonlib
import math
import ssl
import time
from collections.abc import Callable
from typing import Any

import httpx

from ..core.redaction import Redactor, Secret, redact_body, redact_values, secrets_in_body
from ..errors import DeadlineExceeded, ResponseTooLarge, TransportError, UnexpectedContentType
from .json_body import JsonBody

#: the request extension naming the action of an exchange (read by the HTTP trace)
ACTION_EXTENSION = "jdp_action"

#: headers every client sends (the session's httpx client is built with them)
BASE_HEADERS = {"Accept-Encoding": "identity", "User-Agent": "jupyter-design-projects/0.1"}


#: the longest wait a `retry-after` may name (about 31 years), so a bogus header stays an int
RETRY_AFTER_MAX_DIGITS = 9


def retry_after_seconds(value: str, now: float) -> int | None:
    """A `retry-after` value in whole seconds from `now` (a Unix time), or None."""
    value = value.strip()
    if value.isascii() and value.isdigit():
        return int(value) if len(value) <= RETRY_AFTER_MAX_DIGITS else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT; "-0000" parses as naive
        return None
    return max(0, math.ceil(when.timestamp() - now))


@dataclasses.dataclass(frozen=True)
class Answer:
    status: int
    headers: httpx.Headers
    #: bytes, or the buffer they were read into (a bytearray whose repr is its size)
    body: bytes | bytearray = dataclasses.field(repr=False)
    action: str
    #: every secret the client's auth knew when the answer arrived (for `text`)
    secrets: tuple[Secret, ...] = dataclasses.field(default=(), repr=False, compare=False)
    #: the credentials this answer issues (first seen in it, in a credential-named field):
    #: left in place by `json()`, so a new plan token reaches the plan it names
    issued: tuple[Secret, ...] = dataclasses.field(default=(), repr=False, compare=False)

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def retry_after(self) -> int | None:
        """The `retry-after` header in whole seconds (429 and 5xx carry it): delta-seconds
        as sent, an HTTP-date (RFC 9110 §10.2.3) as the seconds from now until then, rounded
        up, 0 when it has passed; None when absent or neither form."""
        return retry_after_seconds(self.headers.get("retry-after", ""), time.time())

    def redactor(self) -> Redactor:
        """A redactor of every secret known when the answer arrived but those it issues."""
        return Redactor(s for s in self.secrets if s not in self.issued)

    def json(self, *, redacted: bool = True) -> Any:
        """The body as JSON, every known secret replaced in it (`redact_values`; only the
        OAuth client, reading the tokens it asked for, says `redacted=False`); a malformed
        body is a TransportError that never echoes it."""
        try:
            value = jsonlib.loads(self.body)
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than Python
            raise TransportError(
                self.action, "not_json", detail=f"the answer (HTTP {self.status}) is not JSON"
            ) from None
        return redact_values(value, self.redactor()) if redacted else value

    def take_json(self) -> Any:
        """`json()` for an answer read once: the body is decoded, its bytes released, then
        parsed, so a big answer is held as bytes, text and values two at a time, never
        three. The answer's body is empty afterwards."""
        if not isinstance(self.body, bytearray):
            return self.json()
        try:
            text = self.body.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is None:  # not UTF-8: let json say what it is, as json() would
            return self.json()
        self.body.clear()
        try:
            value = jsonlib.loads(text)
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than Python
            raise TransportError(
                self.action, "not_json", detail=f"the answer (HTTP {self.status}) is not JSON"
            ) from None
        del text
        return redact_values(value, self.redactor())

    def text(self, limit: int = 2000) -> str:
        """The body for display: credential fields blanked, every secret the client knew
        and any `Bearer …` redacted, and only then cut to `limit` characters."""
        return redact_body(bytes(self.body), limit, self.secrets)


class _Body(bytearray):
    """The bytes of an answer being read; its repr shows only their number."""

    def __repr__(self) -> str:
        return f"<{len(self)} bytes>"


def loopback_tls() -> ssl.SSLContext:
    """The TLS context of a client that speaks plain http to loopback only: no CA file
    loaded (httpx's default context loads one: 20 to 60 ms of CPU for each client made),
    so a TLS connection opened by mistake refuses every certificate: it fails closed."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verify_mode CERT_REQUIRED, no CA


def make_client(
    *, auth: httpx.Auth | None = None, transport: httpx.AsyncBaseTransport | None = None,
    event_hooks: dict | None = None, verify: ssl.SSLContext | bool = True,
) -> httpx.AsyncClient:
    """The one long-lived client of a session: no redirects, identity encoding. `verify`
    is httpx's: True builds the default TLS context (it loads the CA file), a session on
    loopback passes `loopback_tls()`."""
    return httpx.AsyncClient(
        auth=auth,
        transport=transport,
        verify=verify,
        follow_redirects=False,
        headers=BASE_HEADERS,
        timeout=httpx.Timeout(60.0),
        event_hooks=event_hooks or {},
    )


async def send(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    action: str,
    max_bytes: int,
    deadline_s: float,
    json: Any = None,
    content: JsonBody | None = None,
    headers: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
    authenticate: bool = True,
    sink: Callable[[bytes], None] | None = None,
    refuse_content_type: str | None = None,
) -> Answer:
    """Send and read the answer under a byte cap and a total deadline (not a read timeout:
    a slow drip is cut at the deadline). With a `sink`, a 2xx body goes to it chunk by
    chunk as it arrives (the Answer's body is then empty), under the same cap; other
    answers are read as usual, for their error. An answer of `refuse_content_type` (a
    media type) is refused from its headers, its body never read (a stream that never
    ends cannot hold the call)."""
    if content is not None:
        headers = {**(headers or {}), **content.headers}
    request = _request(client, method, url, action, json, content, headers, params)
    extra: dict[str, Any] = {} if authenticate else {"auth": None}
    known_before = _secrets_known_to(client)
    try:
        async with asyncio.timeout(deadline_s):
            response = await client.send(request, stream=True, **extra)
            try:
                _check_head(response, action, max_bytes, refuse_content_type)
                body = await _read(response, action, max_bytes, sink)
            finally:
                await response.aclose()
    except TimeoutError:
        raise DeadlineExceeded(action, deadline_s) from None
    except httpx.HTTPError as exc:
        raise TransportError(action, failure_reason(exc),
                             detail=f"{type(exc).__name__} talking to the service") from None
    known = (*_secrets_known_to(client), *_bearer_of(headers))
    # the buffer itself, not a copy of it (a _Body: its repr shows only its size)
    return Answer(response.status_code, response.headers, body, action, known,
                  _issued(client, request, body, known_before, known))


def _request(client: httpx.AsyncClient, method: str, url: str, action: str, json: Any,
             content: JsonBody | None, headers: dict[str, str] | None,
             params: dict[str, Any] | None) -> httpx.Request:
    """The request, tagged with its action; a small `JsonBody` goes as plain bytes."""
    try:
        body_stream: JsonBody | bytes | None = content
        if content is not None and content.length <= JsonBody.SLICE_CHARS:
            body_stream = b"".join(content.pieces())  # small: plain bytes are cheaper
        request = client.build_request(method, url, json=json, content=body_stream,
                                       headers=headers, params=params)
    except (httpx.InvalidURL, httpx.HTTPError):
        raise TransportError(action, "invalid_url",
                             detail="the request URL is not valid") from None
    request.extensions[ACTION_EXTENSION] = action
    return request


def _check_head(response: httpx.Response, action: str, max_bytes: int,
                refuse_content_type: str | None) -> None:
    """Refuse an answer from its headers alone: not identity-encoded, of the refused
    media type, or declaring more than `max_bytes`."""
    encoding = response.headers.get("content-encoding", "identity").lower()
    if encoding not in ("", "identity"):
        raise TransportError(
            action, "encoding",
            detail=f"the answer is {encoding[:40]}-encoded; asked for identity")
    media_type = response.headers.get("content-type", "").split(";")[0]
    if refuse_content_type is not None and \
            media_type.strip().lower() == refuse_content_type:
        raise UnexpectedContentType(action, refuse_content_type, response.status_code)
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise ResponseTooLarge(action, max_bytes, response.status_code)


async def _read(response: httpx.Response, action: str, max_bytes: int,
                sink: Callable[[bytes], None] | None) -> _Body:
    """The body, at most `max_bytes` of it; a 2xx body goes to `sink` instead, if any."""
    body = _Body()
    streamed = 0 if sink is not None and 200 <= response.status_code < 300 else None
    # identity only (checked first), so these are the raw bytes; aiter_bytes also serves
    # a body a transport handed over already read (MockTransport)
    async for chunk in response.aiter_bytes():
        if streamed is not None:
            streamed += len(chunk)
            if streamed > max_bytes:
                raise ResponseTooLarge(action, max_bytes)
            sink(chunk)  # type: ignore[misc]
            continue
        if len(body) + len(chunk) > max_bytes:
            raise ResponseTooLarge(action, max_bytes, response.status_code)
        body += chunk
    return body


def failure_reason(exc: httpx.HTTPError) -> str:
    """The reason code of an exchange httpx could not complete: `connect` when no
    connection was made (nothing listening, no route, the connect timed out), `timeout`
    when a read or write timed out after, `network` when the exchange broke off."""
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
        return "connect"
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    return "network"


def _bearer_of(headers: dict[str, str] | None) -> tuple[Secret, ...]:
    """The bearer a caller set on its request itself (the remote-session JWT)."""
    for name, value in (headers or {}).items():
        if name.lower() == "authorization" and value[:7].lower() == "bearer ":
            return (Secret(value[7:].strip()),)
    return ()


def _issued(client: httpx.AsyncClient, request: httpx.Request, body: bytes | bytearray,
            before: tuple[Secret, ...], known: tuple[Secret, ...]) -> tuple[Secret, ...]:
    """The credentials an answer issues: those first learned during this exchange (not by
    the auth: a refreshed token is no answer's to issue) that stand in a credential-named
    field of the answer and were not sent in the request. Usually none are new, and
    nothing is read."""
    auth = getattr(client.auth, "known_secrets", None)
    fresh = set(known) - set(before) - set(auth() if callable(auth) else ())
    if not fresh:
        return ()
    sent = request.content if isinstance(request.stream, httpx.ByteStream) else b""
    given = set(secrets_in_body(sent))
    answered = set(secrets_in_body(bytes(body)))
    return tuple(s for s in fresh if s.reveal() in answered and s.reveal() not in given)


def _secrets_known_to(client: httpx.AsyncClient) -> tuple[Secret, ...]:
    """The secrets of the client's auth (`BearerAuth.known_secrets`), if it has any, and
    those its trace saw go by (`HttpTrace.seen_secrets`: plan tokens, codes, verifiers),
    found through the trace's hooks on the client."""
    known = getattr(client.auth, "known_secrets", None)
    found = list(known()) if callable(known) else []
    for hook in client.event_hooks.get("response", ()):
        seen = getattr(getattr(hook, "__self__", None), "seen_secrets", None)
        if callable(seen):
            found.extend(seen())
    return tuple(found)
