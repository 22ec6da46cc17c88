"""The record of this session's sign-in steps, kept by the credential manager as they
happen (the authorize URL, the code exchange, each refresh and why, a sign-out, every
failure), and the OAuth discovery documents fetched when the record is shown.

A step holds only what may be shown (`core.sign_in_steps`): the authorize URL redacted,
never a token, code or verifier; nothing here ever receives one. Discovery is two GETs
without the bearer (`send(..., authenticate=False)`) to the origins the settings name.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from ..core.sign_in_steps import STEPS_KEPT, Step, cut, fields_of
from ..errors import JdpError
from .http import send

if TYPE_CHECKING:
    import httpx

#: RFC 8414 and RFC 9728: where the two discovery documents are served
AUTHORIZATION_SERVER_METADATA = "/.well-known/oauth-authorization-server"
PROTECTED_RESOURCE_METADATA = "/.well-known/oauth-protected-resource"
#: the fields of each document the record shows
SERVER_FIELDS = ("issuer", "authorization_endpoint", "token_endpoint",
                 "grant_types_supported", "code_challenge_methods_supported",
                 "scopes_supported")
RESOURCE_FIELDS = ("resource", "authorization_servers", "scopes_supported",
                   "bearer_methods_supported")
#: a discovery document is small
DISCOVERY_MAX_BYTES = 64 * 1024
DISCOVERY_DEADLINE_S = 5.0


class SignInRecord:
    """The steps of this session's sign-in, oldest first, at most `STEPS_KEPT`; safe to
    add to from the session's loop and read from the notebook's thread."""

    def __init__(self, clock_ms: Callable[[], int]) -> None:
        self._clock_ms = clock_ms
        self._steps: collections.deque[Step] = collections.deque(maxlen=STEPS_KEPT)
        self._lock = threading.Lock()
        #: the scopes the last token request asked for
        self.scopes_asked: tuple[str, ...] = ()
        #: the discovery documents as last fetched (not steps: each show fetches again)
        self.discovery: tuple[Step, ...] = ()

    def make(self, kind: str, ok: bool, summary: str, *, reason: str | None = None,
             **fields: object) -> Step:
        """A step at the clock's now (its fields cut short; None fields left out)."""
        return self.step(kind, ok, summary, fields, reason)

    def step(self, kind: str, ok: bool, summary: str, fields: Mapping[str, object],
             reason: str | None = None) -> Step:
        """`make` with the fields as a mapping (names that are not identifiers too)."""
        return Step(self._clock_ms(), kind, ok, summary,
                    tuple((k, cut(v)) for k, v in fields.items() if v is not None), reason)

    def add(self, kind: str, ok: bool, summary: str, *, reason: str | None = None,
            **fields: object) -> Step:
        """Record a step."""
        step = self.make(kind, ok, summary, reason=reason, **fields)
        with self._lock:
            self._steps.append(step)
        return step

    def asked(self, scopes: Iterable[str]) -> None:
        self.scopes_asked = tuple(scopes)

    def failed(self, kind: str, summary: str, error: BaseException, **fields: object) -> Step:
        """Record a step that failed with `error` (its reason, or its type: never its
        text)."""
        return self.add(kind, False, summary, reason=reason_of(error), **fields)

    def steps(self) -> tuple[Step, ...]:
        with self._lock:
            return tuple(self._steps)


def reason_of(error: BaseException) -> str:
    """An error's reason (or kind, or type name): never its message, which may quote."""
    return str(getattr(error, "reason", None) or getattr(error, "kind", None)
               or type(error).__name__)


def discovery_urls(authorization_server: str, resource: str) -> tuple[tuple[str, str], ...]:
    """(what, URL) of the two documents: the authorization server's metadata at the
    origin of `authorization_server` (RFC 8414), the resource's at its origin with its
    path appended (RFC 9728 §3.1)."""
    from urllib.parse import urlsplit

    server = urlsplit(authorization_server)
    where = urlsplit(resource)
    return (
        ("authorization server", f"{server.scheme}://{server.netloc}"
                                 f"{AUTHORIZATION_SERVER_METADATA}"),
        ("protected resource", f"{where.scheme}://{where.netloc}"
                               f"{PROTECTED_RESOURCE_METADATA}{where.path.rstrip('/')}"),
    )


async def discover(http: httpx.AsyncClient, record: SignInRecord, authorization_server: str,
                   resource: str) -> tuple[Step, ...]:
    """Fetch both discovery documents (no bearer) and keep them as the record's
    `discovery`: each one's URL, HTTP status and the fields it has, or why it failed."""
    out = []
    for (what, url), names in zip(discovery_urls(authorization_server, resource),
                                  (SERVER_FIELDS, RESOURCE_FIELDS), strict=True):
        try:
            answer = await send(http, "GET", url, action="oauth discovery",
                                max_bytes=DISCOVERY_MAX_BYTES,
                                deadline_s=DISCOVERY_DEADLINE_S, authenticate=False)
        except JdpError as exc:
            out.append(record.make("discovery", False, f"{what} metadata {url}",
                                   reason=reason_of(exc), url=url))
            continue
        data = answer.json() if answer.content_type == "application/json" else None
        if answer.status != 200 or not isinstance(data, dict):
            out.append(record.make("discovery", False, f"{what} metadata {url}: HTTP "
                                  f"{answer.status}", reason="not_served", url=url,
                                  status=answer.status))
            continue
        out.append(record.step(
            "discovery", True, f"{what} metadata {url}: HTTP {answer.status}",
            {"url": url, "status": answer.status, **dict(fields_of(data, names))}))
    record.discovery = tuple(out)
    return record.discovery
