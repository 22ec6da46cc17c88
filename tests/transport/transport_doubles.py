"""Test doubles for the transport tests: credentials, an in-memory store and keyring, a
token endpoint plus resource server that run inside `httpx.MockTransport`, and a
never-ending answer."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import itertools
import json
from pathlib import Path

import httpx

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.core.scopes import BASE_SCOPES, DESIGN_SCOPES
from jupyter_design_projects.errors import CredentialStoreError
from jupyter_design_projects.settings import FIRST_PARTY_CLIENT_ID
from jupyter_design_projects.transport.credential_manager import CredentialManager
from jupyter_design_projects.transport.credentials import Credential
from jupyter_design_projects.transport.http import make_client
from jupyter_design_projects.transport.oauth import OAuthClient

ORIGIN = "http://127.0.0.1:8123"
TOKEN_URL = ORIGIN + "/v1/oauth/token"
AUTHORIZE_URL = ORIGIN + "/oauth/authorize"
NOW_MS = 1_700_000_000_000


async def drip():
    """An answer body that never ends: one byte every 10 ms, until a deadline cuts it."""
    while True:
        yield b" "
        await asyncio.sleep(0.01)


def make_cred(**changes) -> Credential:
    cred = Credential(
        access_token=Secret("at-initial-0001"),
        refresh_token=Secret("rt-initial-0001"),
        expires_at_ms=NOW_MS + 3_600_000,
        scopes=BASE_SCOPES + DESIGN_SCOPES,
        client_id=FIRST_PARTY_CLIENT_ID,
    )
    return dataclasses.replace(cred, **changes)


class MemoryKeyring:
    """A keyring backend holding its passwords in a dict."""

    def __init__(self):
        self.values = {}

    def get_password(self, service, username):
        return self.values.get((service, username))

    def set_password(self, service, username, value):
        self.values[(service, username)] = value


class MemoryStore:
    """A CredentialStore in memory, with switches to make it fail or drop writes."""

    def __init__(self, cred: Credential | None = None) -> None:
        self.cred = cred
        self.fail_save = False
        self.drop_writes = False
        self.saves = 0

    def describe(self) -> str:
        return "memory"

    def load(self) -> Credential | None:
        return self.cred

    def save(self, cred: Credential) -> None:
        if self.fail_save:
            raise CredentialStoreError("memory", "disk full")
        self.saves += 1
        if not self.drop_writes:
            self.cred = cred

    def delete(self) -> None:
        self.cred = None


class FakeService:
    """A token endpoint with rotating refresh tokens and a resource route that accepts the
    current access tokens; records every request it sees."""

    def __init__(self, initial: Credential | None = None) -> None:
        self.counter = itertools.count(2)
        self.access: set[str] = set()
        self.refresh: dict[str, tuple[str, ...]] = {}
        self.requests: list[httpx.Request] = []
        self.token_requests: list[dict] = []
        self.narrow: set[str] = set()
        self.token_answer: httpx.Response | None = None
        self.resource_answer: httpx.Response | None = None
        #: replaces the resource route: request -> Response
        self.resource_override = None
        #: replaces the token endpoint: request -> Response, or an awaitable of one
        self.token_override = None
        if initial is not None:
            self.access.add(initial.access_token.reveal())
            if initial.refresh_token is not None:
                self.refresh[initial.refresh_token.reveal()] = initial.scopes

    async def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path == "/v1/oauth/token":
            if self.token_override is not None:
                answer = self.token_override(request)
                return await answer if inspect.isawaitable(answer) else answer
            return self._token(request)
        if self.resource_override is not None:
            return self.resource_override(request)
        if self.resource_answer is not None:
            return self.resource_answer
        header = request.headers.get("authorization", "")
        if header.removeprefix("Bearer ") in self.access:
            return httpx.Response(200, json={"ok": True})
        return httpx.Response(
            401, json={"type": "error", "error": {"type": "authentication_error"}}
        )

    def _token(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.token_requests.append(body)
        if self.token_answer is not None:
            return self.token_answer
        if body.get("grant_type") != "refresh_token":
            return self._issue(tuple(body.get("scope", "").split()) or BASE_SCOPES)
        old = body.get("refresh_token")
        if old not in self.refresh:
            return httpx.Response(400, json={"error": "invalid_grant"})
        del self.refresh[old]
        return self._issue(tuple(body["scope"].split()))

    def _issue(self, scopes: tuple[str, ...]) -> httpx.Response:
        n = next(self.counter)
        access, refresh = f"at-issued-{n:04d}", f"rt-issued-{n:04d}"
        granted = tuple(s for s in scopes if s not in self.narrow)
        self.access.add(access)
        self.refresh[refresh] = granted
        return httpx.Response(200, json={"token_type": "Bearer", "access_token": access,
                                         "refresh_token": refresh, "expires_in": 28800,
                                         "scope": " ".join(granted)})


@dataclasses.dataclass
class Rig:
    service: FakeService
    store: MemoryStore
    manager: CredentialManager
    oauth: OAuthClient
    http: httpx.AsyncClient


def build_rig(tmp_path: Path, cred: Credential | None, *, auth_origins=(ORIGIN,),
              **manager_options) -> Rig:
    from jupyter_design_projects.transport.auth import BearerAuth

    service = FakeService(cred)
    store = MemoryStore(cred)
    http = make_client(transport=httpx.MockTransport(service.handler))
    oauth = OAuthClient(http, TOKEN_URL, AUTHORIZE_URL, FIRST_PARTY_CLIENT_ID,
                        clock_ms=lambda: NOW_MS)
    manager = CredentialManager(store, oauth, client_id=FIRST_PARTY_CLIENT_ID,
                                lock_path=tmp_path / "credentials.lock",
                                clock_ms=lambda: NOW_MS, **manager_options)
    http.auth = BearerAuth(manager, frozenset(auth_origins))
    return Rig(service, store, manager, oauth, http)
