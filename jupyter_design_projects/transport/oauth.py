"""The OAuth token endpoint client: refresh, authorization-code exchange, authorize URL.

Bodies are JSON (PROTOCOL §1). Every request goes through `send(..., authenticate=False)`
so the token endpoint never receives a bearer header, even on the session's client. Flat
OAuth errors are mapped here, once, to `AuthError(reason=...)`; their descriptions are
redacted with every secret of the request before they reach a message.

No frame here holds a token in the clear when it raises: request bodies and token answers
are `CredentialFields` (their repr blanks the credential fields), error bodies are never
bound to a name, and token values go straight into `Secret`s — so a traceback that prints
locals shows no token.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx

from ..core import owner_proof
from ..core.redaction import CredentialFields, Secret, redact_then_truncate
from ..core.scopes import format_scope, parse_scope
from ..errors import AuthError
from .credentials import Credential
from .http import Answer, send

#: a token answer is small; anything bigger is not a token answer
TOKEN_ANSWER_MAX_BYTES = 64 * 1024
TOKEN_DEADLINE_S = 10.0
OAUTH_ERRORS = frozenset({"invalid_grant", "invalid_scope", "invalid_client", "invalid_request"})
#: where the paste-the-code fallback sends the browser: the page on the authorization
#: server that shows `code#state` (the usual sign-in redirects to a loopback listener)
CODE_CALLBACK_PATH = "/oauth/code/callback"


class OAuthClient:
    def __init__(
        self,
        http: httpx.AsyncClient,
        token_url: str,
        authorize_url: str,
        client_id: str,
        *,
        redirect_uri: str | None = None,
        clock_ms: Callable[[], int] | None = None,
        deadline_s: float = TOKEN_DEADLINE_S,
        owner_secret: Callable[[], Secret | None] | None = None,
    ) -> None:
        self._http = http
        #: the embedded reference service's owner secret, when this process is its owner:
        #: each authorize URL then carries the proof bound to its attempt
        #: (`core.owner_proof`), so the owner's browser, and only theirs, may open it
        self._owner_secret = owner_secret
        self.token_url = token_url
        self.authorize_url = authorize_url
        self.client_id = client_id
        if redirect_uri is None:
            parts = urlsplit(authorize_url)
            redirect_uri = f"{parts.scheme}://{parts.netloc}{CODE_CALLBACK_PATH}"
        self.redirect_uri = redirect_uri
        self._clock_ms = clock_ms or (lambda: int(time.time() * 1000))
        self._deadline_s = deadline_s
        #: the HTTP status of the last token request (None: it got no answer), for the
        #: sign-in record (`sign_in_record`)
        self.last_status: int | None = None

    def authorize_url_for(self, *, state: str, challenge: str, scopes: Iterable[str],
                          redirect_uri: str | None = None) -> str:
        """The sign-in page's URL; `redirect_uri` defaults to the paste-the-code page."""
        fields = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": redirect_uri or self.redirect_uri,
            "scope": format_scope(scopes),
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
        secret = self._owner_secret() if self._owner_secret is not None else None
        if secret is not None:
            fields[owner_proof.PROOF_FIELD] = owner_proof.authorize_proof(
                secret.reveal(), state, challenge)
        return f"{self.authorize_url}?{urlencode(fields)}"

    async def refresh(self, cred: Credential, scopes: Iterable[str]) -> Credential:
        """Refresh with the FULL scope list (omitted scopes are dropped by the server)."""
        if cred.refresh_token is None:
            raise AuthError("no_refresh_token", "The credential has no refresh token.")
        asked = tuple(scopes)
        body = CredentialFields(
            grant_type="refresh_token",
            refresh_token=cred.refresh_token.reveal(),
            client_id=self.client_id,
            scope=format_scope(asked),
        )
        return await self._token_request(
            "oauth refresh", body, asked, cred.secrets(), previous_refresh=cred.refresh_token
        )

    @property
    def revocation_url(self) -> str:
        """The RFC 7009 endpoint beside the token endpoint (`…/oauth/revoke`)."""
        head, _, last = self.token_url.rstrip("/").rpartition("/")
        return f"{head}/revoke" if last == "token" else self.token_url.rstrip("/") + "/revoke"

    async def revoke(self, cred: Credential) -> None:
        """Ask the service to revoke the credential (RFC 7009): its refresh token, which
        revokes the access tokens of its sign-in too, else its access token. AuthError
        (revoke_failed) when the service answers anything but 200."""
        token = cred.refresh_token or cred.access_token
        hint = "refresh_token" if cred.refresh_token is not None else "access_token"
        self.last_status = None
        answer = await send(
            self._http, "POST", self.revocation_url, action="oauth revoke",
            max_bytes=TOKEN_ANSWER_MAX_BYTES, deadline_s=self._deadline_s,
            json=CredentialFields(token=token.reveal(), token_type_hint=hint,
                                  client_id=self.client_id),
            authenticate=False,
        )
        self.last_status = answer.status
        if answer.status != 200:
            raise AuthError("revoke_failed", "The service did not revoke the sign-in (HTTP "
                            f"{answer.status}); its tokens stay valid until they expire.")

    async def exchange_code(
        self, *, code: Secret, verifier: Secret, state: str, scopes: Iterable[str],
        redirect_uri: str | None = None,
    ) -> Credential:
        """The code for a credential, naming the redirect URI the sign-in page was opened
        with (the service checks it, and the PKCE verifier, against the code)."""
        body = CredentialFields(
            grant_type="authorization_code",
            code=code.reveal(),
            code_verifier=verifier.reveal(),
            client_id=self.client_id,
            redirect_uri=redirect_uri or self.redirect_uri,
            state=state,
        )
        return await self._token_request("oauth login", body, tuple(scopes), (code, verifier))

    async def _token_request(
        self,
        action: str,
        body: CredentialFields,
        asked: tuple[str, ...],
        secrets: Iterable[Secret],
        previous_refresh: Secret | None = None,
    ) -> Credential:
        self.last_status = None
        answer = await send(
            self._http,
            "POST",
            self.token_url,
            action=action,
            max_bytes=TOKEN_ANSWER_MAX_BYTES,
            deadline_s=self._deadline_s,
            json=body,
            authenticate=False,
        )
        self.last_status = answer.status
        if answer.status != 200:
            raise _oauth_error(answer.status, _json_of(answer), list(secrets))
        return self._credential(_json_of(answer), asked, previous_refresh)

    def _credential(
        self, data: Any, asked: tuple[str, ...], previous_refresh: Secret | None
    ) -> Credential:
        if not isinstance(data, CredentialFields):
            raise AuthError("token_endpoint_error", "The token endpoint's answer is not a "
                            "JSON object.")
        expires_in = data.get("expires_in", 3600)
        scope = data.get("scope")
        if (
            not isinstance(data.get("access_token"), str)
            or not data.get("access_token")
            or not isinstance(data.get("refresh_token"), (str, type(None)))
            or not isinstance(expires_in, int)
            or isinstance(expires_in, bool)
            or not isinstance(scope, (str, type(None)))
        ):
            raise AuthError("token_endpoint_error", "The token endpoint's answer is malformed.")
        return Credential(
            access_token=Secret(data["access_token"]),
            # no new refresh token in the answer: the old one stays valid (RFC 6749 §6)
            refresh_token=Secret(data["refresh_token"]) if data.get("refresh_token")
            else previous_refresh,
            expires_at_ms=self._clock_ms() + expires_in * 1000,
            # no scope in the answer: the grant equals the request (RFC 6749 §5.1)
            scopes=parse_scope(scope) if scope is not None else asked,
            client_id=self.client_id,
        )


def _json_of(answer: Answer) -> Any:
    """A JSON answer's value (an object as `CredentialFields`), or None when not JSON."""
    if answer.content_type != "application/json":
        return None
    value = answer.json(redacted=False)  # the tokens it asked for
    return CredentialFields(value) if isinstance(value, dict) else value


def _oauth_error(status: int, data: Any, secrets: list[Secret]) -> AuthError:
    kind = data.get("error") if isinstance(data, dict) else None
    if isinstance(kind, str) and kind in OAUTH_ERRORS:
        description = data.get("error_description")
        detail = (
            ": " + redact_then_truncate(description, 300, secrets)
            if isinstance(description, str) and description
            else ""
        )
        return AuthError(
            kind,
            f"The token endpoint refused the request ({kind}{detail}).",
        )
    return AuthError(
        "token_endpoint_error",
        f"The token endpoint answered HTTP {status}.",
    )
