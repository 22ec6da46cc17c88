"""The transport against the real reference service: caps, deadline, 401 refresh, scope
narrowing and the PKCE login, over loopback."""

import asyncio
import json
import secrets
from pathlib import Path

import pytest
import pytest_asyncio

from jupyter_design_projects.core import pkce
from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.core.scopes import BASE_SCOPES, DESIGN_SCOPES, PROJECT_SCOPES
from jupyter_design_projects.errors import (
    DeadlineExceeded,
    ResponseTooLarge,
    ScopeExpansionFailed,
    TransportError,
)
from jupyter_design_projects.settings import FIRST_PARTY_CLIENT_ID
from jupyter_design_projects.transport.auth import BearerAuth
from jupyter_design_projects.transport.credential_manager import CredentialManager
from jupyter_design_projects.transport.credentials import FileCredentialStore
from jupyter_design_projects.transport.http import make_client, send
from jupyter_design_projects.transport.oauth import OAuthClient
from tests.design_headers import DESIGN_HEADERS
from tests.faults_client import faults
from tests.sign_in_page import pasted_code
from tests.worker_processes import copied_credentials

DESIGN_CAP = 2_080_000
CONSENT = "/v1/design/consent"


class Client:
    def __init__(self, service, credentials_file: Path):
        self.base = service.base_url
        self.store = FileCredentialStore(credentials_file)
        self.token_requests = 0
        self.http = make_client(event_hooks={"request": [self._count]})
        # the service's owner: its authorize links carry the owner's proof
        self.oauth = OAuthClient(self.http, self.base + "/v1/oauth/token",
                                 self.base + "/oauth/authorize", FIRST_PARTY_CLIENT_ID,
                                 owner_secret=service.owner_secret)
        self.manager = CredentialManager(self.store, self.oauth, client_id=FIRST_PARTY_CLIENT_ID,
                                         lock_path=credentials_file.with_suffix(".lock"))
        self.http.auth = BearerAuth(self.manager, {self.base})

    async def _count(self, request):
        self.token_requests += request.url.path == "/v1/oauth/token"

    async def get(self, path, *, max_bytes=DESIGN_CAP, deadline_s=30.0):
        return await send(self.http, "GET", self.base + path, action="probe",
                          max_bytes=max_bytes, deadline_s=deadline_s, headers=DESIGN_HEADERS)


def copy_credentials(service, tmp_path) -> Path:
    return copied_credentials(service, tmp_path)


async def sign_in(client: Client, scopes) -> None:
    """A credential of our own through the real authorize page (the shared service's file
    may have been rotated by other tests), without the project scopes."""
    verifier = pkce.verifier_from_bytes(secrets.token_bytes(32))
    state = pkce.state_from_bytes(secrets.token_bytes(16))
    url = client.oauth.authorize_url_for(state=state, challenge=pkce.challenge_for(verifier),
                                         scopes=scopes)
    code = pkce.parse_pasted(await code_shown_at(url), state)
    cred = await client.oauth.exchange_code(code=code, verifier=Secret(verifier),
                                            state=state, scopes=scopes)
    client.store.save(cred)


async def code_shown_at(url: str) -> str:
    """Authorize on the page (a paste-the-code sign-in) and read the code it shows."""
    return await asyncio.to_thread(pasted_code, url)


@pytest_asyncio.fixture
async def client(shared_reference_service, tmp_path):
    made = Client(shared_reference_service, tmp_path / "credentials.json")
    await sign_in(made, BASE_SCOPES + DESIGN_SCOPES)
    made.token_requests = 0
    try:
        yield made
    finally:
        faults(shared_reference_service).reset()
        await made.http.aclose()


@pytest.mark.asyncio
async def test_plain_authenticated_call_works(client):
    answer = await client.get(CONSENT)
    assert answer.status == 200
    assert "agent_design_projects" in answer.json()


@pytest.mark.asyncio
@pytest.mark.parametrize(("size", "too_large"), [(DESIGN_CAP, False), (DESIGN_CAP + 1, True)])
async def test_oversized_answer_is_refused_at_exactly_the_cap(client, shared_reference_service,
                                                              size, too_large):
    faults(shared_reference_service).oversize(CONSENT, size=size)
    if too_large:
        with pytest.raises(ResponseTooLarge):
            await client.get(CONSENT)
    else:
        assert len((await client.get(CONSENT)).body) == size


@pytest.mark.asyncio
async def test_gzip_bomb_is_refused_without_inflating(client, shared_reference_service):
    faults(shared_reference_service).gzip_bomb(CONSENT)
    with pytest.raises(TransportError) as info:
        await client.get(CONSENT)
    assert info.value.reason == "encoding" and "gzip" in info.value.detail


@pytest.mark.asyncio
async def test_slow_drip_stops_at_the_total_deadline(client, shared_reference_service):
    faults(shared_reference_service).drip(CONSENT, bytes_per_tick=1, tick_ms=200)
    with pytest.raises(DeadlineExceeded):
        await client.get(CONSENT, deadline_s=0.5)


@pytest.mark.asyncio
async def test_expired_token_is_refreshed_once_and_the_call_retried(reference_service,
                                                                    tmp_path):
    made = Client(reference_service, copy_credentials(reference_service, tmp_path))
    async with made.http:
        await made.manager.access_token()
        faults(reference_service).expire_tokens()
        answer = await made.get(CONSENT)
    assert answer.status == 200
    assert made.token_requests == 1
    counts = faults(reference_service).counts()
    assert counts[f"GET {CONSENT}"] == 2
    assert counts["POST /v1/oauth/token"] == 1


@pytest.mark.asyncio
async def test_narrowed_grant_is_reported_as_scopes_not_granted(client,
                                                                shared_reference_service):
    faults(shared_reference_service).narrow_scopes(list(PROJECT_SCOPES))
    with pytest.raises(ScopeExpansionFailed) as info:
        await client.manager.ensure_project_scopes()
    assert info.value.reason == "scopes_not_granted"
    # the rotated refresh token was saved: a later expansion can still refresh
    faults(shared_reference_service).reset()
    assert await client.manager.ensure_project_scopes() is not None


@pytest.mark.asyncio
async def test_pkce_login_against_the_authorize_page(client):
    attempt = client.manager.begin_login()
    cred = await client.manager.finish_login(attempt, await code_shown_at(attempt.url))
    assert set(PROJECT_SCOPES) <= set(cred.scopes)
    assert json.loads(client.store.path.read_text())["access_token"] == cred.access_token.reveal()
    assert (await client.get(CONSENT)).status == 200
