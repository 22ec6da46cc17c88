"""What decks pushed, kept in a per-user SQLite file across kernels."""

from __future__ import annotations

import stat

from jupyter_design_projects.design.deck import PushRecords

PID = "11111111-2222-3333-4444-555555555555"


def test_records_are_kept_per_service_and_project_in_a_private_file(tmp_path):
    path = tmp_path / "data" / "deck_pushes.sqlite3"
    first = PushRecords(path, "http://127.0.0.1:8123/")
    first.save(PID, {"s/a.html": ("sha-a", "e1"), "s/b.html": ("sha-b", "e2")})
    first.save(PID, {"s/a.html": ("sha-a2", "e3")})  # a later push replaces its record
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    again = PushRecords(path, "http://127.0.0.1:8123")  # another process, same service
    assert again.load(PID) == {"s/a.html": ("sha-a2", "e3"), "s/b.html": ("sha-b", "e2")}
    assert again.load("another-project") == {}
    assert PushRecords(path, "https://api.example.com").load(PID) == {}



def test_records_that_cannot_be_read_or_written_never_fail_a_push(tmp_path):
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the data dir should be")
    records = PushRecords(blocked / "deck_pushes.sqlite3", "http://127.0.0.1:9")
    assert records.load(PID) == {} and "could not be read" in (records.problem or "")
    records.save(PID, {"s/a.html": ("sha", "e1")})
    assert "could not be written" in (records.problem or "")


def test_records_locked_by_another_kernel_are_read_as_empty(tmp_path):
    import sqlite3

    path = tmp_path / "deck_pushes.sqlite3"
    PushRecords(path, "http://127.0.0.1:9").save(PID, {"s/a.html": ("sha", "e1")})
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another kernel mid-write
    try:
        records = PushRecords(path, "http://127.0.0.1:9", timeout_s=0.1)
        assert records.load(PID) == {} and "locked" in (records.problem or "")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert PushRecords(path, "http://127.0.0.1:9").load(PID) == {"s/a.html": ("sha", "e1")}
