"""The credential stack as a kernel builds it (`open_credentials`) and the loopback sign-in
it runs (`login_by_redirect`): a real listener on 127.0.0.1, the token endpoint in
`httpx.MockTransport`, and the browser's page read off the socket."""

from __future__ import annotations

import asyncio
import json
import os
import stat

import httpx
import pytest

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.errors import AuthError
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.credential_manager import open_credentials
from jupyter_design_projects.transport.credentials import FileCredentialStore
from jupyter_design_projects.transport.http import make_client
from jupyter_design_projects.transport.redirect_listener import RedirectListener
from tests.transport.transport_doubles import NOW_MS, FakeService, MemoryStore, build_rig, make_cred

DEADLINE_S = 30.0
API = "http://127.0.0.1:8123"


def settings_for(tmp_path, **overrides) -> Settings:
    return Settings.resolve({}, {"api_base_url": API,
                                 "credentials_file": str(tmp_path / "creds" / "cred.json"),
                                 **overrides})


def write_credential(path, cred) -> None:
    FileCredentialStore(path).save(cred)


# ---------------------------------------------------------------- open_credentials


@pytest.mark.asyncio
async def test_open_credentials_refreshes_through_the_configured_endpoint_and_file(tmp_path):
    settings = settings_for(tmp_path, oauth_client_id="client-from-settings")
    cred = make_cred(client_id="client-from-settings",
                     expires_at_ms=NOW_MS + 1_000)  # inside the expiry skew: refreshed first
    write_credential(tmp_path / "creds" / "cred.json", cred)
    service = FakeService(cred)
    http = make_client(transport=httpx.MockTransport(service.handler))
    data_dir = tmp_path / "data" / "nested"
    async with http:
        manager = open_credentials(settings, data_dir, http, clock_ms=lambda: NOW_MS)
        token = await manager.access_token()
    assert token == Secret("at-issued-0002")
    (request,) = service.requests
    assert str(request.url) == f"{API}/v1/oauth/token"
    assert json.loads(request.content)["client_id"] == "client-from-settings"
    saved = FileCredentialStore(tmp_path / "creds" / "cred.json").load()
    assert saved is not None and saved.access_token == token
    # the OAuth client and the manager both run on the given clock
    assert saved.expires_at_ms == NOW_MS + 28_800_000
    # the lock sits beside the configured file; the data dir is made, private
    assert (tmp_path / "creds" / "cred.json.lock").exists()
    assert stat.S_IMODE(os.stat(data_dir).st_mode) == 0o700
    assert not (data_dir / "credentials.lock").exists()


@pytest.mark.asyncio
async def test_open_credentials_uses_a_given_store_and_the_managers_options(tmp_path):
    store = MemoryStore(make_cred(expires_at_ms=NOW_MS + 1_000))
    never = asyncio.Event()

    async def stall(request: httpx.Request) -> httpx.Response:
        await never.wait()
        raise AssertionError("unreachable")

    http = make_client(transport=httpx.MockTransport(stall))
    async with http:
        manager = open_credentials(settings_for(tmp_path), tmp_path / "data", http,
                                   clock_ms=lambda: NOW_MS, store=store,
                                   refresh_timeout_ms=50)
        with pytest.raises(AuthError) as info:
            await manager.access_token()
    assert info.value.reason == "refresh_timeout"
    assert info.value.message == "No new token within 0.05 s."
    assert info.value.remedy == Remedy("login")
    assert store.saves == 0
    # not the configured file: the given store was used
    assert not (tmp_path / "creds" / "cred.json").exists()


@pytest.mark.asyncio
async def test_a_manager_from_open_credentials_without_a_clock_uses_the_real_one(tmp_path):
    settings = settings_for(tmp_path)
    # expired by the real clock (but not by a clock that reads 0): refreshed before use
    cred = make_cred(expires_at_ms=NOW_MS)
    write_credential(tmp_path / "creds" / "cred.json", cred)
    service = FakeService(cred)
    http = make_client(transport=httpx.MockTransport(service.handler))
    async with http:
        manager = open_credentials(settings, tmp_path / "data", http)
        assert await manager.access_token() == Secret("at-issued-0002")
    saved = FileCredentialStore(tmp_path / "creds" / "cred.json").load()
    assert saved is not None and saved.expires_at_ms > NOW_MS + 28_800_000


# ---------------------------------------------------------------- login_by_redirect


async def browser_arrives(url: str) -> tuple[int, str]:
    """The browser's GET of the redirect: the listener's status and page."""
    parts = httpx.URL(url)
    reader, writer = await asyncio.open_connection("127.0.0.1", parts.port)
    target = parts.raw_path.decode()
    writer.write(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    await writer.drain()
    try:
        answer = await asyncio.wait_for(reader.read(), DEADLINE_S)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), body.decode()


