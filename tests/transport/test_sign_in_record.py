"""The sign-in record the credential manager keeps (`transport/sign_in_record.py`): every
refresh with why, the login's redacted URL and exchange, refresh now, sign-out (from
memory and from the store, the keyring's entry too), discovery without a bearer, and no
token, code or verifier in any of it. Driven through httpx.MockTransport."""

from __future__ import annotations

import dataclasses
import json
import logging

import httpx
import pytest

from jupyter_design_projects.core import pkce
from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.core.scopes import LOGIN_SCOPES, PROJECT_SCOPES
from jupyter_design_projects.core.sign_in_steps import lines
from jupyter_design_projects.errors import AuthError, CredentialStoreError
from jupyter_design_projects.settings import FIRST_PARTY_CLIENT_ID
from jupyter_design_projects.transport.credential_manager import CredentialManager
from jupyter_design_projects.transport.credentials import (
    Credential,
    FileCredentialStore,
    KeyringCredentialStore,
)
from jupyter_design_projects.transport.http import make_client
from jupyter_design_projects.transport.sign_in_record import (
    SignInRecord,
    discover,
    discovery_urls,
)
from tests.transport.transport_doubles import NOW_MS, ORIGIN, build_rig, make_cred


def shown(manager: CredentialManager, status) -> str:
    """Everything a person could see of the record: the status, its dict and its lines."""
    return repr(status) + json.dumps(status.to_dict()) + "\n".join(lines(status, "sign in"))


def no_secret_shown(manager: CredentialManager, status, *also: str) -> None:
    secrets = [s.reveal() for s in manager.known_secrets()] + list(also)
    assert secrets
    text = shown(manager, status)
    assert not [s for s in secrets if s in text]


def why_of(step) -> str:
    return dict(step.fields)["why"]


@pytest.mark.asyncio
async def test_a_401_refresh_is_recorded_with_why_status_and_the_new_expiry(tmp_path):
    rig = build_rig(tmp_path, make_cred())
    async with rig.http:
        await rig.manager.refresh_after_401(Secret("at-initial-0001"))
        status = await rig.manager.status()
    last = status.last_refresh
    assert (last.kind, last.ok, why_of(last)) == ("refresh", True, "after_401")
    assert dict(last.fields)["status"] == "200"
    assert status.expires_at_ms == NOW_MS + 28_800_000
    assert status.scopes_asked == make_cred().scopes
    no_secret_shown(rig.manager, status, "at-initial-0001", "rt-initial-0001")


@pytest.mark.asyncio
async def test_a_token_about_to_expire_is_recorded_as_expiring(tmp_path):
    rig = build_rig(tmp_path, make_cred(expires_at_ms=NOW_MS + 1))
    async with rig.http:
        await rig.manager.access_token()
        status = await rig.manager.status()
    assert why_of(status.last_refresh) == "expiring"


@pytest.mark.asyncio
async def test_a_scope_expansion_is_recorded_with_the_scopes_it_asked_for(tmp_path):
    rig = build_rig(tmp_path, make_cred())
    async with rig.http:
        await rig.manager.ensure_project_scopes()
        status = await rig.manager.status()
    assert why_of(status.last_refresh) == "scope_expansion"
    assert set(PROJECT_SCOPES) <= set(status.scopes_asked) <= set(status.scopes_held)


@pytest.mark.asyncio
async def test_a_refused_refresh_is_recorded_as_a_failure_with_its_reason_and_status(tmp_path):
    rig = build_rig(tmp_path, make_cred(refresh_token=Secret("rt-unknown-0009")))
    rig.service.token_answer = httpx.Response(
        400, json={"error": "invalid_grant", "error_description": "rt-unknown-0009 is spent"})
    async with rig.http:
        with pytest.raises(AuthError):
            await rig.manager.refresh_after_401(Secret("at-initial-0001"))
        status = await rig.manager.status()
    failed = status.failures[-1]
    assert (failed.kind, failed.reason, dict(failed.fields)["status"]) == (
        "refresh", "invalid_grant", "400")
    assert "failed: invalid_grant" in "\n".join(lines(status))
    no_secret_shown(rig.manager, status, "rt-unknown-0009")


