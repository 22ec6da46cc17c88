"""The session's sign-in (`session.auth`): the paste-the-code and loopback sign-ins, the
sign-in as it stands, a refresh asked for, and signing out — each a synchronous call on
the session's loop over its one `CredentialManager`."""

from __future__ import annotations

from concurrent.futures import Future
from typing import TYPE_CHECKING

from ..core.redaction import Secret

if TYPE_CHECKING:
    import httpx

    from ..core.sign_in_steps import AuthStatus
    from ..settings import Settings
    from ..transport.credential_manager import CredentialManager, LoginAttempt
    from ..transport.credentials import Credential
    from ..transport.loop import BackgroundLoop

#: the Design MCP endpoint under the API base URL: the protected resource of discovery
DESIGN_MCP_PATH = "/v1/design/mcp"


class Auth:
    """Sign in, see the sign-in, refresh, sign out, each run on the session's `loop`;
    `client` (the session's) fetches the OAuth discovery documents, with no bearer."""

    def __init__(self, credentials: CredentialManager, settings: Settings,
                 loop: BackgroundLoop, client: httpx.AsyncClient) -> None:
        #: the credential stack (`transport.credential_manager`); the lab server's sign-in
        #: drives its `begin_login` / `finish_login` / `finish_redirect` itself
        self.credentials = credentials
        self._settings = settings
        self._run = loop.run
        self._submit = loop.submit
        self._client = client

    # ------------------------------------------------------------------ signing in

    def login_begin(self) -> tuple[str, LoginAttempt]:
        """Start the paste-the-code sign-in: returns (url to open, attempt). After the
        person clicks Authorize, the page shows the `code#state` to pass to `login_finish`."""
        attempt = self.credentials.begin_login()
        return attempt.url, attempt

    def login_finish(self, attempt: LoginAttempt, pasted: str | Secret) -> None:
        """Finish sign-in with the pasted `code#state` (held as a Secret from here on)."""
        code = pasted if isinstance(pasted, Secret) else Secret(pasted)
        self._run(self.credentials.finish_login(attempt, code))

    def login_start(self, *, timeout_s: float) -> tuple[str, Future[Credential]]:
        """Start the loopback sign-in (RFC 8252): a one-shot listener on 127.0.0.1 at a
        port the system picks, and the authorize URL that redirects to it. Returns the URL
        to open and a Future of the credential, which the browser's redirect completes on
        the session's loop (or fails: AuthError login_timeout after `timeout_s`, a state
        mismatch, a refused code). OSError when no loopback port can be bound."""
        from ..transport.redirect_listener import RedirectListener

        listener = self._run(RedirectListener.open(), timeout=10)
        try:
            attempt = self.credentials.begin_login(redirect_uri=listener.redirect_uri)
        except BaseException:
            self._run(listener.close(), timeout=10)
            raise
        return attempt.url, self._submit(
            self.credentials.login_by_redirect(attempt, listener, timeout_s))

    def login_embedded(self, timeout_s: float = 30.0) -> None:
        """Sign in to a reference service on loopback by playing the person's part: the
        loopback sign-in, with this process opening the page and clicking Authorize
        (`embedded_sign_in`; the side panel's Sign in button, and tests). The redirect
        completes it as it would in a browser."""
        from ..embedded_sign_in import click_authorize

        url, done = self.login_start(timeout_s=timeout_s)
        try:
            self._run(click_authorize(url), timeout=timeout_s)
        except BaseException:
            done.cancel()
            raise
        done.result(timeout=timeout_s + 10)  # the listener's own bound ends it first

    # ------------------------------------------------------------------ the sign-in as it stands

    def status(self, *, discover: bool = True) -> AuthStatus:
        """The sign-in as it stands (`core.sign_in_steps.AuthStatus`): the credential held
        (client, scopes, expiry; never a token), the steps of this session (authorize URL
        redacted, code exchange, each refresh and why, failures) and, with `discover`, the
        service's OAuth discovery documents fetched now (no bearer sent)."""
        if discover:
            from ..transport.sign_in_record import discover as fetch

            self._run(fetch(self._client, self.credentials.record,
                            self._settings.oauth_token_url,
                            self._settings.api_base_url.rstrip("/") + DESIGN_MCP_PATH),
                      timeout=30)
        return self._run(self.credentials.status(), timeout=30)

    def refresh(self) -> AuthStatus:
        """Refresh the access token now, under the credential locks as every refresh is;
        returns the new `status()` (its last refresh says "asked by you"). AuthError
        no_token when not signed in, no_refresh_token when there is none to refresh."""
        self._run(self.credentials.refresh_now(), timeout=30)
        return self.status(discover=False)

    def sign_out(self) -> AuthStatus:
        """Forget the credential in this session and delete it from the credential store
        (the 0600 file, or the OS keyring's entry), tell this person's other processes
        (they stop using the token at once), and revoke it at the service (RFC 7009); the
        next call says "Not signed in". Returns the new `status()`."""
        self._run(self.credentials.sign_out(), timeout=30)
        return self.status(discover=False)
