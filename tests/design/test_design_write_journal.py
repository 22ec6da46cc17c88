"""The local journal of Design writes: what each call changes, path by path; the entry
written ahead and settled or withdrawn; and, against the real reference service, a write
under a grant, under a plan and a refused write as the journal records them (never a token)."""

from __future__ import annotations

import base64
import sqlite3
import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.design.write_journal import (
    BY_GRANT,
    BY_PLAN,
    DONE,
    UNKNOWN,
    DesignJournal,
    changes_of,
    plan_detail,
)
from jupyter_design_projects.settings import Settings
from tests.design.live_design import design_http

DEMO_NAMESPACE = uuid.UUID("0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60")
DECK = str(uuid.uuid5(DEMO_NAMESPACE, "project:Quarterly Review Deck"))
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))


# ---------------------------------------------------------------- what a call changes


def changes(operation, arguments):
    """What the journal records of a call, as the default table's row reads it."""
    return changes_of(BY_NAME.get(operation), operation, arguments)


def test_a_write_says_created_replaced_or_written_by_its_if_match_with_decoded_bytes():
    files = [{"path": "a.html", "data": "héllo", "if_match": "0"},
             {"path": "b.png", "data": base64.b64encode(PNG).decode(), "encoding": "base64",
              "if_match": "e123"},
             {"path": "c.css", "data": "x"}]
    assert changes("write_files", {"project_id": DECK, "files": files}) == [
        {"path": "a.html", "change": "created", "bytes": 6},
        {"path": "b.png", "change": "replaced", "bytes": len(PNG)},
        {"path": "c.css", "change": "written", "bytes": 1}]


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 47, 48])
def test_the_decoded_size_of_base64_is_exact_at_each_padding(size):
    data = base64.b64encode(bytes(size)).decode()
    files = [{"path": "x.bin", "data": data, "encoding": "base64"}]
    assert changes("write_files", {"files": files})[0]["bytes"] == size


def test_deletes_copies_and_pathless_calls_are_listed_without_the_plan_token():
    assert changes("delete_files", {"paths": ["a", "b"], "plan_token": "T"}) == [
        {"path": "a", "change": "deleted"}, {"path": "b", "change": "deleted"}]
    assert changes("copy_files", {"files": [{"src": "s", "dest": "d",
                                                "src_project_id": "P"}]}) == [
        {"path": "d", "change": "copied", "from": "s (project P)"}]
    sharing = changes("update_sharing", {"project_id": DECK, "scope": "org",
                                            "plan_token": "SECRET-TOKEN"})
    assert sharing == [{"change": "update_sharing", "detail": '{"scope": "org"}'}]


def test_a_plan_is_named_by_its_counts_and_expiry():
    assert plan_detail(8, 0, 1_700_000_000_000) == (
        "an approved plan for 8 write(s) and 0 delete(s), valid until 22:13:20 UTC")


# ---------------------------------------------------------------- ahead, settle, withdraw


def journal(tmp_path) -> DesignJournal:
    return DesignJournal(tmp_path / "design_writes.sqlite3", clock=lambda: 1_700_000_000.0)


def test_an_entry_goes_in_unknown_and_is_settled_done(tmp_path):
    book = journal(tmp_path)
    entry = book.ahead(operation="write_files", project_id=DECK, authority=BY_GRANT,
                       detail="the project's durable grant",
                       changes=[{"path": "a.html", "change": "created", "bytes": 3}],
                       project_name="Quarterly Review Deck")
    assert book.entries()[0]["outcome"] == UNKNOWN
    before = book.revision()
    book.settle(entry, done=True)
    [row] = book.entries()
    assert row["outcome"] == DONE and row["at"] == "2023-11-14T22:13:20Z"
    assert row["changes"] == [{"path": "a.html", "change": "created", "bytes": 3}]
    assert row["project_name"] == "Quarterly Review Deck"
    assert book.revision() != before


def test_a_refused_call_is_withdrawn(tmp_path):
    book = journal(tmp_path)
    entry = book.ahead(operation="write_files", project_id=DECK, authority=BY_GRANT,
                       detail="d", changes=[])
    book.settle(entry, done=False)
    assert book.entries() == [] and book.revision() == (0, 0, 0)


