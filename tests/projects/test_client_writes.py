"""ProjectsClient against the in-memory fake: write (content xor local_path, path rules,
the knowledge budget, replace on each route and the half-done one), delete, and the
journal of every remote change — including those whose outcome is unknown — with restore."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from typing import Any

import httpx
import pytest

from jupyter_design_projects.core.project_paths import RULE_UPLOAD
from jupyter_design_projects.errors import (
    DocNotFound,
    InvalidProjectsArgument,
    KnowledgeBudgetExceeded,
    PathRejected,
    ProjectsApiError,
    ProjectsTransportFailed,
    ReplaceIncomplete,
    ReplaceOutcomeUnknown,
    UploadRejected,
)
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.projects.journal import Journal
from tests.fakes.projects import ROUTES, FakeProjects, Scopes, error, flat

# ---------------------------------------------------------------- write and delete


@pytest.mark.asyncio
@pytest.mark.parametrize("kwargs", [{}, {"content": "a", "local_path": "b"}])
async def test_write_needs_exactly_one_of_content_and_local_path(make, fake, kwargs) -> None:
    with pytest.raises(InvalidProjectsArgument):
        await make().write("a.md", **kwargs)
    assert fake.requests == []


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("path", "existing", "final", "replaced"), [
    ("notes.md", None, "claude/notes.md", False),
    ("./notes.md", None, "claude/notes.md", False),
    ("team/notes.md", None, "team/notes.md", False),
    ("notes.md", "notes.md", "notes.md", True),
    ("notes.md", "claude/notes.md", "claude/notes.md", True),
])
async def test_write_resolves_the_path(make, fake, route, path, existing, final, replaced) -> None:
    if existing:
        fake.add_doc(existing, "old")
    result = await make(route).write(path, content="new")
    assert (result["path"], result["replaced"], result["bytes"]) == (final, replaced, 3)
    assert [d["content"] for d in fake.docs.values() if d["file_name"] == final] == ["new"]
    assert len(fake.docs) == 1


@pytest.mark.asyncio
async def test_org_replace_is_one_patch(make, fake) -> None:
    doc_uuid = fake.add_doc("a.md", "old")
    result = await make(journal=False).write("a.md", content="new")
    assert result["doc_uuid"] == doc_uuid
    assert [m for m, _p, _b in fake.requests] == ["GET", "PATCH"]


@pytest.mark.asyncio
async def test_remote_session_replace_is_delete_then_create(make, fake) -> None:
    fake.add_doc("a.md", "old")
    await make("remote-session", journal=False).write("a.md", content="new")
    assert [b["op"] for _m, _p, b in fake.requests] == ["detail", "delete-doc", "write-doc"]


@pytest.mark.asyncio
async def test_a_create_failing_after_the_delete_is_a_half_done_replace(make, fake) -> None:
    doc_uuid = fake.add_doc("a.md", "old content")
    fake.intercept = lambda m, p, b: (flat(500, "create failed")
                                      if b.get("op") == "write-doc" else None)
    client = make("remote-session")
    with pytest.raises(ReplaceIncomplete) as caught:
        await client.write("a.md", content="new")
    assert type(caught.value) is ReplaceIncomplete  # refused: the new doc surely is not there
    assert (caught.value.path, caught.value.deleted_doc_uuid) == ("a.md", doc_uuid)
    assert fake.docs == {}
    entry = client.history()[0]
    assert (entry["action"], entry["previous_doc_uuid"], entry["has_previous"]) == (
        "replace_incomplete", doc_uuid, True)
    fake.intercept = None
    restored = await client.restore(entry["id"])
    assert (restored["path"], restored["replaced"]) == ("a.md", False)
    assert [d["content"] for d in fake.docs.values()] == ["old content"]


@pytest.mark.asyncio
@pytest.mark.parametrize(("status", "journaled"), [(409, []), (500, ["replace_unknown"])])
async def test_a_failed_delete_of_a_remote_session_replace_changes_nothing(
        make, fake, status, journaled) -> None:
    fake.add_doc("a.md", "old")
    fake.intercept = lambda m, p, b: flat(status, "no") if b.get("op") == "delete-doc" else None
    client = make("remote-session")
    with pytest.raises(ProjectsApiError):
        await client.write("a.md", content="new")
    assert [d["content"] for d in fake.docs.values()] == ["old"]
    # a 4xx refusal changed nothing, so nothing is journaled; a 5xx might have come after
    # the delete was made, so the old content stays restorable
    assert [e["action"] for e in client.history()] == journaled


def dropped(method: str | None = None, op: str | None = None):
    """An intercept whose matching doc request never gets an answer (connection dropped)."""

    def intercept(m: str, p: str, b: Any) -> None:
        if (m == method and "/docs" in p) or (op is not None and (b or {}).get("op") == op):
            raise httpx.ConnectError("connection dropped")

    return intercept


def landed_with_a_broken_answer(fake: FakeProjects):
    """An intercept whose write-doc is carried out but answered with a non-canonical id."""

    def intercept(m: str, p: str, b: Any) -> httpx.Response | None:
        if (b or {}).get("op") != "write-doc":
            return None
        fake.add_doc(b["file_name"], b["content"])
        return httpx.Response(201, json={"uuid": "NOT-A-UUID", "file_name": b["file_name"],
                                         "content": b["content"]})

    return intercept


@pytest.mark.asyncio
@pytest.mark.parametrize("failure", ["dropped", "broken answer"])
async def test_a_create_without_a_usable_answer_after_the_delete_may_have_landed(
        make, fake, failure) -> None:
    doc_uuid = fake.add_doc("a.md", "old content")
    fake.intercept = (dropped(op="write-doc") if failure == "dropped"
                      else landed_with_a_broken_answer(fake))
    client = make("remote-session")
    with pytest.raises(ReplaceOutcomeUnknown) as caught:
        await client.write("a.md", content="new")
    assert (caught.value.path, caught.value.deleted_doc_uuid) == ("a.md", doc_uuid)
    assert [d["content"] for d in fake.docs.values()] == (
        [] if failure == "dropped" else ["new"])
    entry = client.history()[0]
    assert (entry["action"], entry["previous_doc_uuid"], entry["has_previous"]) == (
        "replace_incomplete", doc_uuid, True)


@pytest.mark.asyncio
@pytest.mark.parametrize(("route", "method", "op", "existing", "call", "action"), [
    ("org", "POST", None, False, "write", "create_unknown"),
    ("org", "PATCH", None, True, "write", "replace_unknown"),
    ("org", "DELETE", None, True, "delete", "delete_unknown"),
    ("remote-session", None, "write-doc", False, "write", "create_unknown"),
    ("remote-session", None, "delete-doc", True, "write", "replace_unknown"),
    ("remote-session", None, "delete-doc", True, "delete", "delete_unknown"),
])
async def test_a_change_without_an_answer_is_journaled_as_unknown(
        make, fake, route, method, op, existing, call, action) -> None:
    if existing:
        fake.add_doc("claude/a.md", "old")
    fake.intercept = dropped(method, op)
    client = make(route)
    with pytest.raises(ProjectsTransportFailed):
        if call == "write":
            await client.write("a.md", content="new")
        else:
            await client.delete("claude/a.md")
    entry = client.history()[0]
    assert (entry["action"], entry["path"], entry["has_previous"]) == (
        action, "claude/a.md", existing)
    assert entry["bytes"] == (None if call == "delete" else 3)
    if existing:  # what the change may have removed can be put back
        fake.intercept = None
        await client.restore(entry["id"])
        assert [d["content"] for d in fake.docs.values()] == ["old"]


@pytest.mark.asyncio
async def test_a_cancelled_write_is_journaled_as_unknown(make, fake) -> None:
    fake.add_doc("a.md", "old")
    in_flight, never = asyncio.Event(), asyncio.Event()

    async def hang(m: str, p: str, b: Any) -> None:
        if m == "PATCH":
            in_flight.set()
            await never.wait()

    fake.intercept = hang
    client = make()
    task = asyncio.create_task(client.write("a.md", content="new"))
    async with asyncio.timeout(10):
        await in_flight.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    entry = client.history()[0]
    assert (entry["action"], entry["has_previous"]) == ("replace_unknown", True)


@pytest.mark.asyncio
@pytest.mark.parametrize(("method", "existing", "call", "ahead", "settled"), [
    ("POST", False, "write", "create_unknown", "create"),
    ("PATCH", True, "write", "replace_unknown", "replace"),
    ("DELETE", True, "delete", "delete_unknown", "delete"),
])
async def test_the_journal_is_written_before_the_change_is_sent(
        make, fake, method, existing, call, ahead, settled) -> None:
    if existing:
        fake.add_doc("claude/a.md", "old")
    client = make()
    seen: list[list[tuple[str, str]]] = []

    def look(m: str, p: str, b: Any) -> None:  # the service has the request: what is kept?
        if m == method:
            seen.append([(e["action"], e["path"]) for e in client.history()])

    fake.intercept = look
    if call == "write":
        result = await client.write("a.md", content="new")
    else:
        result = await client.delete("claude/a.md")
    assert seen == [[(ahead, "claude/a.md")]]  # a kill from here on leaves this entry
    entries = client.history()
    assert [(e["id"], e["action"]) for e in entries] == [(result["journal_id"], settled)]
    assert entries[0]["doc_uuid"] == (None if call == "delete" else result["doc_uuid"])


@pytest.mark.asyncio
@pytest.mark.parametrize(("status", "journaled"), [
    (400, []), (413, []), (429, []), (499, []),          # refused: nothing changed
    (503, []), (529, []),                                # unavailable, overloaded: not taken
    (500, ["create_unknown"]), (502, ["create_unknown"]),  # a gateway may answer these
    (504, ["create_unknown"]),                             # after the change was made
])
async def test_a_refused_create_is_not_journaled_and_a_5xx_stays_unknown(
        make, fake, status, journaled) -> None:
    fake.intercept = lambda m, p, b: error(status, "api_error", "no") if m == "POST" else None
    client = make()
    with pytest.raises(ProjectsApiError):
        await client.write("a.md", content="x")
    assert [e["action"] for e in client.history()] == journaled


@pytest.mark.asyncio
async def test_a_delete_answered_502_keeps_what_it_may_have_removed(make, fake) -> None:
    fake.add_doc("claude/a.md", "kept content")
    fake.intercept = lambda m, p, b: error(502, "api_error", "bad gateway") \
        if m == "DELETE" else None
    client = make()
    with pytest.raises(ProjectsApiError):
        await client.delete("claude/a.md")
    [entry] = client.history()
    assert (entry["action"], entry["has_previous"]) == ("delete_unknown", True)


@pytest.mark.asyncio
async def test_a_journal_that_cannot_record_is_reported_on_the_result(
        make, fake, monkeypatch) -> None:
    client = make()

    def full(**entry: Any) -> int:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(client._journal, "record", full)
    result = await client.write("a.md", content="x")
    assert "journal_id" not in result and result["journal_warning"]
    assert [d["content"] for d in fake.docs.values()] == ["x"]  # the write is not misreported


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_the_knowledge_budget_allows_exactly_the_maximum(make, fake, route) -> None:
    fake.add_doc("a.md", "x" * 40)  # 10 tokens
    fake.max_knowledge_size = 10 + 3
    result = await make(route).write("b.md", content="y" * 12)  # 3 tokens
    assert result["path"] == "claude/b.md"


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_one_token_over_the_budget_is_refused_before_any_write(make, fake, route) -> None:
    fake.add_doc("a.md", "x" * 40)
    fake.max_knowledge_size = 10 + 3
    with pytest.raises(KnowledgeBudgetExceeded) as caught:
        await make(route).write("a.md", content="y" * 13)  # 4 tokens, a replace
    assert (caught.value.knowledge_size, caught.value.estimate,
            caught.value.max_knowledge_size) == (10, 4, 13)
    assert len(fake.requests) == 1  # the detail only
    assert [d["content"] for d in fake.docs.values()] == ["x" * 40]


@pytest.mark.asyncio
async def test_write_from_local_path_uploads_the_file_text(make, fake, tmp_path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "report.md").write_text("# Report\n")
    result = await make().write("report.md", local_path="report.md")
    assert result["local_path"] == os.path.realpath(tmp_path / "work" / "report.md")
    assert [d["content"] for d in fake.docs.values()] == ["# Report\n"]


@pytest.mark.asyncio
async def test_a_refused_local_path_sends_nothing(make, fake, tmp_path) -> None:
    (tmp_path / "work").mkdir()
    with pytest.raises(UploadRejected) as caught:
        await make().write("x.md", local_path="../journal.db")
    assert caught.value.rule == "outside_cwd"
    assert fake.requests == []


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_delete_removes_a_text_doc(make, fake, route) -> None:
    doc_uuid = fake.add_doc("a.md", "x")
    result = await make(route).delete("./a.md")
    assert (result["path"], result["doc_uuid"], result["deleted"]) == ("a.md", doc_uuid, True)
    assert fake.docs == {}


@pytest.mark.asyncio
async def test_an_upload_cannot_be_deleted(make, fake) -> None:
    fake.add_file("r.pdf", "document", b"x")
    with pytest.raises(PathRejected) as caught:
        await make().delete("r.pdf")
    assert caught.value.rule == RULE_UPLOAD
    assert [m for m, _p, _b in fake.requests] == ["GET"]


@pytest.mark.asyncio
async def test_deleting_a_missing_doc_lists_what_exists(make, fake) -> None:
    fake.add_doc("a.md", "x")
    with pytest.raises(DocNotFound) as caught:
        await make().delete("b.md")
    assert caught.value.available == ["a.md"]


# ---------------------------------------------------------------- journal and restore


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_journal_and_restore_round_trip(make, fake, route) -> None:
    client = make(route)
    created = await client.write("notes.md", content="v1")
    await client.write("notes.md", content="v2")
    await client.delete("claude/notes.md")
    history = client.history()
    assert [e["action"] for e in history] == ["delete", "replace", "create"]
    assert history[2]["doc_uuid"] == created["doc_uuid"] and history[2]["bytes"] == 2
    assert [e["has_previous"] for e in history] == [True, True, False]
    restored = await client.restore(history[0]["id"])  # brings back v2
    assert (restored["path"], restored["restored_from"]) == ("claude/notes.md", history[0]["id"])
    assert [d["content"] for d in fake.docs.values()] == ["v2"]
    await client.restore(history[1]["id"])  # the replace removed v1
    assert [d["content"] for d in fake.docs.values()] == ["v1"]
    assert client.history(limit=1)[0]["restored_from"] == history[1]["id"]


@pytest.mark.asyncio
async def test_restore_keeps_a_bare_path_bare(make, fake) -> None:
    fake.add_doc("README.md", "original")
    client = make()
    await client.delete("README.md")
    result = await client.restore(client.history()[0]["id"])
    assert result["path"] == "README.md"


@pytest.mark.asyncio
async def test_an_entry_without_previous_content_cannot_be_restored(make, fake) -> None:
    client = make()
    await client.write("a.md", content="x")
    with pytest.raises(InvalidProjectsArgument) as caught:
        await client.restore(client.history()[0]["id"])
    assert caught.value.field == "entry_id"


@pytest.mark.asyncio
async def test_restoring_a_create_is_refused_by_the_client_with_nothing_sent(make, fake) -> None:
    client = make()
    await client.write("a.md", content="x")
    entry = client.history()[0]
    assert entry["restore_kind"] == "created"
    sent = len(fake.requests)
    with pytest.raises(InvalidProjectsArgument) as caught:
        await client.restore(entry["id"])
    assert (caught.value.method, caught.value.field) == ("restore", "entry_id")
    assert "would delete 'claude/a.md'" in caught.value.rule
    assert caught.value.remedy == Remedy("project_delete", path="claude/a.md")
    assert len(fake.requests) == sent
    assert [d["content"] for d in fake.docs.values()] == ["x"]


@pytest.mark.asyncio
async def test_an_entry_with_nothing_kept_is_refused_without_the_create_wording(
        make, fake, tmp_path) -> None:
    client = make()
    entry_id = Journal(tmp_path / "journal.db").record(
        project_uuid=client.project_uuid, action="delete_unknown", path="a.md",
        doc_uuid=None)
    with pytest.raises(InvalidProjectsArgument) as caught:
        await client.restore(entry_id)
    assert caught.value.rule == "recorded no previous content to restore"


@pytest.mark.asyncio
async def test_another_projects_entry_cannot_be_restored(make, fake, tmp_path) -> None:
    other = Journal(tmp_path / "journal.db").record(
        project_uuid="99999999-2222-4333-8444-555555555555", action="delete", path="a.md",
        doc_uuid=None, previous_content="theirs")
    with pytest.raises(InvalidProjectsArgument):
        await make().restore(other)
    assert fake.requests == []


# ---------------------------------------------------------------- sync's exact calls


class Guard:
    """A sync's guard: records what it was shown, then refuses or answers `seen`."""

    def __init__(self, seen: str | None = None, refuse: bool = False) -> None:
        self.seen, self.refuse = seen, refuse
        self.calls: list[tuple[list[str], str | None, Any]] = []

    async def __call__(self, detail, old, read) -> str | None:
        self.calls.append(([d.path for d in detail.docs], old.uuid if old else None, read))
        if self.refuse:
            raise InvalidProjectsArgument("sync", "path", "changed since the plan")
        return self.seen


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_write_exact_keeps_a_bare_path_bare_and_journals_the_create(
        make, fake, route) -> None:
    guard = Guard()
    client = make(route)
    result = await client.write_exact("./notes.md", "new", guard=guard)
    [doc] = fake.docs.values()
    assert (doc["file_name"], doc["content"]) == ("notes.md", "new")
    assert {k: result[k] for k in ("doc_uuid", "path", "replaced", "bytes")} == {
        "doc_uuid": doc["uuid"], "path": "notes.md", "replaced": False, "bytes": 3}
    assert guard.calls[0][:2] == ([], None)
    [entry] = client.history()
    assert (entry["id"], entry["action"], entry["path"]) == (
        result["journal_id"], "create", "notes.md")


