"""The authorize page (PROTOCOL §1): the person reads which client asks for which scopes
and where the browser goes next, then clicks **Authorize** or **Deny**; the browser goes
back to the client's redirect URI with `code` and `state` (or `error=access_denied`).

Two kinds of redirect URI are honoured, and nothing else is ever redirected to (no open
redirect; a refused request gets an error page, RFC 6749 §4.1.2.1): a loopback IP literal
over http with any port (RFC 8252 §7.3: a native client's one-shot listener), and the
service's own code page, registered for the paste-the-code fallback, which shows
`code#state` to paste back. Every parameter is checked again when the form comes back,
and a form token (random per service run) and a same-origin check keep another page from
posting the form.
"""

from __future__ import annotations

import html
import secrets
from collections.abc import Mapping
from urllib.parse import urlencode, urlsplit, urlunsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ..core import owner_proof
from . import owner, paths
from .context import DEMO_USER_ID, DEMO_USER_NAME, ServiceContext
from .forms import FormRefused, PageForm
from .oauth import (
    CLIENTS,
    CODE_TTL_S,
    FIRST_CREDENTIAL_SCOPES,
    KNOWN_SCOPES,
    PKCE_PATTERN,
    origin_of,
    scope_list,
    token_hash,
)

#: RFC 8252 §7.3: loopback IP literals (a name like `localhost` is not one)
LOOPBACK_IPS = frozenset({"127.0.0.1", "::1"})
REDIRECT_URI_MAX = 2048
STATE_MAX = 512
#: an authorize form is its parameters, a decision and a token
MAX_FORM_BYTES = 8192
#: what the form carries back, so the POST is checked exactly as the GET was
PARAMS = ("response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge",
          "code_challenge_method", owner_proof.PROOF_FIELD)
_URI_CHARS_BAD = frozenset(" \t\r\n\\\"'<>`")

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;}}
pre{{font-size:1.1rem;padding:1rem;background:#f3f4f6;border-radius:6px;
white-space:pre-wrap;word-break:break-all;}} button{{font-size:1rem;margin-right:1rem;}}
</style></head>
<body><h1>{title}</h1>{body}</body></html>"""


def page(title: str, body: str, status: int = 200, form_action: str = "'none'") -> HTMLResponse:
    return HTMLResponse(_PAGE.format(title=html.escape(title), body=body), status_code=status,
                        headers={"cache-control": "no-store", "x-frame-options": "DENY",
                                 "referrer-policy": "no-referrer",
                                 "content-security-policy": (
                                     "default-src 'none'; style-src 'unsafe-inline'; "
                                     f"form-action {form_action}; frame-ancestors 'none'")})


def redirect_problem(uri: str, origin: str, public: str | None = None) -> str | None:
    """Why `uri` may not receive a code from the service at `origin`, or None: it must be
    the registered code page exactly, or http on a loopback IP literal (any port, any
    path), with no user part and no fragment. Through the Jupyter server's sign-in proxy
    (its `public` prefix), the code page and the server's callback under that prefix."""
    if not uri or len(uri) > REDIRECT_URI_MAX:
        return "redirect_uri is required."
    if uri == origin + paths.OAUTH_CODE_PAGE or (public is not None and uri in (
            public + paths.OAUTH_CODE_PAGE, public + paths.JUPYTER_CALLBACK)):
        return None
    refusal = ("redirect_uri must be a loopback address (http://127.0.0.1:PORT/…) or this "
               "service's registered code page; the browser is not sent elsewhere.")
    if any(c in _URI_CHARS_BAD or not c.isprintable() for c in uri):
        return refusal
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 (a bad port raises here)
    except ValueError:
        return refusal
    if parts.scheme != "http" or parts.hostname not in LOOPBACK_IPS or parts.username \
            or parts.password is not None or "@" in parts.netloc or parts.fragment:
        return refusal
    return None


def request_problem(q: Mapping[str, str], origin: str, public: str | None = None
                    ) -> str | None:
    """What is wrong with an authorization request (the GET's query or the POSTed form)."""
    scopes = scope_list(q.get("scope", ""))
    if q.get("response_type") != "code":
        return "response_type must be code."
    if q.get("client_id", "") not in CLIENTS:
        return "Unknown client_id."
    problem = redirect_problem(q.get("redirect_uri", ""), origin, public)
    if problem:
        return problem
    if q.get("code_challenge_method") != "S256" \
            or not PKCE_PATTERN.match(q.get("code_challenge", "")):
        return "A PKCE S256 code_challenge is required."
    state = q.get("state", "")
    if not state or len(state) > STATE_MAX:
        return "state is required."
    if any(s not in KNOWN_SCOPES for s in scopes):
        return "Unknown scope requested."
    return None


def redirect_to(uri: str, fields: dict[str, str]) -> RedirectResponse:
    """303 to `uri` with `fields` added to its query."""
    parts = urlsplit(uri)
    query = "&".join(q for q in (parts.query, urlencode(fields)) if q)
    return RedirectResponse(urlunsplit(parts._replace(query=query)), status_code=303,
                            headers={"cache-control": "no-store",
                                     "referrer-policy": "no-referrer"})


