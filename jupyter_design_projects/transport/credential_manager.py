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

Scope-upgrade notice: `ensure_project_scopes` returns it when this manager's credential
went from lacking the project scopes to holding them — whether this process performed
the expansion or adopted one another process made that it had not seen before. A
process that already held the scopes gets None. So each process tells its own person
once, and only the first call after the change carries the notice.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import secrets as random
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import pkce
from ..core.redaction import Secret, as_secret
from ..core.scopes import LOGIN_SCOPES, expansion_scopes, missing_project_scopes
from ..core.sign_in_steps import WHY, AuthStatus, iso, redacted_authorize_url
from ..errors import (
    AuthError,
    CredentialStoreError,
    JdpError,
    ScopeExpansionFailed,
    TransportError,
)
from .credentials import Credential, CredentialStore, lock_path_for, open_store
from .oauth import OAuthClient
from .sign_in_record import SignInRecord

if TYPE_CHECKING:
    import filelock
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
LOCK_POLL_S = 0.02
#: how many past tokens (rotated ones, login codes) are still redacted
KNOWN_SECRETS_KEPT = 32
#: said once, beside the first Projects result, in plain words (no scope names, no
#: developer hint): what the person can now do, since nothing went wrong
SCOPE_UPGRADE_NOTICE = (
    "Signed in to this notebook's Project too: its knowledge can now be read and changed "
    "from here."
)


@dataclasses.dataclass(frozen=True)
class LoginAttempt:
    url: str
    state: str
    verifier: Secret
    #: where the sign-in page sends the browser (None: the paste-the-code page)
    redirect_uri: str | None = None


class _LockBusy(Exception):
    pass