@pytest.mark.asyncio
async def test_write_exact_carries_the_scope_notice(make, fake) -> None:
    result = await make(scopes=Scopes("scopes added")).write_exact("a.md", "x", guard=Guard())
    assert result["notice"] == "scopes added"


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_write_exact_replaces_keeping_what_the_guard_read(make, fake, route) -> None:
    old_uuid = fake.add_doc("notes.md", "old")
    guard = Guard(seen="old as the guard read it")
    client = make(route)
    result = await client.write_exact("notes.md", "new", guard=guard)
    assert (result["path"], result["replaced"]) == ("notes.md", True)
    assert [d["content"] for d in fake.docs.values()] == ["new"]
    assert guard.calls[0][:2] == (["notes.md"], old_uuid)
    # the guard's read is the service's doc reader
    assert (await guard.calls[0][2](result["doc_uuid"]))["content"] == "new"
    entry = client._journal.get(client.history()[0]["id"])
    assert (entry["action"], entry["previous_doc_uuid"], entry["previous_content"]) == (
        "replace", old_uuid, "old as the guard read it")


@pytest.mark.asyncio
async def test_write_exact_reads_the_replaced_doc_when_the_guard_did_not(make, fake) -> None:
    old_uuid = fake.add_doc("notes.md", "old")
    client = make()
    await client.write_exact("notes.md", "new", guard=Guard(seen=None))
    entry = client._journal.get(client.history()[0]["id"])
    assert (entry["previous_doc_uuid"], entry["previous_content"]) == (old_uuid, "old")
    assert [m for m, _p, _b in fake.requests] == ["GET", "GET", "PATCH"]