@pytest.mark.asyncio
async def test_refresh_now_changes_the_token_and_is_recorded_as_asked(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    rig = build_rig(tmp_path, make_cred())
    async with rig.http:
        fresh = await rig.manager.refresh_now()
        status = await rig.manager.status()
        saved = rig.store.cred
        await rig.manager.sign_out()
    assert "refreshed the access token" in caplog.text
    assert not [s for s in rig.manager.known_secrets() if s.reveal() in caplog.text]
    assert fresh.access_token != Secret("at-initial-0001")
    assert fresh.access_token in rig.manager.known_secrets()
    assert saved == fresh and rig.store.cred is None  # then signed out
    assert why_of(status.last_refresh) == "asked"
    assert "asked by you" in status.last_refresh.summary


@pytest.mark.asyncio
@pytest.mark.parametrize(("cred", "reason"), [(None, "no_token"),
                                              (make_cred(refresh_token=None),
                                               "no_refresh_token")])
async def test_refresh_now_with_nothing_to_refresh_says_why_and_sends_nothing(tmp_path, cred,
                                                                             reason):
    rig = build_rig(tmp_path, cred)
    async with rig.http:
        with pytest.raises(AuthError) as info:
            await rig.manager.refresh_now()
        status = await rig.manager.status()
    assert info.value.reason == reason
    assert rig.service.token_requests == []
    assert status.can_refresh is False
    assert (status.refresh_note() is None) is (cred is None)


@pytest.mark.asyncio
async def test_the_login_records_a_redacted_url_and_the_exchange_never_the_code(tmp_path):
    rig = build_rig(tmp_path, None)
    async with rig.http:
        attempt = rig.manager.begin_login()
        code = "the-authorization-code-1234"
        await rig.manager.finish_login(attempt, f"{code}#{attempt.state}")
        status = await rig.manager.status()
    url_step, exchange = status.steps
    url = dict(url_step.fields)["url"]
    challenge = pkce.challenge_for(attempt.verifier.reveal())
    assert attempt.state not in url and challenge not in url
    assert f"state={attempt.state[:6]}…" in url and "client_id=" in url
    assert (exchange.kind, exchange.ok, dict(exchange.fields)["status"]) == (
        "code_exchange", True, "200")
    assert status.scopes_asked == LOGIN_SCOPES
    no_secret_shown(rig.manager, status, code, attempt.verifier.reveal(), attempt.state,
                    challenge)


@pytest.mark.asyncio
async def test_a_refused_exchange_is_recorded_with_its_reason(tmp_path):
    rig = build_rig(tmp_path, None)
    rig.service.token_answer = httpx.Response(400, json={"error": "invalid_grant"})
    async with rig.http:
        attempt = rig.manager.begin_login()
        with pytest.raises(AuthError):
            await rig.manager.finish_login(attempt, f"code-5678#{attempt.state}")
        status = await rig.manager.status()
    failed = status.steps[-1]
    assert (failed.kind, failed.ok, failed.reason) == ("code_exchange", False, "invalid_grant")
    assert not status.signed_in
    no_secret_shown(rig.manager, status, "code-5678", attempt.verifier.reveal())


# ---------------------------------------------------------------- sign-out


@pytest.mark.asyncio
async def test_sign_out_forgets_deletes_and_the_next_token_is_not_signed_in(tmp_path):
    rig = build_rig(tmp_path, make_cred())
    async with rig.http:
        await rig.manager.access_token()
        assert await rig.manager.sign_out() is True
        with pytest.raises(AuthError) as info:
            await rig.manager.access_token()
        status = await rig.manager.status()
    assert rig.store.cred is None and rig.manager.current() is None
    assert info.value.reason == "no_token"
    # forgotten and deleted first; then the service is asked to revoke it (this fake has
    # no revocation endpoint: the failure is recorded, the sign-out stands)
    assert not status.signed_in
    assert [s.kind for s in status.steps[-2:]] == ["sign_out", "revoke"]
    assert status.steps[-2].ok and not status.steps[-1].ok
    # the old tokens stay known, so a trace or message that still holds one is redacted
    assert Secret("at-initial-0001") in rig.manager.known_secrets()


@pytest.mark.asyncio
async def test_a_credential_signed_out_elsewhere_is_not_written_back_by_a_refresh(tmp_path):
    rig = build_rig(tmp_path, make_cred())
    async with rig.http:
        await rig.manager.access_token()
        rig.store.cred = None  # another kernel's Sign out
        with pytest.raises(AuthError) as info:
            await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    assert info.value.reason == "no_token"
    assert rig.store.cred is None and rig.manager.current() is None
    assert rig.service.token_requests == []


class DeletableKeyring:
    """A keyring backend in memory that deletes as keyring's do (an error when absent)."""

    def __init__(self, keep: bool = False) -> None:
        self.values: dict = {}
        self.keep = keep

    def get_password(self, service, username):
        return self.values.get((service, username))

    def set_password(self, service, username, value):
        self.values[(service, username)] = value

    def delete_password(self, service, username):
        if (service, username) not in self.values:
            raise KeyError("no such password")
        if not self.keep:
            del self.values[(service, username)]


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["file", "keyring"])
async def test_sign_out_deletes_the_0600_file_or_the_keyring_entry(tmp_path, kind):
    backend = DeletableKeyring()
    store = (FileCredentialStore(tmp_path / "credentials.json") if kind == "file"
             else KeyringCredentialStore(backend=backend))
    store.save(make_cred())
    rig = build_rig(tmp_path, None)
    manager = CredentialManager(store, rig.oauth, client_id=FIRST_PARTY_CLIENT_ID,
                                lock_path=tmp_path / "credentials.lock",
                                clock_ms=lambda: NOW_MS)
    async with rig.http:
        assert (await manager.status()).signed_in
        assert await manager.sign_out() is True
        assert await manager.sign_out() is False  # a second one finds nothing
        status = await manager.status()
    assert store.load() is None and not status.signed_in
    assert backend.values == {} and not (tmp_path / "credentials.json").exists()


