"""The local journal of remote Project writes: remote writes survive a notebook rewind, so
each create, replace and delete — and each one whose outcome is unknown — is recorded
(time, project, path, doc uuid, bytes, sha256, and the content a replace or delete
removed) in a per-user SQLite file, to show what changed and to restore it.

The journal is written ahead: an entry goes in as `<action>_unknown` before the change is
sent, and is settled (`settle`) to what happened when the answer comes, or withdrawn
(`withdraw`) when the service refused and nothing changed. A kernel killed while a change
is in flight leaves the `*_unknown` entry, never a remote change with no entry.

sqlite3 and hashlib load on first use: the magics' usage text needs HISTORY_DEFAULT at
`%load_ext`, and nothing else from here."""

from __future__ import annotations

import contextlib
import datetime
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..data_dir import private_database

if TYPE_CHECKING:
    import sqlite3

#: how many entries `%project history` shows when not told
HISTORY_DEFAULT = 50

SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    project_uuid TEXT NOT NULL,
    action TEXT NOT NULL,
    path TEXT NOT NULL,
    doc_uuid TEXT,
    bytes INTEGER,
    sha256 TEXT,
    previous_doc_uuid TEXT,
    previous_bytes INTEGER,
    previous_sha256 TEXT,
    previous_content TEXT,
    restored_from INTEGER,
    approved_by TEXT
);
CREATE INDEX IF NOT EXISTS entries_by_project ON entries (project_uuid, id);
"""

INSERT = ("INSERT INTO entries (at, project_uuid, action, path, doc_uuid, bytes, sha256,"
          " previous_doc_uuid, previous_bytes, previous_sha256, previous_content,"
          " restored_from, approved_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")

#: what `entries()` lists; `get()` adds the previous content itself
LISTED = ("id", "at", "project_uuid", "action", "path", "doc_uuid", "bytes", "sha256",
          "previous_doc_uuid", "previous_bytes", "previous_sha256", "restored_from",
          "approved_by")

#: how a change was approved (`approved_by`): on its card in the notebook, by `--yes` on the
#: magic's line (no card was shown), or by a script's `approve` callback; None: recorded
#: before this column existed, or by a caller that did not say
APPROVED_ON_CARD = "card"
APPROVED_BY_YES = "--yes"
APPROVED_BY_CALLBACK = "approve callback"
#: who approved a change, as `%project history` and the Project panel say it
APPROVED_WORDS = {
    APPROVED_ON_CARD: "on its card",
    APPROVED_BY_YES: "--yes (no card)",
    APPROVED_BY_CALLBACK: "a script's approve callback",
}
#: what they say for an entry that did not record it
APPROVAL_NOT_RECORDED = "not recorded"


def approved_words(approved_by: Any) -> str:
    """Who approved a journaled change, in words (an older entry: not recorded)."""
    if isinstance(approved_by, str) and approved_by in APPROVED_WORDS:
        return APPROVED_WORDS[approved_by]
    return APPROVAL_NOT_RECORDED


#: how a journal entry can be restored, declared here once (`restore_kind`): the entries
#: carry it, `ProjectsClient.restore` enforces it, and the magics, the side panel and its
#: TypeScript read it. WRITE_BACK: the content the change replaced or deleted was kept,
#: and restoring writes it back; CREATED: the change created the doc, so nothing came
#: before it (undoing it would be a delete); NOTHING_KEPT: no earlier content was kept.
RESTORE_WRITE_BACK = "write_back"
RESTORE_CREATED = "created"
RESTORE_NOTHING_KEPT = "nothing_kept"


def restore_kind(entry: Mapping[str, Any]) -> str:
    """How `entry` (a listed one with `has_previous`, or a full one with
    `previous_content`) can be restored: one of the RESTORE_* kinds."""
    if entry.get("has_previous") or entry.get("previous_content") is not None:
        return RESTORE_WRITE_BACK
    if str(entry.get("action") or "").startswith("create"):
        return RESTORE_CREATED
    return RESTORE_NOTHING_KEPT


def with_restore_rule(entry: dict[str, Any]) -> dict[str, Any]:
    """The entry with its `restore_kind` and `restorable` (only a write-back restores)."""
    kind = restore_kind(entry)
    return {**entry, "restore_kind": kind, "restorable": kind == RESTORE_WRITE_BACK}


#: the digest encodes this many characters at a time (a 25 MiB doc is not copied whole)
DIGEST_SLICE_CHARS = 1 << 20


def _digest(text: str | None) -> tuple[int | None, str | None]:
    """(UTF-8 bytes, sha256) of the text, encoded a slice at a time."""
    if text is None:
        return None, None
    import hashlib

    digest, size = hashlib.sha256(), 0
    for at in range(0, len(text), DIGEST_SLICE_CHARS):
        data = text[at:at + DIGEST_SLICE_CHARS].encode("utf-8")
        digest.update(data)
        size += len(data)
    return size, digest.hexdigest()


class Journal:
    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        with private_database(self.path, schema=SCHEMA) as db:
            columns = {row[1] for row in db.execute("PRAGMA table_info(entries)")}
            if "approved_by" not in columns:  # a journal written before it was recorded
                db.execute("ALTER TABLE entries ADD COLUMN approved_by TEXT")

    def _connect(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return private_database(self.path, rows=True)

    def record(
        self,
        *,
        project_uuid: str,
        action: str,
        path: str,
        doc_uuid: str | None,
        content: str | None = None,
        previous_doc_uuid: str | None = None,
        previous_content: str | None = None,
        restored_from: int | None = None,
        approved_by: str | None = None,
    ) -> int:
        """Append one entry. `action`: create, replace, delete; replace_incomplete (the
        delete of a remote-session replace was done, the create was not or may not have
        been); create_unknown, replace_unknown, delete_unknown (no usable answer: the
        change may or may not have happened). `approved_by`: one of the APPROVED_* ways."""
        with self._connect() as db:
            cursor = db.execute(INSERT, self._row(
                project_uuid=project_uuid, action=action, path=path, doc_uuid=doc_uuid,
                content=content, previous_doc_uuid=previous_doc_uuid,
                previous_content=previous_content, restored_from=restored_from,
                approved_by=approved_by))
            return int(cursor.lastrowid or 0)

    def record_many(self, entries: list[dict[str, Any]]) -> list[int]:
        """Append several entries (each `record`'s keyword arguments) in one commit: all
        of them are in the file, or none is. Their ids, in order."""
        with self._connect() as db:
            ids = []
            for entry in entries:
                cursor = db.execute(INSERT, self._row(**entry))
                ids.append(int(cursor.lastrowid or 0))
            return ids

    def _row(
        self, *, project_uuid: str, action: str, path: str, doc_uuid: str | None,
        content: str | None = None, previous_doc_uuid: str | None = None,
        previous_content: str | None = None, restored_from: int | None = None,
        approved_by: str | None = None,
    ) -> tuple[Any, ...]:
        at = datetime.datetime.fromtimestamp(self._clock(), datetime.UTC)
        n_bytes, sha = _digest(content)
        prev_bytes, prev_sha = _digest(previous_content)
        return (at.isoformat().replace("+00:00", "Z"), project_uuid, action, path, doc_uuid,
                n_bytes, sha, previous_doc_uuid, prev_bytes, prev_sha, previous_content,
                restored_from, approved_by)

    def entries(self, project_uuid: str, limit: int = HISTORY_DEFAULT) -> list[dict[str, Any]]:
        """Newest first, without the previous content (`has_previous` says if there is one),
        each with its restore rule (`restore_kind`, `restorable`)."""
        with self._connect() as db:
            rows = db.execute(
                f"SELECT {', '.join(LISTED)}, previous_content IS NOT NULL AS has_previous"
                " FROM entries WHERE project_uuid = ? ORDER BY id DESC LIMIT ?",
                (project_uuid, max(0, int(limit))),
            ).fetchall()
        return [with_restore_rule({**dict(row), "has_previous": bool(row["has_previous"])})
                for row in rows]

    def get(self, entry_id: int) -> dict[str, Any] | None:
        with self._connect() as db:
            row = db.execute("SELECT * FROM entries WHERE id = ?", (entry_id,)).fetchone()
        return with_restore_rule(dict(row)) if row else None

    def settle(self, entry_id: int, action: str, doc_uuid: str | None) -> None:
        """A written-ahead entry's outcome: `action` (create, replace, delete,
        replace_incomplete) and the doc it left, if any."""
        with self._connect() as db:
            db.execute("UPDATE entries SET action = ?, doc_uuid = ? WHERE id = ?",
                       (action, doc_uuid, entry_id))

    def settle_many(self, settled: list[tuple[int, str, str | None]],
                    withdrawn: list[int]) -> None:
        """Several outcomes in one commit: `settled` as (id, action, doc uuid) like
        `settle`, `withdrawn` ids removed like `withdraw`."""
        with self._connect() as db:
            db.executemany("UPDATE entries SET action = ?, doc_uuid = ? WHERE id = ?",
                           [(action, doc, entry_id) for entry_id, action, doc in settled])
            db.executemany("DELETE FROM entries WHERE id = ?", [(i,) for i in withdrawn])

    def withdraw(self, entry_id: int) -> None:
        """Remove a written-ahead entry whose change the service refused (nothing changed)."""
        with self._connect() as db:
            db.execute("DELETE FROM entries WHERE id = ?", (entry_id,))

    def revision(self, project_uuid: str) -> tuple[int, int, int]:
        """Changes whenever an entry of the project is added, settled or withdrawn:
        (newest id, entries, entries still `*_unknown`)."""
        with self._connect() as db:
            row = db.execute(
                "SELECT coalesce(max(id), 0), count(*), "
                "coalesce(sum(action LIKE '%\\_unknown' ESCAPE '\\'), 0) "
                "FROM entries WHERE project_uuid = ?", (project_uuid,)).fetchone()
        return (int(row[0]), int(row[1]), int(row[2]))