@pytest.mark.asyncio
async def test_write_exact_without_a_journal_reads_nothing_back(make, fake) -> None:
    fake.add_doc("notes.md", "old")
    result = await make(journal=False).write_exact("notes.md", "new", guard=Guard(seen="s"))
    assert "journal_id" not in result
    assert [m for m, _p, _b in fake.requests] == ["GET", "PATCH"]


@pytest.mark.asyncio
async def test_write_exact_refused_by_its_guard_sends_no_change(make, fake) -> None:
    fake.add_doc("notes.md", "old")
    client = make()
    with pytest.raises(InvalidProjectsArgument):
        await client.write_exact("notes.md", "new", guard=Guard(refuse=True))
    assert [m for m, _p, _b in fake.requests] == ["GET"]
    assert client.history() == []


@pytest.mark.asyncio
async def test_write_exact_refuses_a_new_path_with_hidden_characters(make, fake) -> None:
    with pytest.raises(PathRejected) as caught:
        await make().write_exact("a\u200bb.md", "x", guard=Guard())
    assert caught.value.path == "a\u200bb.md"
    assert fake.docs == {}


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_delete_exact_removes_the_doc_the_guard_accepted(make, fake, route) -> None:
    fake.add_doc("other.md", "stays")
    doc_uuid = fake.add_doc("notes.md", "old")
    guard = Guard(seen="old as the guard read it")
    client = make(route)
    result = await client.delete_exact("./notes.md", guard=guard)
    assert {k: result[k] for k in ("path", "doc_uuid", "deleted")} == {
        "path": "notes.md", "doc_uuid": doc_uuid, "deleted": True}
    assert [d["file_name"] for d in fake.docs.values()] == ["other.md"]
    paths, old, read = guard.calls[0]
    assert (sorted(paths), old) == (["notes.md", "other.md"], doc_uuid)
    assert (await read(next(iter(fake.docs))))["content"] == "stays"
    [listed] = client.history()
    assert (listed["id"], listed["action"], listed["path"], listed["doc_uuid"]) == (
        result["journal_id"], "delete", "notes.md", None)
    entry = client._journal.get(listed["id"])
    assert (entry["previous_doc_uuid"], entry["previous_content"]) == (
        doc_uuid, "old as the guard read it")


