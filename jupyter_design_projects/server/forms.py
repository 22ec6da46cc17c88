"""HTML forms a person posts to the reference service (the authorize page, the Design
settings page): the same-origin check, the form-token check and the bounded read of an
urlencoded body."""

from __future__ import annotations

import hmac
from urllib.parse import parse_qs, urlsplit

from starlette.requests import Request

from .request_body import Disconnected, read_body


class FormTooLarge(Exception):
    """The posted form passed its byte limit."""


def same_origin(request: Request) -> bool:
    """A browser names the page's origin on a form POST; another origin is refused."""
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return request.headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")
    parts = urlsplit(origin)
    return parts.netloc == request.headers.get("host", "")


def token_matches(form: dict[str, str], form_token: str) -> bool:
    """The posted `form_token` is this run's, compared in constant time as bytes (a str
    comparison raises on a non-ASCII value, which a posted form can hold)."""
    return hmac.compare_digest(form.get("form_token", "").encode(), form_token.encode())


class FormRefused(Exception):
    """A posted form that is not taken: `status` (400 the client went away, 403 another
    site or a stale form token, 413 too large) and `why` (disconnected, other_site,
    expired, too_large), for the page to word."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status
        self.why = why


async def posted_form(request: Request, max_bytes: int, form_token: str) -> dict[str, str]:
    """The fields of a form a person posted from this page: same origin, within
    `max_bytes`, carrying this run's form token; else FormRefused."""
    if not same_origin(request):
        raise FormRefused(403, "other_site")
    try:
        form = await read_form(request, max_bytes)
    except Disconnected:
        raise FormRefused(400, "disconnected") from None
    except FormTooLarge:
        raise FormRefused(413, "too_large") from None
    if not token_matches(form, form_token):
        raise FormRefused(403, "expired")
    return form


async def read_form(request: Request, max_bytes: int) -> dict[str, str]:
    """The posted fields (the first value of each); raises FormTooLarge past `max_bytes`
    and Disconnected when the client went away."""
    raw = await read_body(request.receive, max_bytes)
    if raw is None:
        raise FormTooLarge
    return {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}


__all__ = ["Disconnected", "FormRefused", "FormTooLarge", "posted_form", "read_form",
           "same_origin", "token_matches"]