def test_a_keyring_that_keeps_the_entry_is_an_error_and_nothing_absent_is_one():
    store = KeyringCredentialStore(backend=DeletableKeyring(keep=True))
    store.delete()  # nothing stored: nothing to delete
    store.save(make_cred())
    with pytest.raises(CredentialStoreError) as info:
        store.delete()
    assert "still holds" in info.value.reason


def test_a_file_store_delete_removes_the_file_and_never_follows_a_link(tmp_path):
    store = FileCredentialStore(tmp_path / "credentials.json")
    store.delete()  # nothing stored
    store.save(make_cred())
    store.delete()
    assert not store.path.exists() and store.load() is None
    target = tmp_path / "elsewhere.json"
    target.write_text("kept")
    store.path.symlink_to(target)
    store.delete()
    assert not store.path.is_symlink() and target.read_text() == "kept"


# ---------------------------------------------------------------- discovery


def test_discovery_urls_follow_rfc_8414_and_rfc_9728():
    assert discovery_urls("https://a.example/v1/oauth/token", "https://b.example/v1/design/mcp/") \
        == (("authorization server", "https://a.example/.well-known/oauth-authorization-server"),
            ("protected resource",
             "https://b.example/.well-known/oauth-protected-resource/v1/design/mcp"))


@pytest.mark.asyncio
async def test_discovery_shows_the_fields_and_status_and_sends_no_bearer():
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("authorization-server"):
            return httpx.Response(200, json={"issuer": ORIGIN, "token_endpoint": "T",
                                             "code_challenge_methods_supported": ["S256"],
                                             "unlisted": "x" * 5000})
        return httpx.Response(404, json={"error": "not found"})

    record = SignInRecord(lambda: NOW_MS)
    async with make_client(transport=httpx.MockTransport(handler)) as http:
        http.headers["Authorization"] = "Bearer at-never-sent-0001"
        found = await discover(http, record, ORIGIN + "/v1/oauth/token",
                               ORIGIN + "/v1/design/mcp")
    server, resource = found
    assert server.ok and dict(server.fields) == {
        "url": ORIGIN + "/.well-known/oauth-authorization-server", "status": "200",
        "issuer": ORIGIN, "token_endpoint": "T", "code_challenge_methods_supported": "S256"}
    assert (resource.ok, resource.reason, dict(resource.fields)["status"]) == (
        False, "not_served", "404")
    assert record.discovery == found and record.steps() == ()
    assert len(seen) == 2


@pytest.mark.asyncio
async def test_a_status_never_shows_the_stored_tokens(tmp_path):
    cred = dataclasses.replace(make_cred(), access_token=Secret("at-secret-visible-77"))
    rig = build_rig(tmp_path, cred)
    async with rig.http:
        status = await rig.manager.status()
    assert isinstance(rig.store.cred, Credential) and status.signed_in
    no_secret_shown(rig.manager, status, "at-secret-visible-77", "rt-initial-0001")
