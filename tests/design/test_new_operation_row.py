"""A real new row in the Design operation table needs no other edit on the client side: a
table with two more plausible rows (a read-only `list_comments`, a destructive
`rename_file` that moves paths under a plan token) is served, validated, decided, shown on
its card, approved through a per-batch plan, journaled, summed up, and named by `--help`
and did-you-mean, each read from the injected table; the default table is never consulted
for them (and never fills in for a row the injected table lacks)."""

from __future__ import annotations

import types

import pytest

from jupyter_design_projects.core.design_effects import moved_entries, moves_of_entries
from jupyter_design_projects.core.design_inputs import Input, ListOf, Record, Text
from jupyter_design_projects.core.design_operations import (
    BY_NAME,
    DESIGN_OPERATIONS,
    DESTROY,
    PROJECT_ID,
    READ,
    Approval,
    DesignOperation,
    operation_table,
)
from jupyter_design_projects.core.permissions import Ask, Snapshot, card_of, decide, facts_of
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.design.write_journal import DesignJournal
from jupyter_design_projects.errors import InvalidArguments
from jupyter_design_projects.notebook.views import outcomes as views
from jupyter_design_projects.notebook.widgets import catalogue
from jupyter_design_projects.settings import Settings
from tests.fakes.design import BASE, P1, Clock, FakeDesign

MOVE = Record("Move", (Input("from", Text(), required=True), Input("to", Text(), required=True)))

LIST_COMMENTS = DesignOperation(
    "list_comments", "List the comments on a project's pages.", READ, True,
    (Input("project_id", PROJECT_ID, required=True), Input("path", Text())))
RENAME = DesignOperation(
    "rename_file", "Rename files; needs a plan token.", DESTROY, False,
    (Input("project_id", PROJECT_ID, required=True), Input("files", ListOf(MOVE), required=True),
     Input("plan_token", Text(max_length=65536)), Input("mode", Text(enum=("safe", "force")))),
    Approval.PLAN_TOKEN, moves_of_entries("files", "from", "to"),
    "Rename these files in the Design project?",
    changes=moved_entries("files", "from", "to", "moved"),
    summary=lambda data: f"Renamed {data['renamed']} file(s)" if "renamed" in data else None,
    refused_values=(("mode", "force", "safe"),))
TABLE = operation_table((*DESIGN_OPERATIONS, LIST_COMMENTS, RENAME))


class CommentingDesign(FakeDesign):
    """The fake service, serving and running the two new rows."""

    def __init__(self) -> None:
        super().__init__(table=TABLE)
        self.files[P1]["notes.html"] = "<p>notes</p>"

    def op_list_comments(self, project_id, path=None):
        return [{"path": "index.html", "author": "ana", "text": "Bigger title?"}]

    def op_rename_file(self, project_id, files, plan_token=None, mode=None):
        moves = [(f["from"], f["to"]) for f in files]
        self.require(plan_token, project_id, writes=[t for _, t in moves],
                     deletes=[f for f, _ in moves])
        for old, new in moves:
            self.files[project_id][new] = self.files[project_id].pop(old)
        return {"renamed": len(moves)}


@pytest.fixture
def service() -> CommentingDesign:
    return CommentingDesign()


@pytest.fixture
def client(service, tmp_path) -> DesignClient:
    return DesignClient(service.client(), Settings(api_base_url=BASE), can_ask=lambda: True,
                        clock_ms=Clock(), operations=TABLE,
                        journal=DesignJournal(tmp_path / "design_writes.sqlite3"))


def rename(**extra) -> dict:
    return {"project_id": P1, "files": [{"from": "notes.html", "to": "talk/notes.html"}],
            **extra}


@pytest.mark.asyncio
async def test_a_new_read_only_row_runs_without_a_card_and_shows_as_a_table(client) -> None:
    outcome = await client.call("list_comments", {"project_id": P1})
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error
    assert outcome.row is LIST_COMMENTS
    shown = views.design_outcome(outcome)
    assert shown.tables["items"][0]["author"] == "ana"
    assert client.journal.entries() == []  # a read is never journaled


@pytest.mark.asyncio
async def test_a_new_rows_schema_and_refused_values_validate_its_calls(client,
                                                                       service) -> None:
    misspelt = await client.call("rename_file", {**rename(), "mdoe": "safe"})
    assert isinstance(misspelt.error, InvalidArguments)
    assert (misspelt.error.field, misspelt.error.suggestion) == ("mdoe", "mode")
    forced = await client.call("rename_file", rename(mode="force"))
    assert isinstance(forced.error, InvalidArguments)
    assert (forced.error.field, forced.error.suggestion) == ("mode", "safe")
    assert service.calls() == []  # refused before a byte was sent
    assert isinstance(await client.call("rename_file", rename(mode="safe")), PendingApproval)


@pytest.mark.asyncio
async def test_a_new_write_row_is_carded_planned_journaled_and_summed_up(client,
                                                                         service) -> None:
    pending = await client.call("rename_file", rename())
    assert isinstance(pending, PendingApproval)
    card = pending.request
    assert card.title == RENAME.heading
    assert (card.writes, card.deletes) == (("talk/notes.html",), ("notes.html",))
    assert not card.allows_durable
    outcome = await client.resume(pending, approved=True)
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error
    (_, planner, planned), (_, renamer, renamed) = service.sent("call")[-2:]
    assert (planner, planned) == ("finalize_plan", {
        "project_id": P1, "writes": ["talk/notes.html"], "deletes": ["notes.html"]})
    assert renamer == "rename_file" and renamed["plan_token"]
    assert service.files[P1]["talk/notes.html"] == "<p>notes</p>"
    assert views.design_outcome(outcome).body == "Renamed 1 file(s)"
    [entry] = client.journal.entries()
    assert (entry["operation"], entry["outcome"]) == ("rename_file", "done")
    assert entry["changes"] == [{"path": "talk/notes.html", "change": "moved",
                                 "from": "notes.html"}]


def test_the_decision_reads_the_new_row_and_only_the_table_it_is_given() -> None:
    facts = facts_of("rename_file", False, True, rename(), TABLE)
    assert decide(Snapshot(consent=True), facts, now_ms=0) == Ask("operation", "no_plan_token")
    assert card_of("operation", facts, "no_plan_token").title == RENAME.heading
    # a table without write_files: its call is a plain write, never the default table's row
    without = operation_table(op for op in DESIGN_OPERATIONS if op.name != "write_files")
    facts = facts_of("write_files", False, True, {"project_id": P1, "files": []}, without)
    assert facts.row is None and facts.known is None
    assert decide(Snapshot(consent=True), facts, now_ms=0) == Ask("operation",
                                                                  "write_operation")


def test_help_and_did_you_mean_read_the_clients_table() -> None:
    session = types.SimpleNamespace(design=types.SimpleNamespace(
        catalogue=types.SimpleNamespace(table=TABLE)))
    table = catalogue.operations_of(session)
    assert table is TABLE
    schema = catalogue.known_schema(table, [], "rename_file")
    assert schema == RENAME.schema
    assert "files[].from" in views.schema_fields("rename_file", schema)
    assert catalogue.closest_operation("rename_fle", table, []) == "rename_file"
    assert catalogue.closest_operation("list_coments", table, []) == "list_comments"
    # the default table knows neither: no schema, no suggestion
    assert catalogue.known_schema(BY_NAME, [], "rename_file") is None
    assert catalogue.closest_operation("rename_fle", BY_NAME, []) != "rename_file"


def test_with_no_session_yet_help_reads_the_table_a_session_gives_its_client() -> None:
    assert catalogue.operations_of(None) is BY_NAME