async def sign_in(rig, query: str) -> tuple[tuple[int, str], object]:
    """A loopback sign-in whose browser arrives with `query` (`{state}` filled in): the
    browser's (status, page) and the sign-in's outcome (a Credential or the error)."""
    listener = await RedirectListener.open()
    attempt = rig.manager.begin_login(redirect_uri=listener.redirect_uri)
    login = asyncio.ensure_future(rig.manager.login_by_redirect(attempt, listener, DEADLINE_S))
    page = await browser_arrives(
        f"{listener.redirect_uri}?{query.format(state=attempt.state)}")
    try:
        outcome: object = await asyncio.wait_for(login, DEADLINE_S)
    except AuthError as exc:
        outcome = exc
    assert not listener.listening
    return page, (attempt, outcome)


@pytest.mark.asyncio
async def test_login_by_redirect_exchanges_the_code_saves_and_tells_the_browser(tmp_path):
    rig = build_rig(tmp_path, None)
    async with rig.http:
        (status, page), (attempt, cred) = await sign_in(rig, "code=the-code-0001&state={state}")
    assert status == 200 and "<h1>Signed in</h1>" in page
    assert ('<p id="message">You are signed in; you can close this tab and return to the '
            'notebook.</p>') in page
    assert rig.store.cred == cred and cred.access_token == Secret("at-issued-0002")
    (body,) = rig.service.token_requests
    assert body["code"] == "the-code-0001"
    assert body["code_verifier"] == attempt.verifier.reveal()
    assert body["redirect_uri"] == attempt.redirect_uri
    assert body["state"] == attempt.state
    assert Secret("the-code-0001") in rig.manager.known_secrets()


@pytest.mark.asyncio
async def test_login_by_redirect_with_another_state_fails_both_sides_and_sends_nothing(
        tmp_path):
    rig = build_rig(tmp_path, None)
    async with rig.http:
        (status, page), (_, error) = await sign_in(rig, "code=the-code-0001&state=other")
    assert isinstance(error, AuthError) and error.reason == "state_mismatch"
    assert status == 400 and "<h1>Sign-in failed</h1>" in page
    assert "Return to the notebook.</p>" in page
    assert "the-code-0001" not in page
    assert rig.service.requests == [] and rig.store.cred is None


@pytest.mark.asyncio
async def test_login_by_redirect_whose_code_is_refused_tells_the_browser_why(tmp_path):
    rig = build_rig(tmp_path, None)
    rig.service.token_answer = httpx.Response(400, json={"error": "invalid_grant"})
    async with rig.http:
        (status, page), (_, error) = await sign_in(rig, "code=the-code-0001&state={state}")
    assert isinstance(error, AuthError) and error.reason == "invalid_grant"
    assert status == 400 and "invalid_grant" in page and "Return to the notebook." in page
    assert rig.store.cred is None


@pytest.mark.asyncio
async def test_login_by_redirect_that_times_out_closes_its_listener(tmp_path):
    rig = build_rig(tmp_path, None)
    listener = await RedirectListener.open()
    attempt = rig.manager.begin_login(redirect_uri=listener.redirect_uri)
    async with rig.http:
        with pytest.raises(AuthError) as info:
            await rig.manager.login_by_redirect(attempt, listener, 0.05)
    assert info.value.reason == "login_timeout"
    assert not listener.listening and rig.service.requests == []
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", listener.port)


@pytest.mark.asyncio
async def test_open_credentials_judges_expiry_by_the_given_clock(tmp_path):
    settings = settings_for(tmp_path)
    # long expired by the real clock, far from expiry by the given one: used as it is
    write_credential(tmp_path / "creds" / "cred.json", make_cred(expires_at_ms=NOW_MS))
    service = FakeService(make_cred())
    http = make_client(transport=httpx.MockTransport(service.handler))
    async with http:
        manager = open_credentials(settings, tmp_path / "data", http, clock_ms=lambda: 0)
        assert await manager.access_token() == make_cred().access_token
    assert service.requests == []


@pytest.mark.asyncio
async def test_open_credentials_without_a_file_or_keyring_keeps_it_in_the_data_dir(
        tmp_path, monkeypatch):
    import keyring
    from keyring.backends import fail

    monkeypatch.setattr(keyring, "get_keyring", lambda: fail.Keyring())
    data_dir = tmp_path / "data"
    data_dir.mkdir()  # an existing data directory is used as it is
    http = make_client(transport=httpx.MockTransport(FakeService().handler))
    async with http:
        manager = open_credentials(settings_for(tmp_path, credentials_file=""), data_dir, http)
        await manager.save_credential(make_cred())
    assert FileCredentialStore(data_dir / "credentials.json").load() == make_cred()
    assert (data_dir / "credentials.json.lock").exists()


@pytest.mark.asyncio
async def test_open_credentials_signs_in_at_the_configured_page_and_client(tmp_path):
    settings = settings_for(tmp_path)
    narrow = make_cred(client_id=settings.oauth_client_id)
    write_credential(tmp_path / "creds" / "cred.json", narrow)
    service = FakeService(narrow)
    http = make_client(transport=httpx.MockTransport(service.handler))
    async with http:
        manager = open_credentials(settings, tmp_path / "data", http, clock_ms=lambda: NOW_MS)
        url = manager.begin_login().url
        assert url.startswith(settings.oauth_authorize_url + "?")
        assert httpx.URL(url).params["client_id"] == settings.oauth_client_id
        # a credential of the configured client can be expanded (not "custom_oauth_client")
        assert await manager.ensure_project_scopes() is not None
