"""Adding a Design operation is one row of `core.design_operations` plus one method of the
service's operations: built from a table with one more row, the service lists it and
runs it, and the client floors it, decides about it and shows it on a card."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_design_projects.core.design_operations import (
    BY_NAME,
    DESIGN_OPERATIONS,
    DESTROY,
    PROJECT_ID,
    Approval,
    DesignOperation,
    Input,
    Text,
    operation_table,
    writes_of_path,
)
from jupyter_design_projects.core.permissions import (
    Allow,
    Ask,
    Snapshot,
    card_of,
    decide,
    facts_of,
)
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.server.design.operations import DesignOperations
from tests.server.design.harness import DECK_ID, Harness, build_harness, design_client

#: the one row a new operation needs
ARCHIVE = DesignOperation(
    "archive_project", "Archive a project (it stays readable).", DESTROY, True,
    (Input("project_id", PROJECT_ID, required=True),
     Input("reason", Text(enum=("done", "superseded")))),
    Approval.CARD, heading="Archive this Design project?")
#: a tokenless write a durable grant may cover: the gate and the decision read `approval`
NOTES = DesignOperation(
    "write_notes", "Write the project's notes.md.", DESTROY, True,
    (Input("project_id", PROJECT_ID, required=True), Input("text", Text(body=True))),
    Approval.GRANTABLE, writes_of_path("path", "notes.md"))
TABLE = operation_table((*DESIGN_OPERATIONS, ARCHIVE, NOTES))


class ArchivingOperations(DesignOperations):
    """The one service implementation it needs."""

    def archive_project(self, user: str, project_id: str,
                        reason: str | None = None) -> dict[str, Any]:
        self.store.project(project_id)
        return {"archived": project_id, "reason": reason}

    def write_notes(self, user: str, project_id: str, text: str | None = None) -> dict[str, Any]:
        return {"noted": len(text or "")}


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    with build_harness(tmp_path, design_operations=TABLE,
                       design_service=ArchivingOperations) as harness:
        yield harness


def test_the_service_lists_the_new_row_with_its_hints_and_typed_inputs(h: Harness) -> None:
    tools = h.mcp().initialize().request("tools/list").json()["result"]["tools"]
    assert [t["name"] for t in tools] == list(TABLE)
    tool = tools[-2]
    assert tool["description"] == ARCHIVE.description
    assert tool["annotations"] == {"readOnlyHint": False, "destructiveHint": True,
                                   "idempotentHint": True, "openWorldHint": False}
    schema = tool["inputSchema"]
    assert schema["required"] == ["project_id"]
    assert schema["properties"]["project_id"]["maxLength"] == 4096
    assert schema["properties"]["reason"]["anyOf"][0]["enum"] == ["done", "superseded"]


def test_the_service_runs_the_new_row_and_refuses_bad_arguments(h: Harness) -> None:
    h.consent()
    client = h.mcp().initialize()
    assert client.ok("archive_project", project_id=DECK_ID, reason="done") == {
        "archived": DECK_ID, "reason": "done"}
    refused = client.tool("archive_project", project_id=DECK_ID, reason="bored")
    assert refused["isError"] is True


def test_the_decision_and_the_card_read_the_new_row() -> None:
    facts = facts_of("archive_project", False, True, {"project_id": "p1"}, TABLE)
    decision = decide(Snapshot(consent=True), facts, now_ms=0)
    assert decision == Ask("operation", "write_operation")
    card = card_of("operation", facts, decision.reason)
    assert card.title == "Archive this Design project?"
    assert not card.allows_durable


def test_the_gate_and_the_decision_read_a_grantable_row(h: Harness) -> None:
    h.consent()
    answer = h.mcp().initialize().call("write_notes", project_id=DECK_ID, text="x")
    assert answer.status_code == 403
    assert answer.json()["error"] == "needs_project_grant"
    facts = facts_of("write_notes", False, True, {"project_id": "p1"}, TABLE)
    assert decide(Snapshot(consent=True), facts, now_ms=0) == Ask("grant", "no_grant")
    granted = Snapshot(consent=True, verified_grants=frozenset({"p1"}))
    assert decide(granted, facts, now_ms=0) == Allow("grant")


def test_without_the_row_the_client_knows_no_such_operation() -> None:
    facts = facts_of("archive_project", False, True, {"project_id": "p1"}, BY_NAME)
    assert facts.row is None
    assert card_of("operation", facts).title == "Run archive_project on the Design project?"


@pytest.mark.asyncio
async def test_the_client_floors_asks_and_runs_the_new_row(h: Harness) -> None:
    h.consent()
    async with design_client(h, operations=TABLE) as (client, _):
        entry = await client.catalogue.entry("archive_project")
        assert entry.known and (entry.read_only, entry.destructive) == (False, True)
        assert entry.input_schema == ARCHIVE.schema
        pending = await client.call("archive_project", {"project_id": DECK_ID})
        assert isinstance(pending, PendingApproval)
        assert pending.request.title == "Archive this Design project?"
        assert pending.request.project_id == DECK_ID
        outcome = await client.resume(pending, approved=True)
        assert isinstance(outcome, DesignOutcome) and not outcome.is_error
        assert outcome.data == {"archived": DECK_ID, "reason": None}
        refused = await client.call("archive_project",
                                    {"project_id": DECK_ID, "reason": "bored"})
        assert isinstance(refused, DesignOutcome) and refused.is_error


def test_a_row_without_a_service_implementation_is_refused_at_build(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="archive_project"), build_harness(
            tmp_path, design_operations=TABLE):
        pass
