"""The session's credential: loading it, refreshing it after a 401, expanding it with the
Projects scopes, and signing in with PKCE — one change at a time, across processes.

`open_credentials(settings, data_dir, http)` is the one way to build the stack (store,
cross-process lock, OAuth refresher, manager): kernels, the Jupyter server extension and
tests all call it, so every process that uses one stored credential locks the same file.

Every change happens under an asyncio lock (one per manager) and then a `filelock` lock
shared with every other process using the same store. Under the lock the stored
credential is read again first: a token another process already refreshed or expanded
is adopted without a request (refresh tokens rotate, so a second refresh with the same
refresh token would fail with invalid_grant). "Another process wrote it" means the store
no longer holds what this manager last read from it or wrote to it: a store that still
holds an older credential (because saving a refresh failed) is not adopted over the newer
one this manager holds, whose refresh token is the live one.

The flows live beside it, one module each: signing in (`credential_login`), adding the
Projects scopes (`scope_expansion`), signing out (`credential_sign_out`), the cross-process
lock and the sign-in generation marker. The manager holds the credential and the locks;
its public steps (`use_stored`, `read_store`, `adopt`, `save`, ...) are what those flows
call, under the manager's lock.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import pkce
from ..core.redaction import Secret, as_secret
from ..core.sign_in_steps import WHY, AuthStatus, iso
from ..errors import AuthError, CredentialStoreError, TransportError
from . import credential_login, credential_sign_out, scope_expansion
from .credential_login import LoginAttempt
from .credentials import Credential, CredentialStore, lock_path_for, open_store
from .cross_process_lock import CrossProcessLock, LockBusy
from .oauth import OAuthClient
from .scope_expansion import SCOPE_UPGRADE_NOTICE
from .sign_in_generation import GenerationMarker
from .sign_in_record import SignInRecord

if TYPE_CHECKING:
    import httpx

    from ..settings import Settings
    from .redirect_listener import RedirectListener

log = logging.getLogger(__name__)

#: spec §5: the wait for a new token after a 401 is bounded by 5,000 ms
REFRESH_TIMEOUT_MS = 5_000
#: how long an expansion waits for another process's lock before reporting contention
LOCK_TIMEOUT_MS = 5_000
#: a token this close to its expiry is refreshed before use
EXPIRY_SKEW_MS = 30_000
#: how many past tokens (rotated ones, login codes) are still redacted
KNOWN_SECRETS_KEPT = 32

__all__ = ["CredentialManager", "LoginAttempt", "SCOPE_UPGRADE_NOTICE", "open_credentials"]


class CredentialManager:
    """The one credential of a session, changed one change at a time, across processes
    (see the module docstring)."""

    def __init__(
        self,
        store: CredentialStore,
        oauth: OAuthClient,
        *,
        client_id: str,
        lock_path: Path,
        clock_ms: Callable[[], int] | None = None,
        refresh_timeout_ms: int = REFRESH_TIMEOUT_MS,
        lock_timeout_ms: int = LOCK_TIMEOUT_MS,
    ) -> None:
        self._store = store
        self._oauth = oauth
        #: the OAuth client this package signs in as (a credential of another cannot be
        #: expanded)
        self.client_id = client_id
        self._lock_path = Path(lock_path)
        self._clock_ms = clock_ms or (lambda: int(time.time() * 1000))
        self.refresh_timeout_s = refresh_timeout_ms / 1000
        self.lock_timeout_s = lock_timeout_ms / 1000
        self._cred: Credential | None = None
        #: what the store held when this manager last read or wrote it
        self._stored: Credential | None = None
        self._seen: list[Secret] = []
        #: held for every change here, then `file_lock` for every change of the store
        self.lock = asyncio.Lock()
        self.file_lock = CrossProcessLock(self._lock_path)
        #: the sign-in generation marker beside the lock: a sign-in or sign-out in any
        #: process replaces it, and every use of the token here first checks it
        self._marker = GenerationMarker(self._lock_path)
        #: the sign-in, step by step (`%design auth`, `session.auth_status()`)
        self.record = SignInRecord(self._clock_ms)

    # ---------------------------------------------------------------- reading

    def known_secrets(self) -> tuple[Secret, ...]:
        """Every token this manager has held (rotated ones too), for redaction."""
        return tuple(self._seen)

    def current(self) -> Credential | None:
        return self._cred

    @property
    def oauth(self) -> OAuthClient:
        return self._oauth

    async def load_stored(self) -> Credential | None:
        """The credential, read from the store unless already held; sends nothing."""
        async with self.lock:
            return self._cred or await self.use_stored()

    async def access_token(self) -> Secret:
        await self._follow_other_processes()
        cred = self._cred or await self.use_stored()
        if cred is None:
            raise AuthError("no_token", "Not signed in.")
        expiring = self._clock_ms() >= cred.expires_at_ms - EXPIRY_SKEW_MS
        if expiring and cred.refresh_token is not None:
            return await self.refresh_after_401(cred.access_token, why="expiring")
        return cred.access_token

    async def status(self) -> AuthStatus:
        """The sign-in as it stands (the stored credential read if none is held): what is
        held, never its tokens, and the steps recorded so far."""
        problem = None
        async with self.lock:
            try:
                cred = self._cred or await self.use_stored()
            except CredentialStoreError as exc:
                cred, problem = None, exc.reason
        return AuthStatus(
            now_ms=self._clock_ms(), signed_in=cred is not None,
            client_id=cred.client_id if cred else self.client_id,
            store=self._store.describe(), scopes_held=cred.scopes if cred else (),
            scopes_asked=self.record.scopes_asked,
            expires_at_ms=cred.expires_at_ms if cred else None,
            has_refresh_token=bool(cred and cred.refresh_token is not None),
            steps=self.record.steps(), discovery=self.record.discovery,
            store_problem=problem)

    # ---------------------------------------------------------------- 401 refresh

    async def refresh_after_401(self, rejected: Secret, *, why: str = "after_401") -> Secret:
        """One refresh at a time, bounded by 5,000 ms; a token newer than `rejected` (here
        or in the store) is adopted without a request. `why` goes to the sign-in record
        (a key of `core.sign_in_steps.WHY`)."""

        async def refresh() -> Secret:
            if self._cred is not None and self._cred.access_token != rejected:
                return self._cred.access_token
            async with self.file_lock.held(self.refresh_timeout_s):
                return await self._refresh_locked(rejected, why)

        return await self._refreshing(refresh, why)

    async def refresh_now(self) -> Credential:
        """Refresh the held credential now, whatever its expiry (the "Refresh now" of
        `%design auth`), under both locks as every refresh is; a token another process
        refreshed meanwhile is adopted instead. AuthError no_token / no_refresh_token when
        there is nothing to refresh."""

        async def refresh() -> Credential:
            cred = self._cred or await self.use_stored()
            if cred is None:
                raise AuthError("no_token", "Not signed in.")
            if cred.refresh_token is None:
                raise AuthError("no_refresh_token", "The credential has no refresh token.")
            async with self.file_lock.held(self.refresh_timeout_s):
                await self._refresh_locked(cred.access_token, "asked")
            assert self._cred is not None
            return self._cred

        return await self._refreshing(refresh, "asked")

    async def _refreshing(self, refresh: Callable[[], Any], why: str) -> Any:
        """`refresh()` under the manager's lock and the 5,000 ms bound, its failures
        mapped to AuthError (refresh_timeout, refresh_failed) and recorded."""
        try:
            async with asyncio.timeout(self.refresh_timeout_s):
                async with self.lock:
                    return await refresh()
        except (TimeoutError, LockBusy):
            self.record.add("refresh", False, WHY[why], reason="refresh_timeout")
            raise AuthError(
                "refresh_timeout",
                f"No new token within {self.refresh_timeout_s:g} s.",
            ) from None
        except (TransportError, CredentialStoreError) as exc:
            self.record.add("refresh", False, WHY[why], reason=exc.kind)
            raise AuthError(
                "refresh_failed",
                f"The token could not be refreshed ({exc.kind}).",
            ) from None
        except AuthError as exc:
            self.record.add("refresh", False, WHY[why], reason=exc.reason,
                            status=self._oauth.last_status)
            if exc.reason == "no_token" or (why == "asked" and exc.reason == "no_refresh_token"):
                raise
            raise AuthError(
                "refresh_failed",
                f"The token could not be refreshed ({exc.reason}).",
            ) from None

    async def _refresh_locked(self, rejected: Secret, why: str = "after_401") -> Secret:
        stored = await self.read_store()
        self._forget_if_signed_out_elsewhere(stored)
        if self.adopt_if_written_elsewhere(stored):
            adopted = self._cred
            if adopted is not None and adopted.access_token != rejected:
                log.info("adopted a token another process refreshed")
                self.record.add("adopted", True, WHY[why] + "; another process had "
                                "refreshed already", expires=iso(adopted.expires_at_ms))
                return adopted.access_token
        base = self._cred
        if base is None:
            raise AuthError("no_token", "Not signed in.")
        self.record.asked(base.scopes)
        self._oauth.last_status = None
        fresh = await self._oauth.refresh(base, base.scopes)
        self.adopt(fresh)
        try:
            await self.save(fresh)
        except CredentialStoreError as exc:
            # the old refresh token is spent: keep the new credential for this session
            log.warning("the refreshed credential could not be saved (%s)", exc.reason)
        log.info("refreshed the access token")
        self.record.add("refresh", True, WHY[why], why=why, status=self._oauth.last_status,
                        expires=iso(fresh.expires_at_ms))
        return fresh.access_token

    def _forget_if_signed_out_elsewhere(self, stored: Credential | None) -> None:
        """The store holds nothing where this manager last saw a credential: someone
        signed out (another kernel's Sign out, or the file removed). Forget ours too, so
        a refresh cannot write the credential back."""
        if stored is None and self._stored is not None:
            self._cred = self._stored = None
            self.record.add("sign_out", True, "the stored credential was removed elsewhere")
            raise AuthError("no_token", "Not signed in (signed out elsewhere).")

    async def _follow_other_processes(self) -> None:
        """Before a use of the token: when another process signed in or out since this
        manager last looked (the generation marker changed), read the store again — an
        empty store is a sign-out everywhere (AuthError no_token, the token forgotten
        here), a new credential is adopted. One stat when nothing changed."""
        if not self._marker.changed() or self._cred is None:
            return
        async with self.lock:
            stored = await self.read_store()
            self._forget_if_signed_out_elsewhere(stored)
            self.adopt_if_written_elsewhere(stored)

    # ---------------------------------------------------------------- Projects scopes

    async def ensure_project_scopes(self, *, policy_allows: bool = True) -> str | None:
        """Spec §11: add user:projects:read/write when missing. Returns the scope-upgrade
        notice when this manager's credential gained them, None when nothing was needed;
        raises ScopeExpansionFailed(reason) otherwise (`scope_expansion`)."""
        return await scope_expansion.ensure_project_scopes(self, policy_allows)

    # ---------------------------------------------------------------- login

    def begin_login(self, redirect_uri: str | None = None) -> LoginAttempt:
        """The authorize URL to open, with a fresh PKCE verifier and state; the browser
        comes back to `redirect_uri` (a loopback listener), else to the code page."""
        return credential_login.new_attempt(self._oauth, self.record, redirect_uri)

    async def finish_login(self, attempt: LoginAttempt, pasted: Secret | str) -> Credential:
        """Exchange the pasted `code#state` (the state must match) and save the credential."""
        pasted = as_secret(pasted)  # no clear copy in this frame
        return await self._exchange(attempt, pkce.parse_pasted(pasted, attempt.state))

    async def finish_redirect(self, attempt: LoginAttempt, query: Secret) -> Credential:
        """Exchange the code of the redirect's query (the state must match) and save."""
        return await self._exchange(attempt, pkce.parse_redirect(query, attempt.state))

    async def login_by_redirect(self, attempt: LoginAttempt, listener: RedirectListener,
                                timeout_s: float) -> Credential:
        """Wait at most `timeout_s` for the browser's redirect to `listener`, exchange its
        code, save the credential, answer the browser with a page saying how it went, and
        close the listener (also on timeout, failure or cancellation)."""
        return await credential_login.by_redirect(self.finish_redirect, attempt, listener,
                                                  timeout_s)

    async def _exchange(self, attempt: LoginAttempt, code: Secret) -> Credential:
        self.remember(code, attempt.verifier)
        return await credential_login.exchange(self._oauth, self.record, attempt, code,
                                               self.save_credential)

    async def save_credential(self, cred: Credential) -> None:
        """Store a credential obtained elsewhere (a login), under both locks."""
        async with self.lock:
            try:
                async with self.file_lock.held(self.lock_timeout_s):
                    self.adopt(cred)
                    await self.save(cred)
                    self._marker.bump()
            except LockBusy:
                raise CredentialStoreError(
                    self._store.describe(), "locked by another process"
                ) from None

    # ---------------------------------------------------------------- sign-out

    async def sign_out(self) -> bool:
        """Forget the credential here and delete it from the store, tell every other
        process of this store, and revoke it at the service (`credential_sign_out`). True
        when there was one to forget."""
        return await credential_sign_out.sign_out(self)

    # ---------------------------------------------------------------- the steps of the flows

    def describe_store(self) -> str:
        return self._store.describe()

    async def delete_stored(self) -> None:
        """Delete the store's credential, forget it here and replace the generation
        marker (under both locks: every other process stops using it at its next use)."""
        await asyncio.to_thread(self._store.delete)
        self._cred = self._stored = None
        self._marker.bump()

    async def use_stored(self) -> Credential | None:
        """Read the store and use what it holds."""
        cred = self._stored = await self.read_store()
        if cred is not None:
            self.adopt(cred)
        return cred

    async def read_store(self, *, note: bool = False) -> Credential | None:
        """What the store holds now (its tokens are remembered for redaction, not used);
        with `note`, also what this manager last saw of the store."""
        cred = await asyncio.to_thread(self._store.load)
        if cred is not None:
            self.remember(*cred.secrets())
        if note:
            self._stored = cred
        return cred

    def adopt_if_written_elsewhere(self, stored: Credential | None) -> bool:
        """Use `stored` if another process wrote it since this manager last read or wrote
        the store. A store still holding what this manager saw is not adopted: this
        manager's own credential is as new or newer (after a save that failed)."""
        if stored is None or stored == self._stored:
            return False
        self._stored = stored
        self.adopt(stored)
        return True

    async def save(self, cred: Credential) -> None:
        await asyncio.to_thread(self._store.save, cred)
        self._stored = cred

    def adopt(self, cred: Credential) -> None:
        self._cred = cred
        self.remember(*cred.secrets())

    def remember(self, *secrets: Secret) -> None:
        for s in secrets:
            if s not in self._seen:
                self._seen.append(s)
        del self._seen[:-KNOWN_SECRETS_KEPT]


def open_credentials(
    settings: Settings,
    data_dir: Path,
    http: httpx.AsyncClient,
    *,
    clock_ms: Callable[[], int] | None = None,
    store: CredentialStore | None = None,
    owner_secret: Callable[[], Secret | None] | None = None,
    **options: Any,
) -> CredentialManager:
    """The credential stack for `settings`: the store (the configured file, else the
    keyring, else a 0600 file in `data_dir`), its cross-process lock (beside a file store,
    in `data_dir` for the keyring), the OAuth refresher on `http` (which must not carry the
    bearer auth: the token endpoint never receives one) and the manager over them.
    `owner_secret` reads the embedded service's owner secret (its authorize URLs carry
    the owner's proof). `options` are the manager's timeouts."""
    data_dir = Path(data_dir)
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    if store is None:
        store = open_store(settings.credentials_file or None, data_dir)
    oauth = OAuthClient(http, settings.oauth_token_url, settings.oauth_authorize_url,
                        settings.oauth_client_id, clock_ms=clock_ms,
                        owner_secret=owner_secret)
    return CredentialManager(store, oauth, client_id=settings.oauth_client_id,
                             lock_path=lock_path_for(store, data_dir), clock_ms=clock_ms,
                             **options)
