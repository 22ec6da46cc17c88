"""Signing in with PKCE (RFC 7636), the steps the credential manager runs: the authorize
URL of a new attempt, the exchange of the code the browser came back with, and the
loopback sign-in's wait for that browser (RFC 8252)."""

from __future__ import annotations

import dataclasses
import secrets as random
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ..core import pkce
from ..core.redaction import Secret
from ..core.scopes import LOGIN_SCOPES
from ..core.sign_in_steps import iso, redacted_authorize_url
from ..errors import JdpError

if TYPE_CHECKING:
    from .credentials import Credential
    from .oauth import OAuthClient
    from .redirect_listener import RedirectListener
    from .sign_in_record import SignInRecord


@dataclasses.dataclass(frozen=True)
class LoginAttempt:
    url: str
    state: str
    verifier: Secret
    #: where the sign-in page sends the browser (None: the paste-the-code page)
    redirect_uri: str | None = None


def new_attempt(oauth: OAuthClient, record: SignInRecord,
                redirect_uri: str | None = None) -> LoginAttempt:
    """The authorize URL to open, with a fresh PKCE verifier and state; the browser comes
    back to `redirect_uri` (a loopback listener), else to the code page."""
    verifier = Secret(pkce.verifier_from_bytes(random.token_bytes(32)))
    state = pkce.state_from_bytes(random.token_bytes(24))
    url = oauth.authorize_url_for(
        state=state, challenge=pkce.challenge_for(verifier.reveal()), scopes=LOGIN_SCOPES,
        redirect_uri=redirect_uri,
    )
    record.asked(LOGIN_SCOPES)
    record.add("authorize_url", True, "the sign-in page to open (PKCE S256)",
               url=redacted_authorize_url(url), client_id=oauth.client_id,
               redirect_uri=redirect_uri or oauth.redirect_uri)
    return LoginAttempt(url=url, state=state, verifier=verifier, redirect_uri=redirect_uri)


async def exchange(oauth: OAuthClient, record: SignInRecord, attempt: LoginAttempt,
                   code: Secret, save: Callable[[Credential], Awaitable[None]]) -> Credential:
    """The code (already checked against the attempt's state) for a credential, which
    `save` keeps; each outcome is recorded."""
    oauth.last_status = None
    try:
        fresh = await oauth.exchange_code(
            code=code, verifier=attempt.verifier, state=attempt.state,
            scopes=LOGIN_SCOPES, redirect_uri=attempt.redirect_uri,
        )
        await save(fresh)
    except JdpError as exc:
        record.failed("code_exchange", "the code for a credential", exc,
                      status=oauth.last_status)
        raise
    record.add("code_exchange", True, "the code for a credential",
               status=oauth.last_status, expires=iso(fresh.expires_at_ms),
               scopes=" ".join(fresh.scopes),
               can_refresh="yes" if fresh.refresh_token else "no")
    return fresh


async def by_redirect(finish: Callable[[LoginAttempt, Secret], Awaitable[Credential]],
                      attempt: LoginAttempt, listener: RedirectListener,
                      timeout_s: float) -> Credential:
    """Wait at most `timeout_s` for the browser's redirect to `listener`, `finish` with its
    query, answer the browser with a page saying how it went, and close the listener (also
    on timeout, failure or cancellation)."""
    async with listener:
        callback = await listener.wait(timeout_s)
        try:
            fresh = await finish(attempt, callback.query)
        except JdpError as exc:
            await callback.answer(400, "Sign-in failed",
                                  f"{exc.message} Return to the notebook.")
            raise
        await callback.answer(200, "Signed in", "You are signed in; you can close this "
                              "tab and return to the notebook.")
        return fresh