@pytest.mark.asyncio
async def test_delete_exact_reads_the_doc_when_the_guard_did_not(make, fake) -> None:
    doc_uuid = fake.add_doc("notes.md", "old")
    client = make()
    await client.delete_exact("notes.md", guard=Guard(seen=None))
    entry = client._journal.get(client.history()[0]["id"])
    assert (entry["previous_doc_uuid"], entry["previous_content"]) == (doc_uuid, "old")
    assert [m for m, _p, _b in fake.requests] == ["GET", "GET", "DELETE"]


@pytest.mark.asyncio
async def test_delete_exact_without_a_journal_reads_nothing_back(make, fake) -> None:
    fake.add_doc("notes.md", "old")
    result = await make(journal=False).delete_exact("notes.md", guard=Guard(seen="s"))
    assert "journal_id" not in result and result["deleted"] is True
    assert [m for m, _p, _b in fake.requests] == ["GET", "DELETE"]


@pytest.mark.asyncio
async def test_delete_exact_carries_the_scope_notice(make, fake) -> None:
    fake.add_doc("a.md", "x")
    result = await make(scopes=Scopes("scopes added")).delete_exact("a.md", guard=Guard())
    assert result["notice"] == "scopes added"


@pytest.mark.asyncio
async def test_delete_exact_of_a_missing_doc_asks_the_guard_then_lists_what_exists(
        make, fake) -> None:
    for i in range(31):
        fake.add_doc(f"d{i:02}.md", "x")
    guard = Guard()
    with pytest.raises(DocNotFound) as caught:
        await make().delete_exact("gone.md", guard=guard)
    assert caught.value.path == "gone.md"
    assert caught.value.available == [f"d{i:02}.md" for i in range(30)]
    assert guard.calls[0][1] is None
    assert len(fake.docs) == 31


