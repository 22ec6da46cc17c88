"""The bearer auth flow driven by hand (no network), then through a real client: allowlist, one
refresh, one retry, shared refreshes."""

import asyncio

import httpx
import pytest

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.errors import AuthError, OriginNotAllowed, ResponseTooLarge
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.transport.auth import (
    REJECTED_BODY_MAX_BYTES,
    BearerAuth,
    origin,
)
from jupyter_design_projects.transport.http import send
from tests.transport.transport_doubles import ORIGIN


class StubManager:
    """Just enough of CredentialManager for driving the flow by hand."""

    def __init__(self, token="at-current-0001", fresh="at-fresh-0002"):
        self.token = Secret(token)
        self.fresh = Secret(fresh)
        self.refreshes: list[Secret] = []

    async def access_token(self):
        return self.token

    async def refresh_after_401(self, rejected):
        self.refreshes.append(rejected)
        self.token = self.fresh
        return self.fresh


def answer(status, body=b"{}"):
    return httpx.Response(status, content=body)


def streamed(status, body):
    """An answer whose body arrives as a stream (not read yet), as from a real transport."""

    async def chunks():
        for start in range(0, len(body), 4096):
            yield body[start:start + 4096]

    return httpx.Response(status, content=chunks())


def flow_for(manager, url=ORIGIN + "/v1/design/mcp", headers=None, origins=(ORIGIN,)):
    request = httpx.Request("POST", url, headers=headers)
    return BearerAuth(manager, frozenset(origins)).async_auth_flow(request), request


async def started(manager, **request):
    """A flow that has yielded its first request: (the flow, the request as sent)."""
    flow, _ = flow_for(manager, **request)
    return flow, await flow.__anext__()


@pytest.mark.asyncio
async def test_token_is_attached_for_an_allowed_origin():
    flow, sent = await started(StubManager())
    assert sent.headers["authorization"] == "Bearer at-current-0001"
    with pytest.raises(StopAsyncIteration):
        await flow.asend(answer(200))


@pytest.mark.asyncio
async def test_first_401_refreshes_once_and_retries_once_with_the_new_token():
    manager = StubManager()
    flow, _ = await started(manager)
    retried = await flow.asend(answer(401))
    assert retried.headers["authorization"] == "Bearer at-fresh-0002"
    assert manager.refreshes == [Secret("at-current-0001")]
    with pytest.raises(StopAsyncIteration):
        await flow.asend(answer(200))


@pytest.mark.asyncio
async def test_second_401_is_not_retried():
    manager = StubManager()
    flow, _ = await started(manager)
    await flow.asend(answer(401))
    with pytest.raises(AuthError) as info:
        await flow.asend(answer(401))
    assert info.value.reason == "unauthorized_after_refresh"
    assert len(manager.refreshes) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "url",
    [
        "http://evil.example/v1/design/mcp",
        "http://127.0.0.1:8124/v1/design/mcp",  # another port
        "https://127.0.0.1:8123/v1/design/mcp",  # another scheme
        "http://localhost:8123/v1/design/mcp",  # another spelling of the host
    ],
)
async def test_token_is_never_sent_to_another_origin(url):
    manager = StubManager()
    flow, request = flow_for(manager, url=url)
    with pytest.raises(OriginNotAllowed) as info:
        await flow.__anext__()
    assert "authorization" not in request.headers
    assert info.value.origin == origin(url)


@pytest.mark.asyncio
async def test_a_request_with_its_own_authorization_keeps_it_and_is_not_refreshed():
    manager = StubManager()
    flow, sent = await started(manager, headers={"Authorization": "Bearer session-jwt-0001"})
    assert sent.headers["authorization"] == "Bearer session-jwt-0001"
    with pytest.raises(StopAsyncIteration):
        await flow.asend(answer(401))
    assert manager.refreshes == []


@pytest.mark.asyncio
async def test_a_request_with_its_own_authorization_still_needs_an_allowed_origin():
    flow, _ = flow_for(StubManager(), url="http://evil.example/x",
                       headers={"Authorization": "Bearer session-jwt-0001"})
    with pytest.raises(OriginNotAllowed):
        await flow.__anext__()


@pytest.mark.asyncio
@pytest.mark.parametrize(("size", "too_large"), [(REJECTED_BODY_MAX_BYTES, False),
                                                 (REJECTED_BODY_MAX_BYTES + 1, True)])
async def test_rejected_401_body_is_read_only_up_to_its_cap(size, too_large):
    flow, _ = await started(StubManager())
    rejected = streamed(401, b"x" * size)
    if too_large:
        with pytest.raises(ResponseTooLarge):
            await flow.asend(rejected)
    else:
        await flow.asend(rejected)
        assert await rejected.aread() == b""


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8123/a", "http://127.0.0.1:8123"),
        ("HTTPS://Example.COM:443/a", "https://example.com"),
        ("https://example.com:8443", "https://example.com:8443"),
        ("http://user:tok@example.com/", "http://example.com"),
        ("http://[::1]:9000/", "http://[::1]:9000"),
    ],
)
def test_origin_is_scheme_host_and_non_default_port(url, expected):
    assert origin(url) == expected


