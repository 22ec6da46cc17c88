"""Signing out: the credential forgotten by the manager and deleted from the store under
both locks (a refresh in another process cannot write it back meanwhile; afterwards it
finds the store empty and forgets its own), the generation marker replaced (every other
process of this store stops using the token at its next use), then revoked at the service
(RFC 7009; a failure is recorded, the sign-out stands). Its tokens stay known for
redaction."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import AuthError, CredentialStoreError, TransportError
from .cross_process_lock import LockBusy

if TYPE_CHECKING:
    from .credential_steps import CredentialSteps
    from .credentials import Credential

REVOKED = "revoked at the service (RFC 7009)"


async def sign_out(manager: CredentialSteps) -> bool:
    """True when there was a credential to forget (see the module docstring)."""
    store = manager.describe_store()
    async with manager.lock:
        try:
            async with manager.file_lock.held(manager.lock_timeout_s):
                held = manager.current() or await _stored_quietly(manager)
                had = held is not None or await _holds_something(manager)
                await manager.delete_stored()
        except LockBusy:
            error = CredentialStoreError(store, "locked by another process")
            manager.record.failed("sign_out", f"delete from {store}", error)
            raise error from None
        except CredentialStoreError as exc:
            manager.record.failed("sign_out", f"delete from {store}", exc)
            raise
    manager.record.add("sign_out", True, f"forgotten here and deleted from {store}"
                       if had else "nothing was stored")
    if held is not None:
        await _revoke(manager, held)
    return had


async def _stored_quietly(manager: CredentialSteps) -> Credential | None:
    try:
        return await manager.read_store()
    except CredentialStoreError:
        return None


async def _holds_something(manager: CredentialSteps) -> bool:
    """Whether the store holds a credential (a malformed one counts: it is deleted)."""
    try:
        return await manager.read_store() is not None
    except CredentialStoreError:
        return True


async def _revoke(manager: CredentialSteps, cred: Credential) -> None:
    oauth = manager.oauth
    try:
        await oauth.revoke(cred)
    except (AuthError, TransportError) as exc:
        manager.record.failed("revoke", REVOKED, exc, status=oauth.last_status)
        return
    manager.record.add("revoke", True, REVOKED, status=oauth.last_status)
