"""The credential manager: 401 refreshes, Projects scope expansion with each of its failure
reasons, and the PKCE login."""

import asyncio
import dataclasses
import logging

import httpx
import pytest

from jupyter_design_projects.core import pkce
from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.core.scopes import (
    BASE_SCOPES,
    DESIGN_SCOPES,
    LOGIN_SCOPES,
    PROJECT_SCOPES,
)
from jupyter_design_projects.errors import AuthError, CredentialStoreError, ScopeExpansionFailed
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.transport.credential_manager import (
    EXPIRY_SKEW_MS,
    REFRESH_TIMEOUT_MS,
    SCOPE_UPGRADE_NOTICE,
)
from tests.transport.transport_doubles import MemoryStore, build_rig, make_cred

NOW_MS = 1_700_000_000_000
EXPANDED = BASE_SCOPES + DESIGN_SCOPES + PROJECT_SCOPES


@pytest.mark.asyncio
async def test_a_stalled_refresh_is_given_up_after_5000_ms_by_default(tmp_path, monkeypatch):
    """A manager built without a bound waits 5 s for a new token: the bound is what the
    refresh hands to asyncio.timeout (shortened here so the test does not wait 5 s) and
    what the error tells the person."""
    rig = build_rig(tmp_path, make_cred())
    bounds: list[float] = []
    real_timeout = asyncio.timeout

    def recorded(delay):  # the refresh's own bound is the first; the token request's next
        bounds.append(delay)
        return real_timeout(0.05 if len(bounds) == 1 else delay)

    never = asyncio.Event()

    async def stall(request):
        await never.wait()

    rig.service.token_override = stall
    monkeypatch.setattr(asyncio, "timeout", recorded)
    async with rig.http:
        with pytest.raises(AuthError) as info:
            await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    assert bounds[0] == REFRESH_TIMEOUT_MS / 1000 == 5.0
    assert info.value.reason == "refresh_timeout"
    assert "No new token within 5 s" in info.value.message


# ---------------------------------------------------------------- access token and 401


@pytest.mark.asyncio
async def test_no_stored_credential_is_a_no_token_auth_error(tmp_path):
    rig = build_rig(tmp_path, None)
    async with rig.http:
        with pytest.raises(AuthError) as info:
            await rig.manager.access_token()
    assert (info.value.reason, info.value.message, info.value.remedy) == (
        "no_token", "Not signed in.", Remedy("login"))


@pytest.mark.asyncio
@pytest.mark.parametrize(("margin_ms", "refreshed"),
                         [(EXPIRY_SKEW_MS + 1, False), (EXPIRY_SKEW_MS, True)])
async def test_token_at_the_expiry_skew_is_refreshed_before_use(tmp_path, margin_ms, refreshed):
    rig = build_rig(tmp_path, make_cred(expires_at_ms=NOW_MS + margin_ms))
    async with rig.http:
        token = await rig.manager.access_token()
    assert (token != Secret("at-initial-0001")) is refreshed
    assert len(rig.service.token_requests) == int(refreshed)


@pytest.mark.asyncio
async def test_refresh_adopts_a_token_another_process_stored(rig):
    other = make_cred(access_token=Secret("at-other-process"))
    rig.store.cred = other
    token = await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    assert token == Secret("at-other-process")
    assert rig.service.token_requests == []


@pytest.mark.asyncio
async def test_refresh_keeps_the_scopes_it_had(rig):
    await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    assert rig.service.token_requests[0]["scope"] == " ".join(BASE_SCOPES + DESIGN_SCOPES)


@pytest.mark.asyncio
async def test_refused_refresh_tells_the_user_to_log_in(rig):
    rig.service.refresh.clear()  # the refresh token was revoked
    with pytest.raises(AuthError) as info:
        await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    assert info.value.reason == "refresh_failed"
    assert info.value.remedy == Remedy("login")


@pytest.mark.asyncio
async def test_refresh_that_does_not_answer_in_time_is_an_auth_error(tmp_path):
    rig = build_rig(tmp_path, make_cred(), refresh_timeout_ms=100)
    never = asyncio.Event()

    async def stall(request):
        await never.wait()

    rig.service.token_override = stall
    async with rig.http:
        with pytest.raises(AuthError) as info:
            await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    assert info.value.reason == "refresh_timeout"


@pytest.mark.asyncio
async def test_refresh_waits_for_another_process_lock_only_until_its_bound(
        tmp_path, lock_held_elsewhere):
    rig = build_rig(tmp_path, make_cred(), refresh_timeout_ms=100)
    async with rig.http:
        with pytest.raises(AuthError) as info:
            await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    assert info.value.reason == "refresh_timeout"
    assert rig.service.token_requests == []