@pytest.mark.asyncio
async def test_delete_exact_refused_by_its_guard_deletes_nothing(make, fake) -> None:
    fake.add_doc("notes.md", "old")
    client = make()
    with pytest.raises(InvalidProjectsArgument):
        await client.delete_exact("notes.md", guard=Guard(refuse=True))
    assert [d["content"] for d in fake.docs.values()] == ["old"]
    assert client.history() == []


@pytest.mark.asyncio
async def test_delete_exact_without_an_answer_stays_journaled_as_unknown(make, fake) -> None:
    fake.add_doc("notes.md", "old")
    fake.intercept = dropped("DELETE")
    client = make()
    with pytest.raises(ProjectsTransportFailed):
        await client.delete_exact("notes.md", guard=Guard(seen="old"))
    [entry] = client.history()
    assert (entry["action"], entry["has_previous"]) == ("delete_unknown", True)


@pytest.mark.asyncio
@pytest.mark.parametrize(("path", "existing", "target"), [
    ("notes.md", [], ("claude/notes.md", False)),
    ("./notes.md", ["notes.md"], ("notes.md", True)),
    ("notes.md", ["claude/notes.md"], ("claude/notes.md", True)),
    ("team/a.md", ["a.md"], ("team/a.md", False)),
])
async def test_write_target_names_where_a_write_would_land(make, fake, path, existing,
                                                           target) -> None:
    for name in existing:
        fake.add_doc(name, "x")
    assert await make().write_target(path) == target
    assert [m for m, _p, _b in fake.requests] == ["GET"]


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_listing_and_doc_text_answer_the_fresh_project(make, fake, route) -> None:
    doc_uuid = fake.add_doc("a.md", "alpha")
    client = make(route)
    listing = await client.listing()
    assert [(d.uuid, d.path) for d in listing.docs] == [(doc_uuid, "a.md")]
    assert (await client.doc_text(doc_uuid))["content"] == "alpha"


