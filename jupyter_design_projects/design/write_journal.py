"""The local journal of Design writes: each call that changes a Design project (a deck push's
`write_files`, a model's `write_files`, a delete, a copy, a new project, a membership or
sharing change) is recorded — when, which project, what each path became (created,
replaced, deleted, copied) with its size, and the authority it ran under (an approved plan,
the project's durable grant, or a card) — in a per-user SQLite file beside the Projects
journal, so a person can see later what was written where.

Like the Projects journal it is written ahead: an entry goes in as `unknown` before the call
is sent and is settled to `done` when the service answers it, or withdrawn when the service
refused it (a Design write is all-or-nothing: a refusal changed nothing). A kernel killed
mid-call leaves the `unknown` entry. No token is ever stored: a plan is named by its path
counts and expiry. A journal that cannot be written never fails the call (`problem` says
why). sqlite3 loads on first use.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.design_effects import settings_change
from ..data_dir import private_database

if TYPE_CHECKING:
    import sqlite3

    from ..core.design_operations import DesignOperation

#: the journal's file in the per-user data directory (the panel reads the same one)
FILE_NAME = "design_writes.sqlite3"
#: how many entries a listing gives when not told
LIST_DEFAULT = 50

#: the authorities a write runs under (what the panel shows), declared once here
BY_PLAN, BY_GRANT, BY_CARD = "plan", "grant", "card"
#: an entry's outcomes: sent and not answered yet (or never), or answered
UNKNOWN, DONE = "unknown", "done"

SCHEMA = """
CREATE TABLE IF NOT EXISTS writes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    operation TEXT NOT NULL,
    project_id TEXT NOT NULL,
    project_name TEXT,
    authority TEXT NOT NULL,
    authority_detail TEXT NOT NULL,
    outcome TEXT NOT NULL,
    changes TEXT NOT NULL
);
"""


def changes_of(row: DesignOperation | None, operation: str,
               arguments: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What one call changes, path by path (`{path, change, bytes?, from?}`), as its row's
    `changes` reads it; a call whose row reads none (or that no row declares) is one
    `{change, detail}` line of what it sets."""
    if row is not None and row.changes is not None:
        return row.changes(arguments)
    return settings_change(operation, arguments)


def plan_detail(writes: int, deletes: int, expires_at_ms: int | None) -> str:
    """How a plan is named in the journal (never by its token)."""
    until = ("" if expires_at_ms is None else ", valid until "
             + _iso(expires_at_ms / 1000)[11:19] + " UTC")
    return f"an approved plan for {writes} write(s) and {deletes} delete(s){until}"


def _iso(seconds: float) -> str:
    at = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return at.isoformat(timespec="seconds").replace("+00:00", "Z")


class DesignJournal:
    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        #: why the journal could not be written, if it could not
        self.problem: str | None = None

    def _connect(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return private_database(self.path, schema=SCHEMA, rows=True)

    def ahead(self, *, operation: str, project_id: str, authority: str, detail: str,
              changes: list[dict[str, Any]], project_name: str | None = None) -> int | None:
        """Record a call about to be sent (`unknown`); its id, or None when the journal
        could not be written (the call goes on; `problem` says why)."""
        import sqlite3

        try:
            with self._connect() as db:
                cursor = db.execute(
                    "INSERT INTO writes (at, operation, project_id, project_name, authority,"
                    " authority_detail, outcome, changes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (_iso(self._clock()), operation, project_id, project_name, authority,
                     detail, UNKNOWN, json.dumps(changes)))
                return int(cursor.lastrowid or 0)
        except (sqlite3.Error, OSError) as exc:
            self.problem = f"the Design write journal could not be written: {exc}"
            return None

    def settle(self, entry_id: int | None, *, done: bool) -> None:
        """The answer came: `done` keeps the entry as done; otherwise the service refused
        the call and nothing changed, so the entry is withdrawn."""
        if entry_id is None:
            return
        import sqlite3

        try:
            with self._connect() as db:
                if done:
                    db.execute("UPDATE writes SET outcome = ? WHERE id = ?", (DONE, entry_id))
                else:
                    db.execute("DELETE FROM writes WHERE id = ?", (entry_id,))
        except (sqlite3.Error, OSError) as exc:
            self.problem = f"the Design write journal could not be written: {exc}"

    def entries(self, limit: int = LIST_DEFAULT) -> list[dict[str, Any]]:
        """Newest first, each with its `changes` as a list."""
        with self._connect() as db:
            rows = db.execute("SELECT * FROM writes ORDER BY id DESC LIMIT ?",
                              (max(0, int(limit)),)).fetchall()
        return [{**dict(row), "changes": json.loads(row["changes"])} for row in rows]

    def revision(self) -> tuple[int, int, int]:
        """Changes whenever an entry is added, settled or withdrawn."""
        with self._connect() as db:
            row = db.execute("SELECT coalesce(max(id), 0), count(*), "
                             "coalesce(sum(outcome = 'unknown'), 0) FROM writes").fetchone()
        return int(row[0]), int(row[1]), int(row[2])

