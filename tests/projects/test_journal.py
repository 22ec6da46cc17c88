"""The local journal of remote writes: owner-only file, what an entry records, ordering,
limits, per-project listing."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

import pytest

from jupyter_design_projects.projects.journal import (
    RESTORE_CREATED,
    RESTORE_NOTHING_KEPT,
    RESTORE_WRITE_BACK,
    SCHEMA,
    Journal,
    restore_kind,
)

A = "0f8fad5b-d9cb-469f-a165-70867728950e"
B = "11111111-2222-4333-8444-555555555555"


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "private" / "journal.sqlite3", clock=lambda: 1_800_000_000.5)


def test_the_journal_file_and_its_new_directory_are_owner_only(journal: Journal) -> None:
    assert stat.S_IMODE(journal.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(journal.path.parent.stat().st_mode) == 0o700


def test_an_entry_records_time_path_uuid_bytes_and_hashes(journal: Journal) -> None:
    entry_id = journal.record(project_uuid=A, action="replace", path="claude/n.md",
                              doc_uuid="d2", content="new é", previous_doc_uuid="d1",
                              previous_content="old")
    entry = journal.get(entry_id)
    assert entry is not None
    assert entry["at"] == "2027-01-15T08:00:00.500000Z"
    assert (entry["project_uuid"], entry["action"], entry["path"], entry["doc_uuid"]) == (
        A, "replace", "claude/n.md", "d2")
    assert entry["bytes"] == len("new é".encode())
    assert entry["sha256"] == hashlib.sha256("new é".encode()).hexdigest()
    assert (entry["previous_doc_uuid"], entry["previous_content"], entry["previous_bytes"]) == (
        "d1", "old", 3)
    assert entry["previous_sha256"] == hashlib.sha256(b"old").hexdigest()


def test_a_delete_records_no_new_content(journal: Journal) -> None:
    entry = journal.get(journal.record(project_uuid=A, action="delete", path="a.md",
                                       doc_uuid=None, previous_content="gone"))
    assert entry is not None and (entry["bytes"], entry["sha256"]) == (None, None)


def test_entries_are_newest_first_per_project_and_limited(journal: Journal) -> None:
    ids = [journal.record(project_uuid=A, action="create", path=f"{i}.md", doc_uuid=str(i),
                          content="x") for i in range(5)]
    journal.record(project_uuid=B, action="create", path="other.md", doc_uuid="o", content="x")
    listed = journal.entries(A, limit=3)
    assert [e["id"] for e in listed] == ids[::-1][:3]
    assert all("previous_content" not in e and e["has_previous"] is False for e in listed)
    assert [e["path"] for e in journal.entries(B)] == ["other.md"]
    assert journal.entries(A, limit=0) == []


def test_an_unknown_entry_is_none(journal: Journal) -> None:
    assert journal.get(12345) is None


def test_entries_survive_reopening(journal: Journal) -> None:
    entry_id = journal.record(project_uuid=A, action="create", path="a.md", doc_uuid="d",
                              content="x")
    assert Journal(journal.path).get(entry_id)["path"] == "a.md"


def test_the_digest_of_a_long_text_is_the_digest_of_its_utf8_bytes():
    import hashlib

    from jupyter_design_projects.projects import journal

    text = ("é€𝄞 abc " * 400_000)[: journal.DIGEST_SLICE_CHARS * 3 + 11]
    data = text.encode("utf-8")
    assert journal._digest(text) == (len(data), hashlib.sha256(data).hexdigest())
    assert journal._digest("") == (0, hashlib.sha256(b"").hexdigest())
    assert journal._digest(None) == (None, None)


def test_a_written_ahead_entry_is_settled_or_withdrawn(journal: Journal) -> None:
    kept = journal.record(project_uuid=A, action="create_unknown", path="a.md", doc_uuid=None,
                          content="x")
    gone = journal.record(project_uuid=A, action="create_unknown", path="b.md", doc_uuid=None,
                          content="y")
    revisions = [journal.revision(A)]
    journal.settle(kept, "create", "d9")
    revisions.append(journal.revision(A))
    journal.withdraw(gone)
    revisions.append(journal.revision(A))
    assert revisions == [(gone, 2, 2), (gone, 2, 1), (kept, 1, 0)]  # each step is seen
    assert journal.revision(B) == (0, 0, 0)
    assert [(e["id"], e["action"], e["doc_uuid"], e["bytes"]) for e in journal.entries(A)] == [
        (kept, "create", "d9", 1)]


@pytest.mark.parametrize(("entry", "kind"), [
    ({"action": "replace", "has_previous": True}, RESTORE_WRITE_BACK),
    ({"action": "delete", "previous_content": ""}, RESTORE_WRITE_BACK),
    ({"action": "replace_incomplete", "has_previous": True}, RESTORE_WRITE_BACK),
    ({"action": "create", "has_previous": False}, RESTORE_CREATED),
    ({"action": "create_unknown", "previous_content": None}, RESTORE_CREATED),
    ({"action": "delete_unknown", "has_previous": False}, RESTORE_NOTHING_KEPT),
    ({"action": "replace_unknown", "previous_content": None}, RESTORE_NOTHING_KEPT),
])
def test_the_restore_rule_of_an_entry(entry: dict, kind: str) -> None:
    assert restore_kind(entry) == kind


def test_listed_and_fetched_entries_carry_their_restore_rule(journal: Journal) -> None:
    created = journal.record(project_uuid=A, action="create", path="a.md", doc_uuid="d1",
                             content="x")
    replaced = journal.record(project_uuid=A, action="replace", path="a.md", doc_uuid="d2",
                              content="y", previous_doc_uuid="d1", previous_content="x")
    listed = {e["id"]: (e["restore_kind"], e["restorable"]) for e in journal.entries(A)}
    assert listed == {created: (RESTORE_CREATED, False), replaced: (RESTORE_WRITE_BACK, True)}
    fetched = journal.get(replaced)
    assert fetched is not None and (fetched["restore_kind"], fetched["restorable"]) == (
        RESTORE_WRITE_BACK, True)


def test_how_a_change_was_approved_is_recorded_and_listed(journal: Journal) -> None:
    yes = journal.record(project_uuid="p", action="create", path="a.md", doc_uuid="d",
                         content="x", approved_by="--yes")
    unsaid = journal.record(project_uuid="p", action="delete", path="a.md", doc_uuid=None,
                            previous_content="x")
    assert [e["approved_by"] for e in journal.entries("p")] == [None, "--yes"]
    assert journal.get(yes)["approved_by"] == "--yes"
    assert journal.get(unsaid)["approved_by"] is None


def test_a_journal_written_before_approved_by_existed_gains_the_column(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite3"
    old_schema = SCHEMA.replace(",\n    approved_by TEXT", "")
    assert "approved_by" not in old_schema
    with sqlite3.connect(path) as db:
        db.executescript(old_schema)
        db.execute("INSERT INTO entries (at, project_uuid, action, path) VALUES "
                   "('2026-01-01T00:00:00Z', 'p', 'create', 'old.md')")
    journal = Journal(path)
    journal.record(project_uuid="p", action="create", path="new.md", doc_uuid="d",
                   content="y", approved_by="card")
    assert [(e["path"], e["approved_by"]) for e in journal.entries("p")] == [
        ("new.md", "card"), ("old.md", None)]
