"""Adding the Projects scopes to the session's credential (spec §11): one refresh asking
for them, under the manager's lock and the cross-process lock, a credential another
process already expanded adopted instead; each failure a `ScopeExpansionFailed(reason)`.

Scope-upgrade notice: `ensure_project_scopes` returns it when the manager's credential
went from lacking the project scopes to holding them — whether this process performed the
expansion or adopted one another process made that it had not seen before. A process that
already held the scopes gets None. So each process tells its own person once, and only the
first call after the change carries the notice.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ..core.scopes import expansion_scopes, missing_project_scopes
from ..core.sign_in_steps import WHY, iso
from ..errors import AuthError, CredentialStoreError, ScopeExpansionFailed, TransportError
from .cross_process_lock import LockBusy

if TYPE_CHECKING:
    from .credential_steps import CredentialSteps
    from .credentials import Credential

#: the credential manager's logger: its changes are logged under one name, wherever their
#: code lives
log = logging.getLogger("jupyter_design_projects.transport.credential_manager")

#: said once, beside the first Projects result, in plain words (no scope names, no
#: developer hint): what the person can now do, since nothing went wrong
SCOPE_UPGRADE_NOTICE = (
    "Signed in to this notebook's Project too: its knowledge can now be read and changed "
    "from here."
)


async def ensure_project_scopes(manager: CredentialSteps, policy_allows: bool) -> str | None:
    """The notice when the credential gained the scopes, None when nothing was needed;
    ScopeExpansionFailed(reason) otherwise."""
    if not policy_allows:
        raise ScopeExpansionFailed("policy_disabled")
    async with manager.lock:
        cred = manager.current() or await _load(manager)
        if cred is None:
            raise ScopeExpansionFailed("no_token")
        if not missing_project_scopes(cred.scopes):
            return None
        _check_expandable(manager, cred)
        try:
            async with manager.file_lock.held(manager.lock_timeout_s):
                return await _expand_locked(manager)
        except LockBusy:
            raise ScopeExpansionFailed("lock_contended") from None


def _check_expandable(manager: CredentialSteps, cred: Credential) -> None:
    if cred.client_id != manager.client_id:
        raise ScopeExpansionFailed("custom_oauth_client")
    if cred.refresh_token is None:
        raise ScopeExpansionFailed("no_refresh_token")


async def _expand_locked(manager: CredentialSteps) -> str:
    try:
        return await _expand_recorded(manager)
    except ScopeExpansionFailed as exc:
        manager.record.add("refresh", False, WHY["scope_expansion"], reason=exc.reason,
                           status=manager.oauth.last_status, detail=exc.detail or None)
        raise


async def _expand_recorded(manager: CredentialSteps) -> str:
    if manager.adopt_if_written_elsewhere(await _read(manager)):
        adopted = manager.current()
        if adopted is not None and not missing_project_scopes(adopted.scopes):
            log.info("adopted project scopes another process added")
            manager.record.add("adopted", True, WHY["scope_expansion"] + "; another "
                               "process had added them", expires=iso(adopted.expires_at_ms))
            return SCOPE_UPGRADE_NOTICE
    base = manager.current()
    if base is None:
        raise ScopeExpansionFailed("no_token")
    _check_expandable(manager, base)
    fresh = await _refresh_with(manager, base, expansion_scopes(base.scopes))
    manager.adopt(fresh)
    try:
        await manager.save(fresh)
        kept = await manager.read_store(note=True)
    except CredentialStoreError as exc:
        raise ScopeExpansionFailed("save_failed", exc.reason) from None
    if kept != fresh:
        raise ScopeExpansionFailed("save_failed", "the store did not keep it")
    if missing_project_scopes(fresh.scopes):
        raise ScopeExpansionFailed("scopes_not_granted")
    log.info("expanded the credential with the project scopes")
    manager.record.add("refresh", True, WHY["scope_expansion"], why="scope_expansion",
                       status=manager.oauth.last_status, expires=iso(fresh.expires_at_ms))
    return SCOPE_UPGRADE_NOTICE


async def _refresh_with(manager: CredentialSteps, base: Credential,
                        asked: tuple[str, ...]) -> Credential:
    """One refresh asking for `asked`, bounded as every refresh is."""
    manager.record.asked(asked)
    manager.oauth.last_status = None
    try:
        async with asyncio.timeout(manager.refresh_timeout_s):
            return await manager.oauth.refresh(base, asked)
    except (AuthError, TransportError, TimeoutError) as exc:
        if manager.adopt_if_written_elsewhere(await _read(manager)):
            raise ScopeExpansionFailed("refreshed_elsewhere") from None
        detail = getattr(exc, "reason", "timeout")
        raise ScopeExpansionFailed("refresh_refused", detail) from None


async def _load(manager: CredentialSteps) -> Credential | None:
    try:
        return await manager.use_stored()
    except CredentialStoreError as exc:
        raise ScopeExpansionFailed("no_token", exc.reason) from None


async def _read(manager: CredentialSteps) -> Credential | None:
    try:
        return await manager.read_store()
    except CredentialStoreError as exc:
        raise ScopeExpansionFailed("no_token", exc.reason) from None
