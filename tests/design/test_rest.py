"""The consent and grants REST client, against httpx.MockTransport."""

import httpx
import pytest

from jupyter_design_projects.design.rest import DesignRest
from jupyter_design_projects.errors import (
    AuthError,
    DesignApiError,
    GrantIneligible,
    NeedsConsent,
    TransportError,
)
from jupyter_design_projects.errors.guidance import line

BASE = "http://127.0.0.1:9"


def rest(status, body=None, seen=None):
    def handle(request):
        if seen is not None:
            seen.append(request)
        content = b"" if body is None else httpx.Response(200, json=body).content
        return httpx.Response(status, headers={"content-type": "application/json"},
                              stream=httpx.ByteStream(content))
    return DesignRest(httpx.AsyncClient(transport=httpx.MockTransport(handle)), BASE)


@pytest.mark.asyncio
@pytest.mark.parametrize(("status", "body", "expected"), [
    (200, {"agent_design_projects": True}, True),
    (200, {"agent_design_projects": False}, False),
    (200, {"agent_design_projects": "yes"}, None),
    (200, ["nope"], None),
    (500, {"type": "error"}, None),
    (401, {"error": "x"}, None),
])
async def test_consent_prefetch_never_fails(status, body, expected):
    assert await rest(status, body).get_consent() is expected


@pytest.mark.asyncio
async def test_consent_prefetch_of_a_dead_service_is_unknown():
    def handle(request):
        raise httpx.ConnectError("refused")
    client = DesignRest(httpx.AsyncClient(transport=httpx.MockTransport(handle)), BASE)
    assert await client.get_consent() is None


@pytest.mark.asyncio
async def test_post_consent_sends_the_consent_name():
    seen = []
    await rest(204, seen=seen).post_consent()
    assert (seen[0].method, seen[0].url.path) == ("POST", "/v1/design/consent")
    assert httpx.Response(200, content=seen[0].content).json() == {
        "consent": "agent_design_projects"}


@pytest.mark.asyncio
async def test_post_consent_failure_is_an_api_error():
    with pytest.raises(DesignApiError) as caught:
        await rest(500, {"type": "error"}).post_consent()
    assert caught.value.status == 500


@pytest.mark.asyncio
@pytest.mark.parametrize(("status", "existed"), [(204, True), (404, False)])
async def test_delete_consent_tells_whether_there_was_one(status, existed):
    assert await rest(status).delete_consent() is existed


@pytest.mark.asyncio
async def test_grants_are_read_by_project():
    body = {"grants": [{"project_id": "p1", "created_at": "2025-01-01T00:00:00Z"},
                       {"nope": 1}, "junk"]}
    assert await rest(200, body).list_grants() == {"p1": "2025-01-01T00:00:00Z"}


@pytest.mark.asyncio
async def test_grants_without_a_list_are_a_transport_error():
    with pytest.raises(TransportError):
        await rest(200, {"grants": "p1"}).list_grants()


@pytest.mark.asyncio
async def test_post_grant_created():
    seen = []
    await rest(201, {"project_id": "p1", "created_at": "x"}, seen).post_grant("p1")
    assert httpx.Response(200, content=seen[0].content).json() == {"project_id": "p1"}


@pytest.mark.asyncio
async def test_post_grant_404_grant_ineligible():
    with pytest.raises(GrantIneligible) as caught:
        await rest(404, {"error": "grant_ineligible"}).post_grant("p1")
    assert caught.value.project_id == "p1"


@pytest.mark.asyncio
async def test_post_grant_404_of_an_unknown_project_is_not_ineligibility():
    with pytest.raises(DesignApiError) as caught:
        await rest(404, {"type": "error", "error": {"type": "not_found_error"}}).post_grant("p")
    assert caught.value.status == 404


@pytest.mark.asyncio
@pytest.mark.parametrize("call", ["post_grant", "list_grants"])
async def test_grant_routes_map_needs_consent(call):
    client = rest(403, {"error": "needs_consent"})
    with pytest.raises(NeedsConsent):
        await (client.post_grant("p1") if call == "post_grant" else client.list_grants())


@pytest.mark.asyncio
async def test_a_401_that_reaches_the_client_is_an_auth_error():
    with pytest.raises(AuthError):
        await rest(401, {"error": "x"}).post_grant("p1")


def rest_with_headers(status, headers):
    def handle(request):
        return httpx.Response(status, headers={"content-type": "application/json", **headers},
                              stream=httpx.ByteStream(b"{}"))
    return DesignRest(httpx.AsyncClient(transport=httpx.MockTransport(handle)), BASE)


@pytest.mark.asyncio
@pytest.mark.parametrize(("headers", "expected"), [
    ({"retry-after": "17"}, 17),
    ({}, None),
    ({"retry-after": "soon"}, None),
])
@pytest.mark.parametrize("call", [
    lambda r: r.post_consent(), lambda r: r.list_grants(), lambda r: r.delete_consent(),
])
async def test_rest_429_and_5xx_carry_retry_after_into_the_error_and_its_line(
        call, headers, expected):
    for status in (429, 503):
        with pytest.raises(DesignApiError) as caught:
            await call(rest_with_headers(status, headers))
        assert (caught.value.status, caught.value.retry_after) == (status, expected)
        shown = line(caught.value)
        assert ("retry after 17 s" in shown) == (expected == 17)
