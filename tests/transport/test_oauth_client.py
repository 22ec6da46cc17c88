"""The token endpoint client: JSON bodies, the full scope list, and flat OAuth errors mapped to
reasons."""

import json
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.core.scopes import BASE_SCOPES, PROJECT_SCOPES
from jupyter_design_projects.errors import AuthError
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.settings import FIRST_PARTY_CLIENT_ID
from jupyter_design_projects.transport.http import make_client
from jupyter_design_projects.transport.oauth import OAuthClient
from tests.transport.transport_doubles import AUTHORIZE_URL, NOW_MS, TOKEN_URL, make_cred


def oauth_answering(response, seen=None):
    def handler(request):
        if seen is not None:
            seen.append(request)
        return response

    http = make_client(transport=httpx.MockTransport(handler))
    return http, OAuthClient(http, TOKEN_URL, AUTHORIZE_URL, FIRST_PARTY_CLIENT_ID,
                             clock_ms=lambda: NOW_MS)


TOKEN_ANSWER = {"token_type": "Bearer", "access_token": "at-new-00000001",
                "refresh_token": "rt-new-00000001", "expires_in": 28800,
                "scope": "user:profile user:projects:read"}


@pytest.mark.asyncio
async def test_refresh_sends_json_with_the_full_scope_list():
    seen = []
    http, oauth = oauth_answering(httpx.Response(200, json=TOKEN_ANSWER), seen)
    async with http:
        cred = await oauth.refresh(make_cred(), BASE_SCOPES + PROJECT_SCOPES)
    (request,) = seen
    assert request.headers["content-type"] == "application/json"
    assert "authorization" not in request.headers
    assert json.loads(request.content) == {
        "grant_type": "refresh_token",
        "refresh_token": "rt-initial-0001",
        "client_id": FIRST_PARTY_CLIENT_ID,
        "scope": " ".join(BASE_SCOPES + PROJECT_SCOPES),
    }
    assert cred.access_token == Secret("at-new-00000001")
    assert cred.refresh_token == Secret("rt-new-00000001")
    assert cred.expires_at_ms == NOW_MS + 28_800_000
    assert cred.scopes == ("user:profile", "user:projects:read")


@pytest.mark.asyncio
async def test_answer_without_refresh_token_or_scope_keeps_the_old_one_and_the_request():
    answer = {"access_token": "at-new-00000001", "expires_in": 60}
    http, oauth = oauth_answering(httpx.Response(200, json=answer))
    async with http:
        cred = await oauth.refresh(make_cred(), ("user:profile",))
    assert cred.refresh_token == Secret("rt-initial-0001")
    assert cred.scopes == ("user:profile",)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "body", "reason"),
    [
        (400, {"error": "invalid_grant"}, "invalid_grant"),
        (400, {"error": "invalid_scope", "error_description": "x"}, "invalid_scope"),
        (400, {"error": "invalid_request"}, "invalid_request"),
        (401, {"error": "invalid_client"}, "invalid_client"),
        (400, {"error": "something_else"}, "token_endpoint_error"),
        (500, {"type": "error"}, "token_endpoint_error"),
        (200, {"access_token": ""}, "token_endpoint_error"),
        (200, {"access_token": "at-x-00000001", "expires_in": "soon"}, "token_endpoint_error"),
        (200, ["not", "an", "object"], "token_endpoint_error"),
    ],
)
async def test_token_endpoint_errors_map_to_auth_error_reasons(status, body, reason):
    http, oauth = oauth_answering(httpx.Response(status, json=body))
    async with http:
        with pytest.raises(AuthError) as info:
            await oauth.refresh(make_cred(), BASE_SCOPES)
    assert info.value.reason == reason


@pytest.mark.asyncio
async def test_error_description_echoing_the_refresh_token_is_redacted():
    body = {"error": "invalid_grant", "error_description": "bad token rt-initial-0001"}
    http, oauth = oauth_answering(httpx.Response(400, json=body))
    async with http:
        with pytest.raises(AuthError) as info:
            await oauth.refresh(make_cred(), BASE_SCOPES)
    assert "rt-initial-0001" not in str(info.value)


@pytest.mark.asyncio
async def test_refresh_without_refresh_token_sends_nothing():
    seen = []
    http, oauth = oauth_answering(httpx.Response(200, json=TOKEN_ANSWER), seen)
    async with http:
        with pytest.raises(AuthError) as info:
            await oauth.refresh(make_cred(refresh_token=None), BASE_SCOPES)
    assert info.value.reason == "no_refresh_token"
    assert seen == []


@pytest.mark.asyncio
async def test_code_exchange_sends_code_verifier_state_and_redirect_uri():
    seen = []
    http, oauth = oauth_answering(httpx.Response(200, json=TOKEN_ANSWER), seen)
    async with http:
        await oauth.exchange_code(code=Secret("code-00000001"), verifier=Secret("v" * 43),
                                  state="st1", scopes=BASE_SCOPES)
    body = json.loads(seen[0].content)
    assert body == {"grant_type": "authorization_code", "code": "code-00000001",
                    "code_verifier": "v" * 43, "client_id": FIRST_PARTY_CLIENT_ID,
                    "redirect_uri": oauth.redirect_uri, "state": "st1"}


