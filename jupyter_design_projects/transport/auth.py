"""The bearer auth flow: a token only for allowlisted origins, and on 401 one refresh and
one retry.

`BearerAuth.async_auth_flow` is a plain async generator, so tests drive it by hand with
`__anext__()` / `asend(response)` and no network. Concurrent 401s share one refresh
because `CredentialManager.refresh_after_401` serialises refreshes and adopts a token
that is already newer than the rejected one.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator, Iterable
from typing import TYPE_CHECKING

import httpx

from ..core.origins import origin
from ..core.redaction import Secret
from ..errors import AuthError, OriginNotAllowed, ResponseTooLarge
from .http import ACTION_EXTENSION

if TYPE_CHECKING:
    from .credential_manager import CredentialManager

#: the body of a rejected (401) answer is read at most this far, then discarded
REJECTED_BODY_MAX_BYTES = 64 * 1024


class BearerAuth(httpx.Auth):
    def __init__(self, manager: CredentialManager, allowed_origins: Iterable[str]) -> None:
        self._manager = manager
        self.allowed_origins = frozenset(origin(o) for o in allowed_origins)

    def known_secrets(self) -> tuple[Secret, ...]:
        """Every token this auth has used or may use, for redacting answers (`send`)."""
        return self._manager.known_secrets()

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response]:
        raise RuntimeError("BearerAuth works with httpx.AsyncClient only")
        yield request  # pragma: no cover - makes this a generator

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        target = origin(str(request.url))
        if target not in self.allowed_origins:
            raise OriginNotAllowed(target)
        if "authorization" in request.headers:
            # the caller authenticates this request itself (the remote-session JWT)
            yield request
            return
        token = await self._manager.access_token()
        request.headers["Authorization"] = f"Bearer {token.reveal()}"
        response = yield request
        if response.status_code != 401:
            return
        await _discard_body(response, request.extensions.get(ACTION_EXTENSION, "auth"))
        fresh = await self._manager.refresh_after_401(token)
        request.headers["Authorization"] = f"Bearer {fresh.reveal()}"
        response = yield request
        if response.status_code == 401:
            raise AuthError(
                "unauthorized_after_refresh",
                "The service rejected the refreshed token too.",
            )


async def _discard_body(response: httpx.Response, action: str) -> None:
    """httpx reads a retried answer into memory (and decodes it): read the raw bytes here,
    under a cap, and leave an empty body behind so a 401 cannot be a memory bomb."""
    size = 0
    try:
        async for chunk in response.stream:  # type: ignore[union-attr]
            size += len(chunk)
            if size > REJECTED_BODY_MAX_BYTES:
                raise ResponseTooLarge(action, REJECTED_BODY_MAX_BYTES)
    finally:
        await response.stream.aclose()  # type: ignore[union-attr]
    response.stream = httpx.ByteStream(b"")
    response.headers.pop("content-encoding", None)
