"""The Design tool against the real reference service on loopback: consent, grants,
plans, grant-ineligible projects, denial, and the service's own backstop."""

import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.design.session import McpSession
from jupyter_design_projects.errors import (
    NeedsProjectGrant,
    PermissionDenied,
    PermissionRefused,
)
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.settings import Settings
from tests.design.live_design import design_http

# the demo projects the reference service seeds (server/design_demo.py derives the same ids)
DEMO_NAMESPACE = uuid.UUID("0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60")
DECK = str(uuid.uuid5(DEMO_NAMESPACE, "project:Quarterly Review Deck"))
PARTNER = str(uuid.uuid5(DEMO_NAMESPACE, "project:Partner Launch Kit"))


@pytest_asyncio.fixture
async def http(service) -> AsyncIterator[httpx.AsyncClient]:
    async with design_http(service) as client:
        # every test starts with no consent and no grants (DELETE consent revokes grants)
        await client.request("DELETE", service.base_url + "/v1/design/consent",
                             json={"consent": "agent_design_projects"})
        yield client


def design(http, service, *, can_ask=True) -> DesignClient:
    return DesignClient(http, Settings(api_base_url=service.base_url),
                        can_ask=lambda: can_ask, operations=BY_NAME)


@pytest_asyncio.fixture
async def client(http, service) -> AsyncIterator[DesignClient]:
    """A Design client where a person can answer the cards (closed after the test)."""
    opened = design(http, service)
    yield opened
    await opened.close()


@pytest_asyncio.fixture
async def headless(http, service) -> AsyncIterator[DesignClient]:
    """A Design client where nobody can answer a card (closed after the test)."""
    opened = design(http, service, can_ask=False)
    yield opened
    await opened.close()


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}.html"


async def paths_of(client: DesignClient, project: str) -> set[str]:
    outcome = await client.call("list_files", {"project_id": project, "depth": 5})
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error
    return {entry["path"] for entry in outcome.data}


async def server_grants(http, service) -> list[str]:
    answer = await http.get(service.base_url + "/v1/design/grants")
    return [g["project_id"] for g in answer.json()["grants"]]


def write(project: str, path: str) -> dict:
    return {"project_id": project, "files": [{"path": path, "data": "<h1>Q4</h1>"}]}


@pytest.mark.asyncio
async def test_consent_card_then_grant_card_then_the_write_lands(client, http, service):
    path = "slides/" + unique("q4")
    consent = await client.call("write_files", write(DECK, path))
    assert isinstance(consent, PendingApproval) and consent.request.kind == "consent"
    grant = await client.resume(consent, approved=True)
    assert isinstance(grant, PendingApproval) and grant.request.kind == "grant"
    assert grant.request.project_name == "Quarterly Review Deck"
    outcome = await client.resume(grant, approved=True, durable=True)
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error
    assert path in await paths_of(client, DECK)
    assert await server_grants(http, service) == [DECK]
    # the grant now covers ordinary writes: no card
    second = unique("q4b")
    assert isinstance(await client.call("write_files", write(DECK, second)), DesignOutcome)
    assert second in await paths_of(client, DECK)


@pytest.mark.asyncio
async def test_plan_then_delete_without_another_card(client, http, service):
    await client.consent()
    path = unique("doomed")
    once = await client.resume(await client.call("write_files", write(DECK, path)),
                               approved=True, durable=False)
    assert not once.is_error and path in await paths_of(client, DECK)
    assert await server_grants(http, service) == []  # approve-once mints nothing
    card = await client.call("finalize_plan", {"project_id": DECK, "deletes": [path]})
    assert card.request.kind == "plan" and card.request.deletes == (path,)
    plan = await client.resume(card, approved=True)
    deleted = await client.call("delete_files", {"project_id": DECK, "paths": [path],
                                                 "plan_token": plan.data["plan_token"]})
    assert isinstance(deleted, DesignOutcome) and deleted.data == {"deleted": 1}
    assert path not in await paths_of(client, DECK)


@pytest.mark.asyncio
async def test_grant_ineligible_project_gets_per_batch_plans(client, http, service):
    await client.consent()
    path = unique("partner")
    grant = await client.call("write_files", write(PARTNER, path))
    assert grant.request.kind == "grant"
    plan_card = await client.resume(grant, approved=True, durable=True)
    assert isinstance(plan_card, PendingApproval) and plan_card.request.kind == "plan"
    assert (await client.status())["grant_ineligible"] == [PARTNER]
    outcome = await client.resume(plan_card, approved=True)
    assert not outcome.is_error and path in await paths_of(client, PARTNER)
    assert await server_grants(http, service) == []


