"""A sync's group of exact changes (`ProjectsClient.send_exact`) against the in-memory
fake: every entry written ahead in one commit before the first request, the outcomes in
one more, a failure's entry by the single write's rule, the changes never sent withdrawn,
a stop between changes, and a journal that cannot write ahead."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from jupyter_design_projects.errors import ProjectsApiError
from jupyter_design_projects.projects.journal import Journal
from jupyter_design_projects.projects.write_groups import Change
from tests.fakes.projects import error


def three(fake) -> list[Change]:
    """A create, a replace and a delete, in that order."""
    old_b = fake.add_doc("s/b.md", "old b")
    old_c = fake.add_doc("s/c.md", "old c")
    return [Change("s/a.md", "new a"), Change("s/b.md", "new b", old_b, "old b"),
            Change("s/c.md", None, old_c, "old c")]


def connections(monkeypatch) -> list[int]:
    """How many times the journal is opened (each opening is one commit)."""
    opened: list[int] = []
    real = Journal._connect

    def counted(self):
        opened.append(1)
        return real(self)

    monkeypatch.setattr(Journal, "_connect", counted)
    return opened


@pytest.mark.asyncio
async def test_every_entry_is_written_ahead_in_one_commit_and_settled_in_one(
        make, fake, monkeypatch) -> None:
    client = make()
    changes = three(fake)
    seen: list[list[tuple[str, str]]] = []

    def look(method: str, path: str, body: Any) -> None:
        if method in ("POST", "PATCH", "DELETE") and not seen:  # the group's first request
            seen.append(sorted((e["action"], e["path"]) for e in client.history()))

    fake.intercept = look
    opened = connections(monkeypatch)
    result = await client.send_exact(changes)
    assert len(opened) == 2 + 1  # ahead, then the outcomes (+ the look above): not 2 a change
    ahead = [("create_unknown", "s/a.md"), ("delete_unknown", "s/c.md"),
             ("replace_unknown", "s/b.md")]
    assert seen[0] == ahead  # the first request: every change of the group has its entry
    assert result.done == 3 and result.journal_warning is None
    entries = {e["path"]: e for e in client.history()}
    assert {p: e["action"] for p, e in entries.items()} == {
        "s/a.md": "create", "s/b.md": "replace", "s/c.md": "delete"}
    assert entries["s/a.md"]["doc_uuid"] == changes[0].doc["uuid"]
    assert entries["s/c.md"]["has_previous"] and entries["s/c.md"]["doc_uuid"] is None
    assert [c.journal_id for c in changes] == [entries[p]["id"] for p in
                                               ("s/a.md", "s/b.md", "s/c.md")]


@pytest.mark.asyncio
@pytest.mark.parametrize(("status", "kept"), [
    (400, []), (503, []),                       # refused / not taken: nothing changed
    (502, ["replace_unknown"]),                 # may have come after the change
])
async def test_a_failure_stops_the_group_and_the_changes_never_sent_are_withdrawn(
        make, fake, status, kept) -> None:
    client = make()
    changes = three(fake)
    fake.intercept = (lambda m, p, b: error(status, "api_error", "no") if m == "PATCH"
                      else None)
    with pytest.raises(ProjectsApiError) as raised:
        await client.send_exact(changes)
    assert raised.value.status == status
    actions = {e["path"]: e["action"] for e in client.history()}
    # the create is settled; the replace by its status; the delete was never sent
    assert actions == {"s/a.md": "create", **dict(zip(["s/b.md"], kept, strict=False))}
    assert any(d["file_name"] == "s/c.md" for d in fake.docs.values())


@pytest.mark.asyncio
async def test_a_stop_between_changes_sends_no_more_and_withdraws_their_entries(
        make, fake) -> None:
    client = make()
    changes = three(fake)
    sent: list[str] = []
    result = await client.send_exact(changes, sent=lambda c: sent.append(c.path),
                                     stop=lambda: len(sent) >= 1)
    assert result.done == 1 and sent == ["s/a.md"]
    assert [(e["action"], e["path"]) for e in client.history()] == [("create", "s/a.md")]
    assert [d["content"] for d in fake.docs.values() if d["file_name"] == "s/b.md"] == [
        "old b"]


@pytest.mark.asyncio
async def test_a_journal_that_cannot_write_ahead_still_journals_after(
        make, fake, monkeypatch) -> None:
    client = make()
    changes = three(fake)
    real = Journal.record_many
    calls = []

    def failing_once(self, entries):
        calls.append(len(entries))
        if len(calls) == 1:
            raise sqlite3.OperationalError("disk I/O error")
        return real(self, entries)

    monkeypatch.setattr(Journal, "record_many", failing_once)
    result = await client.send_exact(changes)
    assert result.done == 3
    assert result.journal_warning is not None and "journal" in result.journal_warning
    assert sorted(e["action"] for e in client.history()) == ["create", "delete", "replace"]