def test_authorize_url_carries_every_pkce_parameter():
    http, oauth = oauth_answering(httpx.Response(200))
    url = oauth.authorize_url_for(state="st1", challenge="ch1", scopes=BASE_SCOPES)
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == AUTHORIZE_URL
    assert {k: v[0] for k, v in parse_qs(parts.query).items()} == {
        "response_type": "code", "client_id": FIRST_PARTY_CLIENT_ID,
        "redirect_uri": oauth.redirect_uri, "scope": " ".join(BASE_SCOPES), "state": "st1",
        "code_challenge": "ch1", "code_challenge_method": "S256",
    }


async def refusal(status, body) -> AuthError:
    http, oauth = oauth_answering(httpx.Response(status, json=body))
    async with http:
        with pytest.raises(AuthError) as info:
            await oauth.refresh(make_cred(), BASE_SCOPES)
    return info.value


@pytest.mark.asyncio
@pytest.mark.parametrize("length, shown", [(300, "d" * 300 + ")"), (301, "d" * 300 + "…)")])
async def test_an_oauth_refusal_shows_its_description_cut_at_300_characters(length, shown):
    error = await refusal(400, {"error": "invalid_grant", "error_description": "d" * length})
    assert error.reason == "invalid_grant"
    assert f"(invalid_grant: {shown}" in error.message
    assert error.remedy == Remedy("login")


@pytest.mark.asyncio
@pytest.mark.parametrize("description", ["", 5, None, ["text"]])
async def test_an_oauth_refusal_without_a_text_description_names_only_its_kind(description):
    error = await refusal(400, {"error": "invalid_scope", "error_description": description})
    assert error.reason == "invalid_scope"
    assert "(invalid_scope)." in error.message


@pytest.mark.asyncio
async def test_an_oauth_refusal_redacts_the_refresh_token_before_cutting():
    error = await refusal(400, {"error": "invalid_grant",
                                "error_description": "d" * 290 + " rt-initial-0001 tail"})
    assert "rt-initial" not in error.message and "[redacted" in error.message


@pytest.mark.asyncio
@pytest.mark.parametrize("status, body", [(503, {"error": "temporarily_unavailable"}),
                                          (502, "gateway"), (400, {"error": 5})])
async def test_an_answer_that_is_no_oauth_refusal_names_its_status(status, body):
    error = await refusal(status, body)
    assert error.reason == "token_endpoint_error"
    assert f"answered HTTP {status}." in error.message
    assert error.remedy == Remedy("login")


# ---------------------------------------------------------------- each answer, exactly

GOOD = {"access_token": "at-new-00000001", "refresh_token": "rt-new-00000001",
        "expires_in": 60, "scope": "user:profile"}


async def refreshed(body, status=200, cred=None):
    http, oauth = oauth_answering(httpx.Response(status, json=body))
    async with http:
        return await oauth.refresh(cred or make_cred(), ("user:inference",))


@pytest.mark.asyncio
@pytest.mark.parametrize("change", [
    {"access_token": None}, {"access_token": 5}, {"access_token": ""},
    {"refresh_token": 5}, {"expires_in": "60"}, {"expires_in": True}, {"expires_in": 1.5},
    {"scope": 5}, {"scope": ["user:profile"]},
])
async def test_each_malformed_token_answer_is_refused_with_the_remedy(change):
    body = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    with pytest.raises(AuthError) as info:
        await refreshed(body)
    assert info.value.reason == "token_endpoint_error"
    assert info.value.message == "The token endpoint's answer is malformed."
    assert info.value.remedy == Remedy("login")


@pytest.mark.asyncio
@pytest.mark.parametrize("body", [["a", "list"], "text", 5])
async def test_a_token_answer_that_is_no_object_is_refused_with_the_remedy(body):
    with pytest.raises(AuthError) as info:
        await refreshed(body)
    assert info.value.reason == "token_endpoint_error"
    assert info.value.message == "The token endpoint's answer is not a JSON object."
    assert info.value.remedy == Remedy("login")


@pytest.mark.asyncio
@pytest.mark.parametrize(("change", "expires_at", "refresh", "scopes"), [
    ({}, NOW_MS + 60_000, "rt-new-00000001", ("user:profile",)),
    ({"expires_in": None}, NOW_MS + 3_600_000, "rt-new-00000001", ("user:profile",)),
    ({"refresh_token": None}, NOW_MS + 60_000, "rt-initial-0001", ("user:profile",)),
    ({"refresh_token": ""}, NOW_MS + 60_000, "rt-initial-0001", ("user:profile",)),
    ({"scope": None}, NOW_MS + 60_000, "rt-new-00000001", ("user:inference",)),
    ({"scope": ""}, NOW_MS + 60_000, "rt-new-00000001", ()),
])
async def test_each_token_answer_field_becomes_the_credential(change, expires_at, refresh,
                                                              scopes):
    body = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    cred = await refreshed(body)
    assert cred == make_cred(access_token=Secret("at-new-00000001"),
                             refresh_token=Secret(refresh), expires_at_ms=expires_at,
                             scopes=scopes)