@pytest.mark.asyncio
async def test_a_refusal_without_a_journal_is_the_services_error(make, fake) -> None:
    fake.intercept = lambda m, p, b: error(409, "conflict", "no") if m == "POST" else None
    with pytest.raises(ProjectsApiError) as caught:
        await make(journal=False).write("a.md", content="x")
    assert caught.value.status == 409


@pytest.mark.asyncio
@pytest.mark.parametrize("failure", [sqlite3.OperationalError("locked"),
                                     OSError(28, "No space left on device")])
async def test_a_journal_that_cannot_withdraw_a_refused_change_still_reports_the_refusal(
        make, fake, monkeypatch, failure) -> None:
    fake.intercept = lambda m, p, b: error(409, "conflict", "no") if m == "POST" else None
    client = make()

    def broken(entry_id: int) -> None:
        raise failure

    monkeypatch.setattr(client._journal, "withdraw", broken)
    with pytest.raises(ProjectsApiError) as caught:
        await client.write("a.md", content="x")
    assert caught.value.status == 409


def record_fails_once(client, monkeypatch) -> None:
    """The journal cannot write the entry ahead of the change, then recovers."""
    real, calls = client._journal.record, []

    def once(**entry: Any) -> int:
        calls.append(entry["action"])
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return real(**entry)

    monkeypatch.setattr(client._journal, "record", once)