def _origin_of_uri(uri: str) -> str:
    parts = urlsplit(uri)
    return f"{parts.scheme}://{parts.netloc}"


def refused(problem: str, status: int = 400) -> HTMLResponse:
    return page("Sign-in request refused", f"<p>{html.escape(problem)}</p>", status)


class AuthorizePage:
    """The Authorize/Deny page and its form over one run (the form token is this run's)."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx
        self.form = PageForm(MAX_FORM_BYTES, nothing="nothing was authorized",
                             fresh="open the sign-in link again")

    def routes(self) -> list[Route]:
        return [Route(paths.AUTHORIZE, self.ask, methods=["GET"]),
                Route(paths.AUTHORIZE, self.answer, methods=["POST"]),
                Route(paths.OAUTH_CODE_PAGE, code_page, methods=["GET"])]

    def problem_of(self, request: Request, q: Mapping[str, str]) -> str | None:
        return request_problem(q, origin_of(request.scope), self.ctx.owner.public_base(request))

    async def ask(self, request: Request) -> Response:
        """The page: who asks for which scopes, where the browser goes next, two buttons."""
        q = dict(request.query_params)
        if not self.ctx.owner.is_owner(request, q, now_s=self.ctx.clock()):
            return owner.refused()
        q["scope"] = q.get("scope") or " ".join(FIRST_CREDENTIAL_SCOPES)
        problem = self.problem_of(request, q)
        if problem:
            return refused(problem)
        public = self.ctx.owner.public_base(request)
        action = (urlsplit(public).path if public else "") + paths.AUTHORIZE
        return page("Sign in to the reference service", self._question(q, action),
                    form_action=f"'self' {_origin_of_uri(q['redirect_uri'])}")

    def _question(self, q: Mapping[str, str], action: str) -> str:
        """The page's body: the request in words and the form that carries it back."""
        hidden = "".join(
            f'<input type="hidden" name="{name}" value="{html.escape(q.get(name, ""), True)}">'
            for name in PARAMS)
        scopes = "".join(f"<li><code>{html.escape(s)}</code></li>"
                         for s in scope_list(q["scope"]))
        return (
            f"<p>The client <b>{html.escape(q['client_id'])}</b> asks to act as "
            f"<b>{html.escape(DEMO_USER_NAME)}</b> on this offline reference service with:</p>"
            f"<ul>{scopes}</ul>"
            f"<p>After you answer, your browser goes back to "
            f"<code id=\"redirect\">{html.escape(q['redirect_uri'])}</code>.</p>"
            f'<form method="post" action="{html.escape(action, True)}">'
            f"{self.form.token_field()}{hidden}"
            '<button type="submit" name="decision" value="approve" id="authorize">Authorize'
            '</button><button type="submit" name="decision" value="deny" id="deny">Deny'
            "</button></form>")

    async def answer(self, request: Request) -> Response:
        """The posted decision, checked again: a code (or `access_denied`) to the client."""
        ctx = self.ctx
        try:
            posted = await self.form.posted(request)
        except FormRefused as no:
            return no.answer(refused)
        if not ctx.owner.is_owner(request, posted, now_s=ctx.clock()):
            return owner.refused()
        problem = self.problem_of(request, posted)
        if problem:
            return refused(problem)
        redirect_uri, state = posted["redirect_uri"], posted["state"]
        decision = posted.get("decision")
        if decision == "deny":
            return redirect_to(redirect_uri, {"error": "access_denied", "state": state})
        if decision != "approve":
            return refused("Choose Authorize or Deny.")
        code = secrets.token_urlsafe(24)
        with ctx.db.transaction() as conn:
            conn.execute(
                "INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, scopes, "
                "code_challenge, state, user_id, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (token_hash(code), posted["client_id"], redirect_uri,
                 " ".join(scope_list(posted["scope"])), posted["code_challenge"], state,
                 DEMO_USER_ID, ctx.clock() + CODE_TTL_S))
        return redirect_to(redirect_uri, {"code": code, "state": state})


async def code_page(request: Request) -> Response:
    """The registered redirect of the paste-the-code fallback: `code#state` to paste."""
    q = request.query_params
    if q.get("error") == "access_denied":
        return page("Sign-in denied", "<p>You denied the sign-in; nothing was issued. "
                    "Start the sign-in again to retry.</p>")
    code, state = q.get("code", ""), q.get("state", "")
    if not code or not state:
        return refused("This page shows a sign-in code; it was opened without one.")
    return page("Reference service sign-in",
                "<p>Paste this code back into the notebook:</p>"
                f'<pre id="code">{html.escape(f"{code}#{state}")}</pre>')


def routes(ctx: ServiceContext) -> list[Route]:
    return AuthorizePage(ctx).routes()