@pytest.mark.asyncio
async def test_refreshed_credential_that_cannot_be_saved_is_still_used(rig):
    rig.store.fail_save = True
    token = await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    assert token == Secret("at-issued-0002")
    assert await rig.manager.access_token() == token


# ---------------------------------------------------------------- scope expansion


@pytest.mark.asyncio
async def test_expansion_refreshes_with_the_full_scope_list_and_returns_the_notice(rig):
    notice = await rig.manager.ensure_project_scopes()
    assert notice == SCOPE_UPGRADE_NOTICE
    (request,) = rig.service.token_requests
    assert request["scope"] == " ".join(EXPANDED)
    assert set(PROJECT_SCOPES) <= set(rig.store.cred.scopes)


@pytest.mark.asyncio
async def test_expansion_notice_is_given_once(rig):
    assert await rig.manager.ensure_project_scopes() == SCOPE_UPGRADE_NOTICE
    assert await rig.manager.ensure_project_scopes() is None
    assert len(rig.service.token_requests) == 1


@pytest.mark.asyncio
async def test_credential_that_already_has_project_scopes_needs_nothing(tmp_path):
    rig = build_rig(tmp_path, make_cred(scopes=EXPANDED))
    async with rig.http:
        assert await rig.manager.ensure_project_scopes() is None
    assert rig.service.token_requests == []


@pytest.mark.asyncio
async def test_concurrent_expansions_in_one_process_make_one_request(rig):
    notices = await asyncio.gather(*(rig.manager.ensure_project_scopes() for _ in range(5)))
    assert notices.count(SCOPE_UPGRADE_NOTICE) == 1
    assert len(rig.service.token_requests) == 1


@pytest.mark.asyncio
async def test_expansion_another_process_stored_is_adopted_without_a_request(rig):
    await rig.manager.access_token()  # this process has seen the narrow credential
    rig.store.cred = make_cred(access_token=Secret("at-expanded-001"), scopes=EXPANDED)
    assert await rig.manager.ensure_project_scopes() == SCOPE_UPGRADE_NOTICE
    assert rig.service.token_requests == []
    assert await rig.manager.access_token() == Secret("at-expanded-001")


async def _expansion_failure(rig):
    with pytest.raises(ScopeExpansionFailed) as info:
        await rig.manager.ensure_project_scopes()
    return info.value.reason


@pytest.mark.asyncio
async def test_policy_off_refuses_before_anything_else(rig):
    with pytest.raises(ScopeExpansionFailed) as info:
        await rig.manager.ensure_project_scopes(policy_allows=False)
    assert info.value.reason == "policy_disabled"
    assert rig.service.requests == []


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("cred", "reason"),
    [
        (None, "no_token"),
        (make_cred(client_id="someone-elses-client"), "custom_oauth_client"),
        (make_cred(refresh_token=None), "no_refresh_token"),
    ],
)
async def test_unexpandable_credentials_are_refused_without_a_request(tmp_path, cred, reason):
    rig = build_rig(tmp_path, cred)
    async with rig.http:
        assert await _expansion_failure(rig) == reason
    assert rig.service.requests == []


@pytest.mark.asyncio
async def test_lock_held_by_another_process_is_contention(tmp_path, lock_held_elsewhere):
    rig = build_rig(tmp_path, make_cred(), lock_timeout_ms=50)
    async with rig.http:
        assert await _expansion_failure(rig) == "lock_contended"
    assert rig.service.requests == []


@pytest.mark.asyncio
async def test_refresh_token_rotated_by_another_process_is_refreshed_elsewhere(rig):
    await rig.manager.access_token()
    original = rig.store.cred

    def sibling_rotates(request):
        # another process, not using the lock, rotated the refresh token meanwhile
        rig.store.cred = dataclasses.replace(original, refresh_token=Secret("rt-sibling-001"))
        return httpx.Response(400, json={"error": "invalid_grant"})

    rig.service.token_override = sibling_rotates
    assert await _expansion_failure(rig) == "refreshed_elsewhere"


@pytest.mark.asyncio
async def test_refused_expansion_refresh_is_refresh_refused(rig):
    rig.service.refresh.clear()
    assert await _expansion_failure(rig) == "refresh_refused"


@pytest.mark.asyncio
async def test_unsaved_expansion_is_save_failed(rig):
    rig.store.fail_save = True
    assert await _expansion_failure(rig) == "save_failed"