@pytest.mark.asyncio
@pytest.mark.parametrize(("failure", "action"), [
    (None, "create"),
    ("dropped", "create_unknown"),
    ("502", "create_unknown"),
])
async def test_a_change_not_written_ahead_is_journaled_once_its_outcome_is_known(
        make, fake, monkeypatch, failure, action) -> None:
    if failure == "dropped":
        fake.intercept = dropped("POST")
    elif failure == "502":
        fake.intercept = lambda m, p, b: error(502, "api_error", "gateway") \
            if m == "POST" else None
    client = make()
    record_fails_once(client, monkeypatch)
    if failure is None:
        result = await client.write("a.md", content="new")
    else:
        with pytest.raises(ProjectsApiError):
            await client.write("a.md", content="new")
    [entry] = client.history()
    assert (entry["action"], entry["path"], entry["bytes"]) == (action, "claude/a.md", 3)
    if failure is None:
        assert result["journal_id"] == entry["id"]


class Progress:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def __call__(self, label: str, done: int, total: int) -> None:
        self.calls.append((label, done, total))


@pytest.mark.asyncio
async def test_a_write_reports_its_upload_progress_from_zero_to_its_utf8_size(
        fake, tmp_path) -> None:
    from jupyter_design_projects.projects.client import ProjectsClient
    from jupyter_design_projects.settings import Settings
    from tests.fakes.projects import ORG, PROJECT, WEB

    progress = Progress()
    client = ProjectsClient(
        httpx.AsyncClient(transport=fake.transport()),
        Settings(api_base_url=WEB, web_base_url=WEB, project_uuid=PROJECT, org_uuid=ORG),
        ensure_scopes=Scopes(None), temp_dir=tmp_path / "downloads", progress=progress)
    result = await client.write("a.md", content="né")
    assert result["bytes"] == 3
    assert progress.calls == [("upload claude/a.md", 0, 3), ("upload claude/a.md", 3, 3)]