def test_sync_clients_are_refused():
    flow = BearerAuth(StubManager(), {ORIGIN}).sync_auth_flow(httpx.Request("GET", ORIGIN))
    with pytest.raises(RuntimeError):
        next(flow)


# ---------------------------------------------------------------- with a real client


@pytest.mark.asyncio
async def test_expired_token_is_refreshed_and_the_request_succeeds(rig):
    rig.service.access.clear()  # the service no longer accepts the stored token
    response = await rig.http.get(ORIGIN + "/resource")
    assert response.status_code == 200
    assert len(rig.service.token_requests) == 1
    assert rig.store.cred.access_token == Secret("at-issued-0002")


@pytest.mark.asyncio
async def test_concurrent_requests_share_one_refresh(rig):
    rig.service.access.clear()
    responses = await asyncio.gather(*(rig.http.get(ORIGIN + "/resource") for _ in range(8)))
    assert [r.status_code for r in responses] == [200] * 8
    assert len(rig.service.token_requests) == 1


@pytest.mark.asyncio
async def test_a_refresh_another_request_already_made_is_adopted(rig):
    rejected = rig.store.cred.access_token
    first = await rig.manager.refresh_after_401(rejected)
    second = await rig.manager.refresh_after_401(rejected)
    assert first == second
    assert len(rig.service.token_requests) == 1


@pytest.mark.asyncio
async def test_token_endpoint_never_receives_the_bearer_header(rig):
    rig.service.access.clear()
    await rig.http.get(ORIGIN + "/resource")
    token_calls = [r for r in rig.service.requests if r.url.path == "/v1/oauth/token"]
    assert token_calls and all("authorization" not in r.headers for r in token_calls)


@pytest.mark.asyncio
async def test_a_refreshed_token_that_is_rejected_again_is_an_auth_error(rig):
    rig.service.resource_answer = httpx.Response(401, json={})
    with pytest.raises(AuthError) as info:
        await rig.http.get(ORIGIN + "/resource")
    assert info.value.reason == "unauthorized_after_refresh"
    assert len(rig.service.token_requests) == 1


@pytest.mark.asyncio
async def test_disallowed_origin_is_refused_before_anything_is_sent(rig):
    with pytest.raises(OriginNotAllowed):
        await rig.http.get("http://127.0.0.1:9999/resource")
    assert rig.service.requests == []


@pytest.mark.asyncio
async def test_answers_through_bearer_auth_are_shown_without_the_tokens_it_used(rig):
    stale = rig.store.cred.access_token

    def echo(request):
        sent = request.headers["authorization"].removeprefix("Bearer ")
        if sent == stale.reveal():
            return httpx.Response(401, json={})
        return httpx.Response(500, text=f"token {sent} failed; the old one was {stale.reveal()}")

    rig.service.resource_override = echo
    answer = await send(rig.http, "GET", ORIGIN + "/resource", action="probe",
                        max_bytes=1000, deadline_s=5)
    assert answer.status == 500
    assert len(rig.service.token_requests) == 1
    shown = answer.text()
    assert stale.reveal() not in shown and "at-issued-0002" not in shown


# ---------------------------------------------------------------- what each refusal says


@pytest.mark.asyncio
@pytest.mark.parametrize(("extensions", "action"), [({"jdp_action": "design call"}, "design call"),
                                                    ({}, "auth")])
async def test_an_oversized_401_names_the_requests_action_and_the_cap(extensions, action):
    request = httpx.Request("POST", ORIGIN + "/v1/design/mcp", extensions=extensions)
    flow = BearerAuth(StubManager(), {ORIGIN}).async_auth_flow(request)
    await flow.__anext__()
    with pytest.raises(ResponseTooLarge) as info:
        await flow.asend(streamed(401, b"x" * (REJECTED_BODY_MAX_BYTES + 1)))
    assert (info.value.action, info.value.limit) == (action, REJECTED_BODY_MAX_BYTES)


@pytest.mark.asyncio
async def test_a_second_401_tells_the_person_to_sign_in_again():
    flow, _ = await started(StubManager())
    await flow.asend(answer(401))
    with pytest.raises(AuthError) as info:
        await flow.asend(answer(401))
    assert info.value.message.startswith("The service rejected the refreshed token too.")
    assert info.value.remedy == Remedy("login")


def test_a_sync_client_is_told_to_use_the_async_one():
    flow = BearerAuth(StubManager(), {ORIGIN}).sync_auth_flow(httpx.Request("GET", ORIGIN))
    with pytest.raises(RuntimeError) as info:
        next(flow)
    assert str(info.value).startswith("BearerAuth ")
    assert str(info.value).endswith(" httpx.AsyncClient only")