@pytest.mark.asyncio
async def test_store_that_drops_the_write_is_save_failed(rig):
    rig.store.drop_writes = True
    assert await _expansion_failure(rig) == "save_failed"


@pytest.mark.asyncio
async def test_narrower_grant_is_scopes_not_granted_and_the_rotated_token_is_kept(rig):
    rig.service.narrow = {"user:projects:write"}
    assert await _expansion_failure(rig) == "scopes_not_granted"
    assert rig.store.cred.refresh_token == Secret("rt-issued-0002")


# ---------------------------------------------------------------- login


@pytest.mark.asyncio
async def test_login_sends_the_verifier_of_the_challenge_in_the_url_and_saves(tmp_path):
    rig = build_rig(tmp_path, None)
    attempt = rig.manager.begin_login()
    query = httpx.URL(attempt.url).params
    assert query["scope"] == " ".join(LOGIN_SCOPES)
    assert query["state"] == attempt.state
    assert query["code_challenge"] == pkce.challenge_for(attempt.verifier.reveal())
    async with rig.http:
        cred = await rig.manager.finish_login(attempt, f"the-code-0001#{attempt.state}")
    body = rig.service.token_requests[0]
    assert body["code"] == "the-code-0001"
    assert body["code_verifier"] == attempt.verifier.reveal()
    assert rig.store.cred == cred
    assert await rig.manager.access_token() == cred.access_token


@pytest.mark.asyncio
async def test_login_with_another_attempts_state_sends_nothing(tmp_path):
    rig = build_rig(tmp_path, None)
    attempt = rig.manager.begin_login()
    async with rig.http:
        with pytest.raises(AuthError) as info:
            await rig.manager.finish_login(attempt, "the-code-0001#not-the-state")
    assert info.value.reason == "state_mismatch"
    assert rig.service.requests == []


def test_each_login_attempt_has_its_own_state_and_verifier(tmp_path):
    rig = build_rig(tmp_path, None)
    first, second = rig.manager.begin_login(), rig.manager.begin_login()
    assert first.state != second.state and first.verifier != second.verifier
    assert first.verifier.reveal() not in repr(first)


@pytest.mark.asyncio
async def test_saving_while_another_process_holds_the_lock_is_a_store_error(
        tmp_path, lock_held_elsewhere):
    rig = build_rig(tmp_path, None, lock_timeout_ms=50)
    with pytest.raises(CredentialStoreError) as info:
        await rig.manager.save_credential(make_cred())
    await rig.http.aclose()
    assert (info.value.store, info.value.reason) == ("memory", "locked by another process")
    assert rig.store.cred is None


# ---------------------------------------------------------------- a store left behind


@pytest.mark.asyncio
async def test_after_a_failed_save_the_next_refresh_uses_the_live_refresh_token(rig):
    rig.store.fail_save = True
    first = await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    rig.store.fail_save = False
    second = await rig.manager.refresh_after_401(first)
    assert [r["refresh_token"] for r in rig.service.token_requests] == [
        "rt-initial-0001", "rt-issued-0002"]
    assert second == Secret("at-issued-0003")
    assert rig.store.cred.access_token == second


@pytest.mark.asyncio
async def test_after_a_failed_save_expansion_refreshes_with_the_live_refresh_token(rig):
    rig.store.fail_save = True
    await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    rig.store.fail_save = False
    assert await rig.manager.ensure_project_scopes() == SCOPE_UPGRADE_NOTICE
    assert rig.service.token_requests[-1]["refresh_token"] == "rt-issued-0002"


@pytest.mark.asyncio
async def test_a_store_another_process_rewrote_is_still_adopted_after_a_failed_save(rig):
    rig.store.fail_save = True
    await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    rig.store.cred = make_cred(access_token=Secret("at-other-process"))
    token = await rig.manager.refresh_after_401(Secret("at-issued-0002"))
    assert token == Secret("at-other-process")
    assert len(rig.service.token_requests) == 1


def test_the_scope_upgrade_notice_is_plain_words():
    """A new user's first Projects call shows it: no scope names, no developer words."""
    from jupyter_design_projects.core.scopes import PROJECT_SCOPES

    assert not any(scope in SCOPE_UPGRADE_NOTICE for scope in PROJECT_SCOPES)
    assert "Nothing to do" not in SCOPE_UPGRADE_NOTICE
    assert SCOPE_UPGRADE_NOTICE.startswith("Signed in to this notebook's Project")