@pytest.mark.asyncio
async def test_a_write_is_marked_for_the_host_to_present(make, fake, tmp_path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "report.md").write_text("# Report\n")
    client = make()
    for result in (await client.write("a.md", content="x"),
                   await client.write("report.md", local_path="report.md")):
        assert result["present_to_user"] is True
    assert result["path"] == "claude/report.md"  # a local file's bare name is namespaced too


@pytest.mark.asyncio
async def test_a_local_file_in_another_encoding_is_read_in_it(make, fake, tmp_path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_bytes("café".encode("latin-1"))
    result = await make().write("notes.txt", local_path="notes.txt", encoding="latin-1")
    assert [d["content"] for d in fake.docs.values()] == ["café"]
    assert result["bytes"] == len("café".encode())


@pytest.mark.asyncio
async def test_refusals_of_a_delete_name_the_path(make, fake) -> None:
    fake.add_file("r.pdf", "document", b"x")
    client = make()
    with pytest.raises(PathRejected) as rejected:
        await client.delete("./r.pdf")
    with pytest.raises(DocNotFound) as missing:
        await client.delete("./b.md")
    assert (rejected.value.path, missing.value.path) == ("r.pdf", "b.md")


@pytest.mark.asyncio
async def test_history_answers_at_most_limit_entries_newest_first(make, fake) -> None:
    client = make()
    for name in ("a.md", "b.md", "c.md"):
        await client.write(name, content="x")
    assert [e["path"] for e in client.history(limit=2)] == ["claude/c.md", "claude/b.md"]


@pytest.mark.asyncio
async def test_restore_refusals_name_the_method_field_and_rule(make, fake, tmp_path) -> None:
    client = make()
    with pytest.raises(InvalidProjectsArgument) as unknown:
        await client.restore(12345)
    assert (unknown.value.method, unknown.value.field, unknown.value.rule) == (
        "restore", "entry_id", "is not an entry of this project's journal")
    entry_id = Journal(tmp_path / "journal.db").record(
        project_uuid=client.project_uuid, action="delete_unknown", path="a.md", doc_uuid=None)
    with pytest.raises(InvalidProjectsArgument) as empty:
        await client.restore(entry_id)
    assert (empty.value.method, empty.value.field) == ("restore", "entry_id")


@pytest.mark.asyncio
async def test_restore_without_a_journal_has_no_entry_to_restore(make, fake) -> None:
    with pytest.raises(InvalidProjectsArgument) as caught:
        await make(journal=False).restore(1)
    assert caught.value.rule == "is not an entry of this project's journal"
    assert fake.requests == []