def test_the_file_is_private_to_its_user(tmp_path):
    book = journal(tmp_path)
    book.ahead(operation="x", project_id="p", authority=BY_GRANT, detail="d", changes=[])
    assert book.path.stat().st_mode & 0o777 == 0o600


def test_a_journal_that_cannot_be_written_never_fails_the_call(tmp_path):
    (tmp_path / "taken").write_text("a file where the folder should be")
    book = DesignJournal(tmp_path / "taken" / "design_writes.sqlite3")
    assert book.ahead(operation="x", project_id="p", authority=BY_GRANT, detail="d",
                      changes=[]) is None
    book.settle(None, done=True)
    assert "could not be written" in (book.problem or "")


def test_listing_is_newest_first_and_bounded(tmp_path):
    book = journal(tmp_path)
    for n in range(3):
        book.settle(book.ahead(operation=f"op{n}", project_id="p", authority=BY_GRANT,
                               detail="d", changes=[]), done=True)
    assert [r["operation"] for r in book.entries(2)] == ["op2", "op1"]


# ---------------------------------------------------------------- the client records


@pytest_asyncio.fixture
async def http(service) -> AsyncIterator:
    async with design_http(service) as client:
        await client.request("DELETE", service.base_url + "/v1/design/consent",
                             json={"consent": "agent_design_projects"})
        yield client


@pytest_asyncio.fixture
async def client(http, service, tmp_path) -> AsyncIterator[DesignClient]:
    opened = DesignClient(http, Settings(api_base_url=service.base_url),
                          can_ask=lambda: True, journal=journal(tmp_path), operations=BY_NAME)
    await opened.consent()
    yield opened
    await opened.close()


def unique(prefix: str) -> str:
    return f"slides/{prefix}-{uuid.uuid4().hex[:8]}.html"


def no_token_in(tmp_path, token: str) -> bool:
    raw = (tmp_path / "design_writes.sqlite3").read_bytes()
    with sqlite3.connect(tmp_path / "design_writes.sqlite3") as db:
        dumped = "\n".join(db.iterdump())
    return token.encode() not in raw and token not in dumped


@pytest.mark.asyncio
async def test_a_write_under_a_durable_grant_is_recorded_with_the_project_name(client):
    path = unique("grant")
    grant = await client.call("write_files", {"project_id": DECK, "files": [
        {"path": path, "data": "<h1>Q4</h1>", "if_match": "0"}]})
    assert isinstance(grant, PendingApproval) and grant.request.kind == "grant"
    outcome = await client.resume(grant, approved=True, durable=True)
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error
    [row] = client.journal.entries()
    assert (row["operation"], row["project_id"], row["authority"], row["outcome"]) == (
        "write_files", DECK, BY_GRANT, DONE)
    assert row["project_name"] == "Quarterly Review Deck"
    assert row["changes"] == [{"path": path, "change": "created", "bytes": 11}]


@pytest.mark.asyncio
async def test_a_write_under_an_approved_plan_names_the_plan_and_never_its_token(
        client, tmp_path):
    path = unique("plan")
    card = await client.call("finalize_plan", {"project_id": DECK, "writes": [path]})
    plan = await client.resume(card, approved=True)
    token = plan.data["plan_token"]
    done = await client.call("write_files", {"project_id": DECK, "plan_token": token,
                                             "files": [{"path": path, "data": "x"}]})
    assert isinstance(done, DesignOutcome) and not done.is_error
    [row] = client.journal.entries()  # finalize_plan itself changes no file
    assert row["authority"] == BY_PLAN
    assert row["authority_detail"].startswith("an approved plan for 1 write(s) and 0 delete(s)")
    assert no_token_in(tmp_path, token)


@pytest.mark.asyncio
async def test_a_write_the_service_refuses_leaves_no_entry(client):
    path = unique("conflict")
    card = await client.call("finalize_plan", {"project_id": DECK, "writes": [path]})
    plan = await client.resume(card, approved=True)
    refused = await client.call("write_files", {
        "project_id": DECK, "plan_token": plan.data["plan_token"],
        "files": [{"path": path, "data": "x", "if_match": "e-not-the-etag"}]})
    assert isinstance(refused, DesignOutcome) and refused.is_error
    assert client.journal.entries() == []


@pytest.mark.asyncio
async def test_reads_are_not_journaled(client):
    await client.call("list_files", {"project_id": DECK})
    assert client.journal.entries() == []
