"""What the credential flows (`scope_expansion`, `credential_sign_out`) take of the
credential manager: its locks and bounds, its record and OAuth client, and the steps that
read, use, save and delete the held credential. `CredentialManager` is one; the flows name
this shape rather than the manager, which imports them."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .credentials import Credential
    from .cross_process_lock import CrossProcessLock
    from .oauth import OAuthClient
    from .sign_in_record import SignInRecord


class CredentialSteps(Protocol):
    lock: asyncio.Lock
    file_lock: CrossProcessLock
    lock_timeout_s: float
    refresh_timeout_s: float
    client_id: str
    record: SignInRecord

    @property
    def oauth(self) -> OAuthClient: ...

    def current(self) -> Credential | None: ...

    def describe_store(self) -> str: ...

    def adopt(self, cred: Credential) -> None: ...

    def adopt_if_written_elsewhere(self, stored: Credential | None) -> bool: ...

    async def use_stored(self) -> Credential | None: ...

    async def read_store(self, *, note: bool = False) -> Credential | None: ...

    async def save(self, cred: Credential) -> None: ...

    async def delete_stored(self) -> None: ...
