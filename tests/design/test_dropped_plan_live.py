"""A plan the reference service dropped is asked again, not failed until it expires (issue
32 item 3), against the real service: the kernel's client approves a plan, the person then
presses Revoke and Give in the Design panel (the REST routes it calls), which drops every
plan on the service; the next write under the old plan is refused `Plan token refused
(unknown)` once, the client forgets the plan and puts the write on a card again, and
approving that card writes it under a fresh plan."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.settings import Settings
from tests.design.live_design import delta, design_http
from tests.faults_client import faults

DEMO_NAMESPACE = uuid.UUID("0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60")
DECK = str(uuid.uuid5(DEMO_NAMESPACE, "project:Quarterly Review Deck"))
WRITES = "mcp:tools/call:write_files"
CONSENT = {"consent": "agent_design_projects"}


@pytest.fixture(scope="module")
def service(module_reference_service: EmbeddedService) -> EmbeddedService:
    return module_reference_service


@pytest_asyncio.fixture
async def given(service) -> AsyncIterator[tuple[DesignClient, httpx.AsyncClient]]:
    """Consent given, and a fresh client of the kernel (nothing registered yet)."""
    async with design_http(service) as http:
        answer = await http.post(service.base_url + "/v1/design/consent", json=CONSENT)
        assert answer.status_code == 204
        client = DesignClient(http, Settings(api_base_url=service.base_url),
                              can_ask=lambda: True, operations=BY_NAME)
        yield client, http
        await client.close()


async def revoke_then_give(service, http: httpx.AsyncClient) -> None:
    """What the Design panel's Revoke and Give buttons send."""
    url = service.base_url + "/v1/design/consent"
    assert (await http.request("DELETE", url, json=CONSENT)).status_code == 204
    assert (await http.post(url, json=CONSENT)).status_code == 204


def write(path: str, token: str) -> dict:
    return {"project_id": DECK, "files": [{"path": path, "data": "<p>kept</p>"}],
            "plan_token": token}


async def approved_plan(client: DesignClient, path: str) -> str:
    pending = await client.call("finalize_plan", {"project_id": DECK, "writes": [path]})
    assert isinstance(pending, PendingApproval)
    plan = await client.resume(pending, approved=True)
    assert isinstance(plan, DesignOutcome) and not plan.is_error, plan.data
    token = plan.data["plan_token"]
    assert client.engine.holds_plan(token)
    return token


@pytest.mark.asyncio
async def test_the_old_plan_writes_while_the_service_holds_it(service, given) -> None:
    client, _ = given
    path = f"live-{uuid.uuid4().hex[:6]}/a.html"
    token = await approved_plan(client, path)
    before = faults(service).counts()
    outcome = await client.call("write_files", write(path, token))
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.data
    assert delta(before, faults(service).counts(), WRITES) == 1


@pytest.mark.asyncio
async def test_after_revoke_and_give_the_write_is_asked_again_and_then_written(
        service, given) -> None:
    client, http = given
    path = f"live-{uuid.uuid4().hex[:6]}/a.html"
    token = await approved_plan(client, path)
    await revoke_then_give(service, http)
    before = faults(service).counts()
    again = await client.call("write_files", write(path, token))
    assert isinstance(again, PendingApproval), getattr(again, "data", again)
    assert (again.request.kind, again.request.reason) == ("operation", "plan_token_unknown")
    assert again.request.writes == (path,)
    assert not client.engine.holds_plan(token)
    assert delta(before, faults(service).counts(), WRITES) == 1  # refused once, no retry
    outcome = await client.resume(again, approved=True)
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.data
    assert delta(before, faults(service).counts(), WRITES) == 2
    listing = await client.call("list_files", {"project_id": DECK, "depth": 5})
    assert path in {entry["path"] for entry in listing.data}