class CredentialManager:
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
        self._client_id = client_id
        self._lock_path = Path(lock_path)
        self._clock_ms = clock_ms or (lambda: int(time.time() * 1000))
        self._refresh_timeout_s = refresh_timeout_ms / 1000
        self._lock_timeout_s = lock_timeout_ms / 1000
        self._cred: Credential | None = None
        #: what the store held when this manager last read or wrote it
        self._stored: Credential | None = None
        self._seen: list[Secret] = []
        self._lock = asyncio.Lock()
        self._file_lock: filelock.FileLock | None = None
        #: the sign-in generation marker beside the lock: a sign-in or sign-out in any
        #: process replaces it, and every use of the token here first checks it
        self._marker = self._lock_path.with_name(self._lock_path.name + ".generation")
        self._marker_seen: tuple[int, int, int] | None = None
        #: the sign-in, step by step (`%design auth`, `session.auth_status()`)
        self.record = SignInRecord(self._clock_ms)

    # ---------------------------------------------------------------- reading

    def known_secrets(self) -> tuple[Secret, ...]:
        """Every token this manager has held (rotated ones too), for redaction."""
        return tuple(self._seen)

    def current(self) -> Credential | None:
        return self._cred

    async def load_stored(self) -> Credential | None:
        """The credential, read from the store unless already held; sends nothing."""
        async with self._lock:
            return self._cred or await self._load()

    async def access_token(self) -> Secret:
        await self._follow_other_processes()
        cred = self._cred or await self._load()
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
        async with self._lock:
            try:
                cred = self._cred or await self._load()
            except CredentialStoreError as exc:
                cred, problem = None, exc.reason
        return AuthStatus(
            now_ms=self._clock_ms(), signed_in=cred is not None,
            client_id=cred.client_id if cred else self._client_id,
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
            async with self._cross_process_lock(self._refresh_timeout_s):
                return await self._refresh_locked(rejected, why)

        return await self._refreshing(refresh, why)

    async def refresh_now(self) -> Credential:
        """Refresh the held credential now, whatever its expiry (the "Refresh now" of
        `%design auth`), under both locks as every refresh is; a token another process
        refreshed meanwhile is adopted instead. AuthError no_token / no_refresh_token when
        there is nothing to refresh."""

        async def refresh() -> Credential:
            cred = self._cred or await self._load()
            if cred is None:
                raise AuthError("no_token", "Not signed in.")
            if cred.refresh_token is None:
                raise AuthError("no_refresh_token", "The credential has no refresh token.")
            async with self._cross_process_lock(self._refresh_timeout_s):
                await self._refresh_locked(cred.access_token, "asked")
            assert self._cred is not None
            return self._cred

        return await self._refreshing(refresh, "asked")

    async def _refreshing(self, refresh: Callable[[], Any], why: str) -> Any:
        """`refresh()` under the manager's lock and the 5,000 ms bound, its failures
        mapped to AuthError (refresh_timeout, refresh_failed) and recorded."""
        try:
            async with asyncio.timeout(self._refresh_timeout_s):
                async with self._lock:
                    return await refresh()
        except (TimeoutError, _LockBusy):
            self.record.add("refresh", False, WHY[why], reason="refresh_timeout")
            raise AuthError(
                "refresh_timeout",
                f"No new token within {self._refresh_timeout_s:g} s.",
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
        stored = await self._read_store()
        self._forget_if_signed_out_elsewhere(stored)
        if self._adopt_if_written_elsewhere(stored):
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
        self._adopt(fresh)
        try:
            await self._save(fresh)
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

    def _marker_now(self) -> tuple[int, int, int] | None:
        try:
            info = self._marker.stat()
        except OSError:
            return None
        return info.st_ino, info.st_mtime_ns, info.st_size

    async def _follow_other_processes(self) -> None:
        """Before a use of the token: when another process signed in or out since this
        manager last looked (the generation marker changed), read the store again — an
        empty store is a sign-out everywhere (AuthError no_token, the token forgotten
        here), a new credential is adopted. One stat when nothing changed."""
        seen = self._marker_now()
        if seen == self._marker_seen:
            return
        self._marker_seen = seen
        if self._cred is None:
            return
        async with self._lock:
            stored = await self._read_store()
            self._forget_if_signed_out_elsewhere(stored)
            self._adopt_if_written_elsewhere(stored)

    def _bump_generation(self) -> None:
        """Tell every other process using this store that the sign-in changed (under the
        cross-process lock): the marker is replaced, so its inode changes."""
        partial = self._marker.with_name(self._marker.name + ".partial")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(random.token_hex(8))
        os.replace(partial, self._marker)
        self._marker_seen = self._marker_now()

    # ---------------------------------------------------------------- Projects scopes

    async def ensure_project_scopes(self, *, policy_allows: bool = True) -> str | None:
        """Spec §11: add user:projects:read/write when missing. Returns the scope-upgrade
        notice when this manager's credential gained them, None when nothing was needed;
        raises ScopeExpansionFailed(reason) otherwise."""
        if not policy_allows:
            raise ScopeExpansionFailed("policy_disabled")
        async with self._lock:
            cred = self._cred or await self._load_for_expansion()
            if cred is None:
                raise ScopeExpansionFailed("no_token")
            if not missing_project_scopes(cred.scopes):
                return None
            self._check_expandable(cred)
            try:
                async with self._cross_process_lock(self._lock_timeout_s):
                    return await self._expand_locked()
            except _LockBusy:
                raise ScopeExpansionFailed("lock_contended") from None

    def _check_expandable(self, cred: Credential) -> None:
        if cred.client_id != self._client_id:
            raise ScopeExpansionFailed("custom_oauth_client")
        if cred.refresh_token is None:
            raise ScopeExpansionFailed("no_refresh_token")

    async def _expand_locked(self) -> str:
        try:
            return await self._expand_recorded()
        except ScopeExpansionFailed as exc:
            self.record.add("refresh", False, WHY["scope_expansion"], reason=exc.reason,
                            status=self._oauth.last_status, detail=exc.detail or None)
            raise

    async def _expand_recorded(self) -> str:
        if self._adopt_if_written_elsewhere(await self._read_for_expansion()):
            adopted = self._cred
            if adopted is not None and not missing_project_scopes(adopted.scopes):
                log.info("adopted project scopes another process added")
                self.record.add("adopted", True, WHY["scope_expansion"] + "; another "
                                "process had added them", expires=iso(adopted.expires_at_ms))
                return SCOPE_UPGRADE_NOTICE
        base = self._cred
        if base is None:
            raise ScopeExpansionFailed("no_token")
        self._check_expandable(base)
        asked = expansion_scopes(base.scopes)
        self.record.asked(asked)
        self._oauth.last_status = None
        try:
            async with asyncio.timeout(self._refresh_timeout_s):
                fresh = await self._oauth.refresh(base, asked)
        except (AuthError, TransportError, TimeoutError) as exc:
            if self._adopt_if_written_elsewhere(await self._read_for_expansion()):
                raise ScopeExpansionFailed("refreshed_elsewhere") from None
            detail = getattr(exc, "reason", "timeout")
            raise ScopeExpansionFailed("refresh_refused", detail) from None
        self._adopt(fresh)
        try:
            await self._save(fresh)
            kept = self._stored = await self._read_store()
        except CredentialStoreError as exc:
            raise ScopeExpansionFailed("save_failed", exc.reason) from None
        if kept != fresh:
            raise ScopeExpansionFailed("save_failed", "the store did not keep it")
        if missing_project_scopes(fresh.scopes):
            raise ScopeExpansionFailed("scopes_not_granted")
        log.info("expanded the credential with the project scopes")
        self.record.add("refresh", True, WHY["scope_expansion"], why="scope_expansion",
                        status=self._oauth.last_status, expires=iso(fresh.expires_at_ms))
        return SCOPE_UPGRADE_NOTICE

    async def _load_for_expansion(self) -> Credential | None:
        try:
            return await self._load()
        except CredentialStoreError as exc:
            raise ScopeExpansionFailed("no_token", exc.reason) from None

    async def _read_for_expansion(self) -> Credential | None:
        try:
            return await self._read_store()
        except CredentialStoreError as exc:
            raise ScopeExpansionFailed("no_token", exc.reason) from None

    # ---------------------------------------------------------------- login

    def begin_login(self, redirect_uri: str | None = None) -> LoginAttempt:
        """The authorize URL to open, with a fresh PKCE verifier and state; the browser
        comes back to `redirect_uri` (a loopback listener), else to the code page."""
        verifier = Secret(pkce.verifier_from_bytes(random.token_bytes(32)))
        state = pkce.state_from_bytes(random.token_bytes(24))
        url = self._oauth.authorize_url_for(
            state=state, challenge=pkce.challenge_for(verifier.reveal()), scopes=LOGIN_SCOPES,
            redirect_uri=redirect_uri,
        )
        self.record.asked(LOGIN_SCOPES)
        self.record.add("authorize_url", True, "the sign-in page to open (PKCE S256)",
                        url=redacted_authorize_url(url), client_id=self._oauth.client_id,
                        redirect_uri=redirect_uri or self._oauth.redirect_uri)
        return LoginAttempt(url=url, state=state, verifier=verifier, redirect_uri=redirect_uri)

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
        async with listener:
            callback = await listener.wait(timeout_s)
            try:
                fresh = await self.finish_redirect(attempt, callback.query)
            except JdpError as exc:
                await callback.answer(400, "Sign-in failed",
                                      f"{exc.message} Return to the notebook.")
                raise
            await callback.answer(200, "Signed in", "You are signed in; you can close this "
                                  "tab and return to the notebook.")
            return fresh

    async def _exchange(self, attempt: LoginAttempt, code: Secret) -> Credential:
        self._remember(code, attempt.verifier)
        self._oauth.last_status = None
        try:
            fresh = await self._oauth.exchange_code(
                code=code, verifier=attempt.verifier, state=attempt.state,
                scopes=LOGIN_SCOPES, redirect_uri=attempt.redirect_uri,
            )
            await self.save_credential(fresh)
        except JdpError as exc:
            self.record.failed("code_exchange", "the code for a credential", exc,
                               status=self._oauth.last_status)
            raise
        self.record.add("code_exchange", True, "the code for a credential",
                        status=self._oauth.last_status, expires=iso(fresh.expires_at_ms),
                        scopes=" ".join(fresh.scopes),
                        can_refresh="yes" if fresh.refresh_token else "no")
        return fresh

    async def save_credential(self, cred: Credential) -> None:
        """Store a credential obtained elsewhere (a login), under both locks."""
        async with self._lock:
            try:
                async with self._cross_process_lock(self._lock_timeout_s):
                    self._adopt(cred)
                    await self._save(cred)
                    self._bump_generation()
            except _LockBusy:
                raise CredentialStoreError(
                    self._store.describe(), "locked by another process"
                ) from None

    # ---------------------------------------------------------------- sign-out

    async def sign_out(self) -> bool:
        """Forget the credential in this session and delete it from the store, under both
        locks (a refresh in another process cannot write it back meanwhile; afterwards it
        finds the store empty and forgets its own), replace the generation marker (every
        other process of this store stops using the token at its next use), then ask the
        service to revoke it (RFC 7009; a failure is recorded, the sign-out stands). Its
        tokens stay known for redaction. True when there was one to forget."""
        async with self._lock:
            try:
                async with self._cross_process_lock(self._lock_timeout_s):
                    held = self._cred or await self._stored_quietly()
                    had = held is not None or await self._holds_something()
                    await asyncio.to_thread(self._store.delete)
                    self._cred = self._stored = None
                    self._bump_generation()
            except _LockBusy:
                error = CredentialStoreError(self._store.describe(),
                                             "locked by another process")
                self.record.failed("sign_out", f"delete from {self._store.describe()}", error)
                raise error from None
            except CredentialStoreError as exc:
                self.record.failed("sign_out", f"delete from {self._store.describe()}", exc)
                raise
        self.record.add("sign_out", True, f"forgotten here and deleted from "
                        f"{self._store.describe()}" if had else "nothing was stored")
        if held is not None:
            await self._revoke(held)
        return had

    async def _stored_quietly(self) -> Credential | None:
        try:
            return await self._read_store()
        except CredentialStoreError:
            return None

    async def _revoke(self, cred: Credential) -> None:
        try:
            await self._oauth.revoke(cred)
        except (AuthError, TransportError) as exc:
            self.record.failed("revoke", "revoked at the service (RFC 7009)", exc,
                               status=self._oauth.last_status)
            return
        self.record.add("revoke", True, "revoked at the service (RFC 7009)",
                        status=self._oauth.last_status)

    async def _holds_something(self) -> bool:
        """Whether the store holds a credential (a malformed one counts: it is deleted)."""
        try:
            return await self._read_store() is not None
        except CredentialStoreError:
            return True

    # ---------------------------------------------------------------- internals

    async def _load(self) -> Credential | None:
        """Read the store and use what it holds."""
        cred = self._stored = await self._read_store()
        if cred is not None:
            self._adopt(cred)
        return cred

    async def _read_store(self) -> Credential | None:
        """What the store holds now (its tokens are remembered for redaction, not used)."""
        cred = await asyncio.to_thread(self._store.load)
        if cred is not None:
            self._remember(*cred.secrets())
        return cred

    def _adopt_if_written_elsewhere(self, stored: Credential | None) -> bool:
        """Use `stored` if another process wrote it since this manager last read or wrote
        the store. A store still holding what this manager saw is not adopted: this
        manager's own credential is as new or newer (after a save that failed)."""
        if stored is None or stored == self._stored:
            return False
        self._stored = stored
        self._adopt(stored)
        return True

    async def _save(self, cred: Credential) -> None:
        await asyncio.to_thread(self._store.save, cred)
        self._stored = cred

    def _adopt(self, cred: Credential) -> None:
        self._cred = cred
        self._remember(*cred.secrets())

    def _remember(self, *secrets: Secret) -> None:
        for s in secrets:
            if s not in self._seen:
                self._seen.append(s)
        del self._seen[:-KNOWN_SECRETS_KEPT]

    @contextlib.asynccontextmanager
    async def _cross_process_lock(self, timeout_s: float) -> AsyncIterator[None]:
        """Poll a non-blocking filelock (a blocking acquire in a thread could still take
        the lock after its waiter was cancelled, and then never release it)."""
        import filelock  # here, not at import: a call that refreshes nothing never needs it

        if self._file_lock is None:
            self._lock_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            # 0600 whatever the umask: it sits beside the credential, often in a data dir
            self._file_lock = filelock.FileLock(str(self._lock_path), mode=0o600,
                                                thread_local=False)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            try:
                self._file_lock.acquire(blocking=False)
                break
            except filelock.Timeout:
                if loop.time() >= deadline:
                    raise _LockBusy() from None
                await asyncio.sleep(LOCK_POLL_S)
        try:
            yield
        finally:
            self._file_lock.release()


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