# ---------------------------------------------------------------- what each expansion failure says


async def _expansion_error(rig) -> ScopeExpansionFailed:
    with pytest.raises(ScopeExpansionFailed) as info:
        await rig.manager.ensure_project_scopes()
    return info.value


@pytest.mark.asyncio
async def test_refused_expansion_carries_what_the_token_endpoint_said(rig):
    rig.service.refresh.clear()
    error = await _expansion_error(rig)
    assert (error.reason, error.detail) == ("refresh_refused", "invalid_grant")


@pytest.mark.asyncio
async def test_an_expansion_refresh_that_never_answers_is_refused_after_the_bound(tmp_path):
    rig = build_rig(tmp_path, make_cred(), refresh_timeout_ms=50)
    never = asyncio.Event()

    async def stall(request):
        await never.wait()

    rig.service.token_override = stall
    async with rig.http:
        error = await _expansion_error(rig)
    assert (error.reason, error.detail) == ("refresh_refused", "timeout")


@pytest.mark.asyncio
async def test_unsaved_expansion_names_the_stores_reason(rig):
    rig.store.fail_save = True
    error = await _expansion_error(rig)
    assert (error.reason, error.detail) == ("save_failed", "disk full")


@pytest.mark.asyncio
async def test_an_expansion_the_store_dropped_says_so(rig):
    rig.store.drop_writes = True
    error = await _expansion_error(rig)
    assert (error.reason, error.detail) == ("save_failed", "the store did not keep it")


class UnreadableAfter(MemoryStore):
    """A store whose reads fail from the `after`-th one on (a file made unreadable)."""

    def __init__(self, cred, after: int) -> None:
        super().__init__(cred)
        self.reads, self.after = 0, after

    def load(self):
        self.reads += 1
        if self.reads >= self.after:
            raise CredentialStoreError("memory", "cannot open (Permission denied)")
        return self.cred


@pytest.mark.asyncio
@pytest.mark.parametrize("after", [1, 2])  # the first read, or the re-read under the lock
async def test_a_store_that_cannot_be_read_is_no_token_with_its_reason(tmp_path, after):
    rig = build_rig(tmp_path, make_cred())
    rig.manager._store = rig.store = UnreadableAfter(make_cred(), after)
    async with rig.http:
        error = await _expansion_error(rig)
    assert (error.reason, error.detail) == ("no_token", "cannot open (Permission denied)")
    assert rig.service.requests == []


@pytest.mark.asyncio
async def test_expansion_logs_whether_it_expanded_or_adopted(rig, caplog):
    caplog.set_level(logging.INFO, "jupyter_design_projects.transport.credential_manager")
    await rig.manager.ensure_project_scopes()
    assert caplog.messages == ["expanded the credential with the project scopes"]


@pytest.mark.asyncio
async def test_adopting_another_process_expansion_is_logged_as_such(rig, caplog):
    await rig.manager.access_token()
    rig.store.cred = make_cred(access_token=Secret("at-expanded-001"), scopes=EXPANDED)
    caplog.set_level(logging.INFO, "jupyter_design_projects.transport.credential_manager")
    assert await rig.manager.ensure_project_scopes() == SCOPE_UPGRADE_NOTICE
    assert caplog.messages == ["adopted project scopes another process added"]


@pytest.mark.asyncio
async def test_a_narrow_credential_another_process_stored_is_expanded_not_adopted(rig):
    await rig.manager.access_token()
    rig.store.cred = make_cred(access_token=Secret("at-other-narrow"),
                               refresh_token=Secret("rt-initial-0001"))
    assert await rig.manager.ensure_project_scopes() == SCOPE_UPGRADE_NOTICE
    assert len(rig.service.token_requests) == 1
    assert set(PROJECT_SCOPES) <= set(rig.manager.current().scopes)


def test_a_login_attempt_carries_32_random_bytes_of_verifier_and_24_of_state(tmp_path):
    attempt = build_rig(tmp_path, None).manager.begin_login()
    assert (len(attempt.verifier.reveal()), len(attempt.state)) == (43, 32)


def test_a_login_attempt_sends_the_browser_back_to_its_redirect_uri(tmp_path):
    manager = build_rig(tmp_path, None).manager
    to_listener = manager.begin_login(redirect_uri="http://127.0.0.1:5555/callback")
    assert to_listener.redirect_uri == "http://127.0.0.1:5555/callback"
    assert httpx.URL(to_listener.url).params["redirect_uri"] == to_listener.redirect_uri
    to_code_page = manager.begin_login()
    assert to_code_page.redirect_uri is None
    assert httpx.URL(to_code_page.url).params["redirect_uri"].endswith("/oauth/code/callback")


