"""HTML forms a person posts to the reference service (the authorize page, the Design
settings page): one `PageForm` per page holds the same-origin check, the form-token check,
the bounded read of an urlencoded body, and the words and status of each refusal."""

from __future__ import annotations

import dataclasses
import hmac
import secrets
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

from starlette.requests import Request
from starlette.responses import Response

from .request_body import Disconnected, read_body

#: what a page says of a form it does not take, by why: `{nothing}` is what did not
#: happen ("nothing changed"), `{fresh}` how the person gets a fresh form
_REFUSALS = {
    "other_site": "The form was posted from another site; {nothing}.",
    "too_large": "The form is too large; {nothing}.",
    "expired": "The form has expired: {fresh}.",
}


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
    site or a stale form token, 413 too large), `why` (disconnected, other_site,
    expired, too_large) and `message`, the page's words for it ("" when nobody is there
    to read them)."""

    def __init__(self, status: int, why: str, message: str = "") -> None:
        super().__init__(why)
        self.status = status
        self.why = why
        self.message = message

    def answer(self, page: Callable[[str, int], Response]) -> Response:
        """The answer: `page(message, status)`, or a bare status when the client went away."""
        if self.why == "disconnected":
            return Response(status_code=self.status)
        return page(self.message, self.status)


@dataclasses.dataclass(frozen=True)
class PageForm:
    """The form one page serves and takes back: its byte limit, the words its refusals
    use (`nothing`: what did not happen; `fresh`: how to get a fresh form), and the form
    token of this service run (random; never shown in a repr)."""

    max_bytes: int
    nothing: str
    fresh: str
    token: str = dataclasses.field(default_factory=lambda: secrets.token_urlsafe(24),
                                   repr=False)

    def token_field(self) -> str:
        """The hidden input that carries this run's form token."""
        return f'<input type="hidden" name="form_token" value="{self.token}">'

    def refused(self, status: int, why: str) -> FormRefused:
        return FormRefused(status, why, _REFUSALS[why].format(nothing=self.nothing,
                                                              fresh=self.fresh))

    async def posted(self, request: Request) -> dict[str, str]:
        """The fields of this form as a person posted it from this page: same origin,
        within the byte limit, carrying this run's form token; else FormRefused."""
        if not same_origin(request):
            raise self.refused(403, "other_site")
        try:
            form = await read_form(request, self.max_bytes)
        except Disconnected:
            raise FormRefused(400, "disconnected") from None
        except FormTooLarge:
            raise self.refused(413, "too_large") from None
        if not token_matches(form, self.token):
            raise self.refused(403, "expired")
        return form


async def read_form(request: Request, max_bytes: int) -> dict[str, str]:
    """The posted fields (the first value of each); raises FormTooLarge past `max_bytes`
    and Disconnected when the client went away."""
    raw = await read_body(request.receive, max_bytes)
    if raw is None:
        raise FormTooLarge
    return {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}


__all__ = ["Disconnected", "FormRefused", "FormTooLarge", "PageForm", "read_form",
           "same_origin", "token_matches"]
