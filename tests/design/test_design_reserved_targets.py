"""Reserved targets against the real reference service (spec §8, issue 22 item 2): under a
project's durable grant an ordinary write is silent, while a batch naming `CLAUDE.md` or
`.claude/` is put to a person as one call — a card that says which paths are reserved and
that no plan or grant covers them, with only the buttons that work. Approve writes the
batch through a one-time plan; Deny, or nobody to ask, sends nothing (the service's
request counts say so)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from jupyter_design_projects.core.cards import APPROVE, APPROVE_FOR_PROJECT, DENY
from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.errors import PermissionRefused
from jupyter_design_projects.settings import Settings
from tests.design.live_design import delta, design_http
from tests.faults_client import faults

DEMO_NAMESPACE = uuid.UUID("0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60")
DECK = str(uuid.uuid5(DEMO_NAMESPACE, "project:Quarterly Review Deck"))
SENT = ("mcp:tools/call:write_files", "mcp:tools/call:finalize_plan")


@pytest_asyncio.fixture
async def granted(service) -> AsyncIterator[tuple[DesignClient, dict]]:
    """A client whose person has given consent and granted the deck (each test's own
    client: nothing verified or registered carries over), and a switch for can_ask."""
    answerable = {"now": True}
    async with design_http(service) as http:
        base = service.base_url + "/v1/design"
        assert (await http.post(base + "/consent",
                                json={"consent": "agent_design_projects"})).status_code == 204
        assert (await http.post(base + "/grants", json={"project_id": DECK})).is_success
        client = DesignClient(http, Settings(api_base_url=service.base_url),
                              can_ask=lambda: answerable["now"], operations=BY_NAME)
        yield client, answerable
        await client.close()


def write(path: str) -> dict:
    return {"project_id": DECK, "files": [{"path": path, "data": "<p>notes</p>"}]}


async def paths_of(client: DesignClient) -> set[str]:
    outcome = await client.call("list_files", {"project_id": DECK, "depth": 5})
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error
    return {entry["path"] for entry in outcome.data}


def sent_since(service, before: dict[str, int]) -> dict[str, int]:
    after = faults(service).counts()
    return {key: delta(before, after, key) for key in SENT}


def tag() -> str:
    return uuid.uuid4().hex[:6]


@pytest.mark.asyncio
async def test_an_ordinary_write_under_the_grant_is_silent(service, granted):
    client, _ = granted
    path = f"notes-{tag()}/ok.html"
    before = faults(service).counts()
    outcome = await client.call("write_files", write(path))
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.error
    assert sent_since(service, before) == {SENT[0]: 1, SENT[1]: 0}
    assert path in await paths_of(client)


@pytest.mark.asyncio
@pytest.mark.parametrize("reserved", ["CLAUDE.md", ".claude/settings.json", "Claude.MD."])
async def test_a_reserved_target_under_the_same_grant_asks_and_approve_writes_it(
        service, granted, reserved):
    client, _ = granted
    folder = f"notes-{tag()}"
    batch = {"project_id": DECK, "files": [
        {"path": f"{folder}/ok.html", "data": "x"}, {"path": f"{folder}/{reserved}",
                                                      "data": "x"}]}
    before = faults(service).counts()
    card = await client.call("write_files", batch)
    assert isinstance(card, PendingApproval)
    request = card.request
    assert (request.kind, request.reason) == ("operation", "reserved_target")
    assert request.buttons == (APPROVE, DENY) and not request.allows_durable
    assert request.writes == (f"{folder}/ok.html", f"{folder}/{reserved}")
    assert (f"Reserved ({folder}/{reserved}): CLAUDE.md and .claude/ are never covered by a "
            "plan or the project grant") in request.text
    assert dict(request.withheld)[APPROVE_FOR_PROJECT] == (
        "CLAUDE.md and .claude/ are never covered by a grant.")
    assert sent_since(service, before) == {SENT[0]: 0, SENT[1]: 0}  # asking sends nothing
    outcome = await client.resume(card, approved=True)
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome.error
    assert sent_since(service, before) == {SENT[0]: 1, SENT[1]: 1}  # one one-time plan
    assert {f"{folder}/ok.html", f"{folder}/{reserved}"} <= await paths_of(client)
    # nothing was registered: the same reserved path asks again
    again = await client.call("write_files", write(f"{folder}/{reserved}"))
    assert isinstance(again, PendingApproval) and again.request.reason == "reserved_target"


@pytest.mark.asyncio
async def test_deny_on_a_reserved_card_sends_nothing(service, granted):
    client, _ = granted
    path = f"notes-{tag()}/CLAUDE.md"
    before = faults(service).counts()
    card = await client.call("write_files", write(path))
    assert isinstance(card, PendingApproval)
    outcome = await client.resume(card, approved=False)
    assert isinstance(outcome.error, PermissionRefused)
    assert outcome.error.reason == "denied_on_card"
    assert sent_since(service, before) == {SENT[0]: 0, SENT[1]: 0}
    assert path not in await paths_of(client)


@pytest.mark.asyncio
async def test_a_reserved_target_with_nobody_to_ask_is_refused_before_sending(service, granted):
    client, answerable = granted
    answerable["now"] = False
    path = f"notes-{tag()}/.claude/x.json"
    before = faults(service).counts()
    outcome = await client.call("write_files", write(path))
    assert isinstance(outcome, DesignOutcome) and isinstance(outcome.error, PermissionRefused)
    assert outcome.error.reason == "nobody_can_approve"
    assert sent_since(service, before) == {SENT[0]: 0, SENT[1]: 0}
    # while the same grant still writes an ordinary path with nobody to ask
    assert not (await client.call("write_files", write(f"notes-{tag()}/x.html"))).is_error


@pytest.mark.asyncio
async def test_traversal_beside_a_reserved_name_is_refused_outright(service, granted):
    client, _ = granted
    before = faults(service).counts()
    outcome = await client.call("write_files", write("notes/../CLAUDE.md"))
    assert isinstance(outcome, DesignOutcome) and isinstance(outcome.error, PermissionRefused)
    assert outcome.error.reason == "path_traversal"
    assert sent_since(service, before) == {SENT[0]: 0, SENT[1]: 0}


@pytest.mark.asyncio
async def test_257_files_are_refused_before_sending_and_256_ride_on_the_grant(service, granted):
    """PROTOCOL §3: at most 256 entries a call. Past that no card could offer an action
    that works (the service refuses the call), so nothing is asked and nothing sent."""
    client, _ = granted
    folder = f"many-{tag()}"
    files = [{"path": f"{folder}/{i:03d}.txt", "data": "x"} for i in range(257)]
    before = faults(service).counts()
    refused = await client.call("write_files", {"project_id": DECK, "files": files})
    assert isinstance(refused, DesignOutcome) and isinstance(refused.error, PermissionRefused)
    assert refused.error.reason == "too_many_targets"
    assert sent_since(service, before) == {SENT[0]: 0, SENT[1]: 0}
    written = await client.call("write_files", {"project_id": DECK, "files": files[:256]})
    assert isinstance(written, DesignOutcome) and not written.is_error, written.error
    assert written.data["written"] == 256
    assert sent_since(service, before) == {SENT[0]: 1, SENT[1]: 0}