@pytest.mark.asyncio
async def test_a_login_remembers_its_code_and_verifier_for_redaction(tmp_path):
    rig = build_rig(tmp_path, None)
    attempt = rig.manager.begin_login()
    async with rig.http:
        await rig.manager.finish_login(attempt, f"the-code-0001#{attempt.state}")
    known = rig.manager.known_secrets()
    assert Secret("the-code-0001") in known and attempt.verifier in known


@pytest.mark.asyncio
async def test_load_stored_reads_the_store_once_and_then_holds_the_credential(tmp_path):
    rig = build_rig(tmp_path, make_cred())
    assert await rig.manager.load_stored() == make_cred()
    rig.store.cred = make_cred(access_token=Secret("at-elsewhere-0009"))
    assert await rig.manager.load_stored() == make_cred()
    assert rig.service.requests == []
    await rig.http.aclose()


@pytest.mark.asyncio
async def test_load_stored_without_a_credential_is_none(tmp_path):
    rig = build_rig(tmp_path, None)
    assert await rig.manager.load_stored() is None
    await rig.http.aclose()


@pytest.mark.asyncio
async def test_a_failed_save_after_a_saved_refresh_still_refreshes_with_the_live_token(rig):
    first = await rig.manager.refresh_after_401(Secret("at-initial-0001"))  # saved
    rig.store.fail_save = True
    second = await rig.manager.refresh_after_401(first)  # not saved: the store holds `first`
    rig.store.fail_save = False
    third = await rig.manager.refresh_after_401(second)
    assert [r["refresh_token"] for r in rig.service.token_requests] == [
        "rt-initial-0001", "rt-issued-0002", "rt-issued-0003"]
    assert third == Secret("at-issued-0004") and rig.store.cred.access_token == third


@pytest.mark.asyncio
async def test_a_refresh_without_any_credential_says_to_sign_in(tmp_path):
    rig = build_rig(tmp_path, None)
    async with rig.http:
        with pytest.raises(AuthError) as info:
            await rig.manager.refresh_after_401(Secret("at-gone-00000001"))
    assert (info.value.reason, info.value.message, info.value.remedy) == (
        "no_token", "Not signed in.", Remedy("login"))
    assert rig.service.requests == []


@pytest.mark.asyncio
async def test_a_refresh_the_token_endpoint_refused_says_why_and_what_to_do(rig):
    rig.service.token_answer = httpx.Response(400, json={"error": "invalid_grant"})
    with pytest.raises(AuthError) as info:
        await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    assert (info.value.reason, info.value.message, info.value.remedy) == (
        "refresh_failed", "The token could not be refreshed (invalid_grant).", Remedy("login"))


@pytest.mark.asyncio
async def test_a_refresh_that_could_not_reach_the_endpoint_names_the_failure(rig):
    def broken(request):
        raise httpx.ConnectError("refused", request=request)

    rig.service.token_override = broken
    with pytest.raises(AuthError) as info:
        await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    assert (info.value.reason, info.value.message, info.value.remedy) == (
        "refresh_failed", "The token could not be refreshed (transport_error).",
        Remedy("login"))


@pytest.mark.asyncio
async def test_refreshes_are_logged_as_made_adopted_or_unsaved(rig, caplog):
    caplog.set_level(logging.INFO, logger="jupyter_design_projects.transport.credential_manager")
    rig.store.fail_save = True
    await rig.manager.refresh_after_401(Secret("at-initial-0001"))
    rig.store.cred = make_cred(access_token=Secret("at-other-process"))
    await rig.manager.refresh_after_401(Secret("at-issued-0002"))
    assert [r.getMessage() for r in caplog.records] == [
        "the refreshed credential could not be saved (disk full)",
        "refreshed the access token",
        "adopted a token another process refreshed"]


@pytest.mark.asyncio
async def test_a_manager_without_a_clock_keeps_a_token_valid_for_an_hour(tmp_path):
    import time

    from jupyter_design_projects.transport.credential_manager import CredentialManager

    cred = make_cred(expires_at_ms=int(time.time() * 1000) + 3_600_000)
    rig = build_rig(tmp_path, cred)
    manager = CredentialManager(rig.store, rig.oauth, client_id=cred.client_id,
                                lock_path=tmp_path / "credentials.lock")
    async with rig.http:
        assert await manager.access_token() == cred.access_token
    assert rig.service.requests == []
