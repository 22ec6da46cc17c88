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
import re
import ssl
import time
from collections.abc import AsyncIterator, Callable, Iterator
from json.encoder import encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

import httpx

from ..core.redaction import Redactor, Secret, redact_body, redact_values, secrets_in_body
from ..errors import DeadlineExceeded, ResponseTooLarge, TransportError, UnexpectedContentType

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


#: characters JSON writes as a backslash and one more character
_SHORT_ESCAPES = '"\\\n\r\t\b\f'
#: the other control characters, which JSON writes as six (`\\u00XX`)
_OTHER_CONTROLS = re.compile("[\x00-\x07\x0b\x0e-\x1f]")
_SHORT_ESCAPE_BYTES = _SHORT_ESCAPES.encode("ascii")
_OTHER_CONTROL_BYTES = bytes(c for c in range(32) if chr(c) not in _SHORT_ESCAPES)
#: each two-character escape as JSON writes it, the backslash first (the others add one)
_SHORT_ESCAPE_PAIRS = tuple((char.encode("ascii"), jsonlib.dumps(char)[1:-1].encode("ascii"))
                            for char in "\\" + _SHORT_ESCAPES.replace("\\", ""))


class JsonBody:
    """A JSON object request body encoded a slice at a time as it is sent, so a 25 MiB
    string is never also held as its JSON text and its bytes. Its exact length goes in
    Content-Length (no chunked encoding); it can be iterated again (an auth retry sends
    it twice). Encoded as httpx encodes `json=`: UTF-8, compact, no NaN."""

    SLICE_CHARS = 1 << 18

    def __init__(self, fields: dict[str, Any]) -> None:
        self._fields = fields
        #: for each slice of a long string, in order: whether it holds a control character
        #: JSON writes as `\\u00XX` (counted by the length pass, used when sending)
        self._controlled: list[bool] = []
        self.length = sum(self._measured(piece) if isinstance(piece, str) else len(piece)
                          for piece in self._parts())

    def _measured(self, text: str) -> int:
        size, others = self._escaped_size(text)
        self._controlled.append(others > 0)
        return size

    @property
    def headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json", "Content-Length": str(self.length)}

    @staticmethod
    def _dumps(value: Any) -> bytes:
        return jsonlib.dumps(value, ensure_ascii=False, separators=(",", ":"),
                             allow_nan=False).encode("utf-8")

    @staticmethod
    def _plain_ascii(text: str) -> bool:
        """ASCII without DEL: the C encoder for ASCII writes such a slice exactly as
        `_dumps` does (it would escape DEL, which `_dumps` keeps), at twice the speed."""
        return text.isascii() and "\x7f" not in text

    @classmethod
    def _escaped(cls, text: str, controlled: bool = True) -> bytes:
        """`_dumps(text)[1:-1]`: one slice of a long string as it is sent. ASCII with no
        control character but the two-character escapes (most text: `controlled` says) is
        its bytes with those escapes replaced, seven C passes that copy only where one is
        found (DEL stays raw, as `_dumps` keeps it)."""
        if not controlled and text.isascii():
            data = text.encode("ascii")
            for char, escape in _SHORT_ESCAPE_PAIRS:
                if char in data:
                    data = data.replace(char, escape)
            return data
        if cls._plain_ascii(text):
            return encode_basestring_ascii(text).encode("ascii")[1:-1]
        return cls._dumps(text)[1:-1]

    @classmethod
    def _escaped_size(cls, text: str) -> tuple[int, int]:
        """The bytes of `_escaped(text)`, counted without escaping it, and how many control
        characters it writes as six (`\\u00XX`): its UTF-8 bytes, plus one for each
        two-character escape, plus five for each other control character; an ASCII slice
        counts them by deleting them from its bytes (two C passes, faster than a count per
        character). A lone surrogate raises UnicodeEncodeError here as `_dumps` would."""
        if cls._plain_ascii(text):
            data = text.encode("ascii")
            size = len(data)
            others = size - len(data.translate(None, _OTHER_CONTROL_BYTES))
            shorts = size - len(data.translate(None, _SHORT_ESCAPE_BYTES))
            return size + shorts + 5 * others, others
        size = len(text.encode("utf-8"))
        size += sum(text.count(c) for c in _SHORT_ESCAPES)
        others = sum(1 for _ in _OTHER_CONTROLS.finditer(text))
        return size + 5 * others, others

    def _parts(self) -> Iterator[bytes | str]:
        """`pieces`, with each slice of a long string left as its text."""
        yield b"{"
        for index, (key, value) in enumerate(self._fields.items()):
            yield (b"," if index else b"") + self._dumps(key) + b":"
            if isinstance(value, str) and len(value) > self.SLICE_CHARS:
                yield b'"'
                for at in range(0, len(value), self.SLICE_CHARS):
                    yield value[at:at + self.SLICE_CHARS]
                yield b'"'
            else:
                yield self._dumps(value)
        yield b"}"

    def pieces(self) -> Iterator[bytes]:
        controlled = iter(self._controlled)
        for part in self._parts():
            yield self._escaped(part, next(controlled)) if isinstance(part, str) else part

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces():
            yield piece


def make_client(
    *, auth: httpx.Auth | None = None, transport: httpx.AsyncBaseTransport | None = None,
    event_hooks: dict | None = None, verify: ssl.SSLContext | bool = True,
) -> httpx.AsyncClient:
    """The one long-lived client of a session: no redirects, identity encoding. `verify`
    is httpx's: True builds the default TLS context (about 60 ms: it loads the CA file)."""
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
    try:
        body_stream: JsonBody | bytes | None = content
        if content is not None:
            headers = {**(headers or {}), **content.headers}
            if content.length <= JsonBody.SLICE_CHARS:  # small: plain bytes are cheaper
                body_stream = b"".join(content.pieces())
        request = client.build_request(method, url, json=json, content=body_stream,
                                       headers=headers, params=params)
    except (httpx.InvalidURL, httpx.HTTPError):
        raise TransportError(action, "invalid_url",
                             detail="the request URL is not valid") from None
    request.extensions[ACTION_EXTENSION] = action
    extra: dict[str, Any] = {} if authenticate else {"auth": None}
    known_before = _secrets_known_to(client)
    try:
        async with asyncio.timeout(deadline_s):
            response = await client.send(request, stream=True, **extra)
            try:
                encoding = response.headers.get("content-encoding", "identity").lower()
                if encoding not in ("", "identity"):
                    raise TransportError(
                        action, "encoding",
                        detail=f"the answer is {encoding[:40]}-encoded; asked for identity")
                media_type = response.headers.get("content-type", "").split(";")[0]
                if refuse_content_type is not None and \
                        media_type.strip().lower() == refuse_content_type:
                    raise UnexpectedContentType(action, refuse_content_type,
                                                response.status_code)
                declared = response.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > max_bytes:
                    raise ResponseTooLarge(action, max_bytes, response.status_code)
                body = _Body()
                streamed = 0 if sink is not None and 200 <= response.status_code < 300 \
                    else None
                # identity only (checked above), so these are the raw bytes; aiter_bytes
                # also serves a body a transport handed over already read (MockTransport)
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
