"""One capped exchange: send a request, read at most `max_bytes` of identity-encoded body
within a total deadline, and hand back an `Answer`. Every client in the package reads
answers through `send`, so caps, deadlines and encoding rules live in one place.

`send` tags each request with its action (`request.extensions["jdp_action"]`) for the
HTTP trace, which is attached to the client (`HttpTrace.event_hooks()`), so every exchange
of a session's clients is traced. `authenticate=False` bypasses the client's auth (the
token endpoint must never receive a bearer header, and a refresh must not re-enter the auth
flow that asked for it).

An `Answer` carries the secrets its client's auth knew when the answer arrived, so
`Answer.text()` is redacted (then cut) even where the caller knows no token; its repr
never shows the body, and the body read so far is held in a buffer whose repr shows only
its size, so a traceback that prints locals shows no token answer."""

from __future__ import annotations

import asyncio
import dataclasses
import json as jsonlib
from typing import Any

import httpx

from ..core.redaction import Secret, redact_body
from ..errors import DeadlineExceeded, ResponseTooLarge, TransportError

#: the request extension naming the action of an exchange (read by the HTTP trace)
ACTION_EXTENSION = "jdp_action"

#: headers every client sends (the session's httpx client is built with them)
BASE_HEADERS = {"Accept-Encoding": "identity", "User-Agent": "jupyter-design-projects/0.1"}


@dataclasses.dataclass(frozen=True)
class Answer:
    status: int
    headers: httpx.Headers
    body: bytes = dataclasses.field(repr=False)
    action: str
    #: every secret the client's auth knew when the answer arrived (for `text`)
    secrets: tuple[Secret, ...] = dataclasses.field(default=(), repr=False, compare=False)

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    def json(self) -> Any:
        """The body as JSON; a malformed body is a TransportError that never echoes it."""
        try:
            return jsonlib.loads(self.body)
        except ValueError:
            raise TransportError(
                self.action, f"the answer (HTTP {self.status}) is not JSON"
            ) from None

    def text(self, limit: int = 2000) -> str:
        """The body for display: credential fields blanked, every secret the client knew
        and any `Bearer …` redacted, and only then cut to `limit` characters."""
        return redact_body(self.body, limit, self.secrets)


class _Body(bytearray):
    """The bytes of an answer being read; its repr shows only their number."""

    def __repr__(self) -> str:
        return f"<{len(self)} bytes>"


def make_client(
    *, auth: httpx.Auth | None = None, transport: httpx.AsyncBaseTransport | None = None,
    event_hooks: dict | None = None,
) -> httpx.AsyncClient:
    """The one long-lived client of a session: no redirects, identity encoding."""
    return httpx.AsyncClient(
        auth=auth,
        transport=transport,
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
    headers: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
    authenticate: bool = True,
) -> Answer:
    """Send and read the answer under a byte cap and a total deadline (not a read timeout:
    a slow drip is cut at the deadline)."""
    try:
        request = client.build_request(method, url, json=json, headers=headers, params=params)
    except (httpx.InvalidURL, httpx.HTTPError):
        raise TransportError(action, "the request URL is not valid") from None
    request.extensions[ACTION_EXTENSION] = action
    extra: dict[str, Any] = {} if authenticate else {"auth": None}
    try:
        async with asyncio.timeout(deadline_s):
            response = await client.send(request, stream=True, **extra)
            try:
                encoding = response.headers.get("content-encoding", "identity").lower()
                if encoding not in ("", "identity"):
                    raise TransportError(
                        action, f"the answer is {encoding[:40]}-encoded; asked for identity"
                    )
                declared = response.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > max_bytes:
                    raise ResponseTooLarge(action, max_bytes, response.status_code)
                body = _Body()
                # identity only (checked above), so these are the raw bytes; aiter_bytes
                # also serves a body a transport handed over already read (MockTransport)
                async for chunk in response.aiter_bytes():
                    if len(body) + len(chunk) > max_bytes:
                        raise ResponseTooLarge(action, max_bytes, response.status_code)
                    body += chunk
            finally:
                await response.aclose()
    except TimeoutError:
        raise DeadlineExceeded(action, deadline_s) from None
    except httpx.HTTPError as exc:
        raise TransportError(action, f"{type(exc).__name__} talking to the service") from None
    return Answer(response.status_code, response.headers, bytes(body), action,
                  _secrets_known_to(client))


def _secrets_known_to(client: httpx.AsyncClient) -> tuple[Secret, ...]:
    """The secrets of the client's auth (`BearerAuth.known_secrets`), if it has any."""
    known = getattr(client.auth, "known_secrets", None)
    return tuple(known()) if callable(known) else ()