@pytest.mark.asyncio
async def test_refresh_without_a_refresh_token_tells_the_person_to_sign_in():
    with pytest.raises(AuthError) as info:
        await refreshed(GOOD, cred=make_cred(refresh_token=None))
    assert (info.value.reason, info.value.message) == (
        "no_refresh_token", "The credential has no refresh token.")
    assert info.value.remedy == Remedy("login")


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["invalid_grant", "invalid_scope", "invalid_client",
                                  "invalid_request"])
async def test_each_oauth_refusal_is_named_with_the_remedy(kind):
    with pytest.raises(AuthError) as info:
        await refreshed({"error": kind, "error_description": "why"}, status=400)
    assert (info.value.reason, info.value.message) == (
        kind, f"The token endpoint refused the request ({kind}: why).")
    assert info.value.remedy == Remedy("login")


@pytest.mark.asyncio
@pytest.mark.parametrize("body", [{"error": "server_error"}, {"type": "error"}, ["error"]])
async def test_any_other_refusal_names_its_status_with_the_remedy(body):
    with pytest.raises(AuthError) as info:
        await refreshed(body, status=502)
    assert (info.value.reason, info.value.message) == (
        "token_endpoint_error", "The token endpoint answered HTTP 502.")
    assert info.value.remedy == Remedy("login")


@pytest.mark.asyncio
async def test_a_refusal_whose_body_is_not_json_names_its_status():
    http, oauth = oauth_answering(httpx.Response(400, text="invalid_grant"))
    async with http:
        with pytest.raises(AuthError) as info:
            await oauth.refresh(make_cred(), BASE_SCOPES)
    assert info.value.reason == "token_endpoint_error"


@pytest.mark.asyncio
async def test_a_refusal_redacts_the_code_and_verifier_of_a_login():
    body = {"error": "invalid_grant", "error_description": "code code-00000001 with v" + "v" * 42}
    http, oauth = oauth_answering(httpx.Response(400, json=body))
    async with http:
        with pytest.raises(AuthError) as info:
            await oauth.exchange_code(code=Secret("code-00000001"), verifier=Secret("v" * 43),
                                      state="st1", scopes=BASE_SCOPES)
    assert "code-00000001" not in info.value.message and "v" * 43 not in info.value.message


@pytest.mark.asyncio
async def test_a_login_credential_has_the_asked_scopes_when_the_answer_names_none():
    answer = {"access_token": "at-new-00000001", "refresh_token": "rt-new-00000001"}
    seen = []
    http, oauth = oauth_answering(httpx.Response(200, json=answer), seen)
    async with http:
        cred = await oauth.exchange_code(code=Secret("code-00000001"),
                                         verifier=Secret("v" * 43), state="st1",
                                         scopes=BASE_SCOPES)
    assert cred.scopes == BASE_SCOPES and cred.client_id == FIRST_PARTY_CLIENT_ID
    assert seen[0].extensions["jdp_action"] == "oauth login"


def test_the_code_page_is_on_the_authorize_pages_origin():
    http, oauth = oauth_answering(httpx.Response(200))
    assert oauth.redirect_uri == "http://127.0.0.1:8123/oauth/code/callback"


@pytest.mark.asyncio
async def test_a_token_request_is_a_post_within_the_deadline():
    import asyncio
    import time

    from jupyter_design_projects.errors import DeadlineExceeded

    never = asyncio.Event()

    async def stall(request):
        await never.wait()

    seen = []

    def record(request):
        seen.append(request)
        return httpx.Response(200, json=TOKEN_ANSWER)

    http = make_client(transport=httpx.MockTransport(record))
    async with http:
        oauth = OAuthClient(http, TOKEN_URL, AUTHORIZE_URL, FIRST_PARTY_CLIENT_ID)
        before = int(time.time() * 1000)
        cred = await oauth.refresh(make_cred(), BASE_SCOPES)
        after = int(time.time() * 1000)
    assert seen[0].method == "POST"
    assert before + 28_800_000 <= cred.expires_at_ms <= after + 28_800_000
    http = make_client(transport=httpx.MockTransport(stall))
    async with http:
        oauth = OAuthClient(http, TOKEN_URL, AUTHORIZE_URL, FIRST_PARTY_CLIENT_ID,
                            deadline_s=0.05)
        with pytest.raises(DeadlineExceeded) as info:
            await oauth.refresh(make_cred(), BASE_SCOPES)
    assert (info.value.action, info.value.seconds) == ("oauth refresh", 0.05)