@pytest.mark.asyncio
async def test_denied_write_writes_nothing(client, http, service):
    await client.consent()
    path = unique("denied")
    outcome = await client.resume(await client.call("write_files", write(DECK, path)),
                                  approved=False)
    assert isinstance(outcome.error, PermissionDenied)
    assert path not in await paths_of(client, DECK)
    assert await server_grants(http, service) == []


@pytest.mark.asyncio
async def test_nobody_to_ask_mints_no_grant_and_writes_nothing(headless, http, service):
    await headless.consent()
    path = unique("unattended")
    outcome = await headless.call("write_files", write(DECK, path))
    assert isinstance(outcome.error, PermissionDenied)
    assert path not in await paths_of(headless, DECK)
    assert await server_grants(http, service) == []


async def server_consent(http, service) -> bool:
    answer = await http.get(service.base_url + "/v1/design/consent")
    return answer.json()["agent_design_projects"]


@pytest.mark.asyncio
async def test_headless_without_consent_fails_closed_naming_the_command(headless, http, service):
    path = unique("headless")
    outcome = await headless.call("write_files", write(DECK, path))
    assert isinstance(outcome.error, PermissionRefused)
    assert (outcome.error.reason, outcome.error.remedy) == ("consent_not_given",
                                                            Remedy("consent"))
    assert await server_consent(http, service) is False
    await headless.consent()  # the explicit command, where no card can be shown
    assert await server_consent(http, service) is True
    assert path not in await paths_of(headless, DECK)


@pytest.mark.asyncio
async def test_headless_run_reuses_a_grant_given_interactively_and_mints_none(
        client, headless, http, service):
    await client.consent()
    await client.resume(await client.call("write_files", write(DECK, unique("first"))),
                        approved=True, durable=True)
    await client.close()
    path = unique("unattended")
    written = await headless.call("write_files", write(DECK, path))
    assert isinstance(written, DesignOutcome) and not written.is_error
    assert path in await paths_of(headless, DECK)
    # a delete never rides on the grant, and nobody is there to approve a plan
    refused = await headless.call("finalize_plan", {"project_id": DECK, "deletes": [path]})
    assert isinstance(refused.error, PermissionRefused)
    assert refused.error.reason == "nobody_can_approve"
    # a project without a grant gets none minted
    other = await headless.call("write_files", write(PARTNER, unique("p")))
    assert other.error.reason == "nobody_can_approve"
    assert await server_grants(http, service) == [DECK]
    assert path in await paths_of(headless, DECK)


@pytest.mark.asyncio
async def test_revoke_drops_consent_and_the_servers_grants(client, http, service):
    await client.consent()
    await client.resume(await client.call("write_files", write(DECK, unique("g"))),
                        approved=True, durable=True)
    assert await server_grants(http, service) == [DECK]
    status = await client.revoke()
    assert (status["consent"], status["verified_grants"]) == (False, [])
    assert await server_grants(http, service) == []
    pending = await client.call("list_files", {"project_id": DECK})
    assert isinstance(pending, PendingApproval) and pending.request.kind == "consent"


@pytest.mark.asyncio
async def test_service_backstop_refuses_what_a_buggy_client_would_send(client, http, service):
    await client.consent()
    keep = unique("keep")
    await client.resume(await client.call("write_files", write(DECK, keep)),
                        approved=True, durable=False)
    plan = await client.resume(
        await client.call("finalize_plan", {"project_id": DECK, "deletes": ["old.html"]}),
        approved=True)
    session = McpSession(http, service.base_url + "/v1/design/mcp")
    try:
        # a token that does not cover the path
        raw = await session.call_tool("delete_files", {
            "project_id": DECK, "paths": [keep], "plan_token": plan.data["plan_token"]})
        assert raw.get("isError") is True
        # a token for another project
        raw = await session.call_tool("delete_files", {
            "project_id": PARTNER, "paths": ["index.html"],
            "plan_token": plan.data["plan_token"]})
        assert raw.get("isError") is True
        # a tokenless write without a grant
        with pytest.raises(NeedsProjectGrant) as caught:
            await session.call_tool("write_files", write(DECK, unique("sneak")))
        assert caught.value.project_id == DECK
        # a reserved target, even with a plan
        raw = await session.call_tool("write_files", {
            "project_id": DECK, "files": [{"path": "CLAUDE.md", "data": "x"}],
            "plan_token": plan.data["plan_token"]})
        assert raw.get("isError") is True
    finally:
        await session.close()
    assert keep in await paths_of(client, DECK)
    assert "CLAUDE.md" not in await paths_of(client, DECK)
