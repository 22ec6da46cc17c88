"""The last sync's state, per project, folder and prefix: for each path the content hash
both sides had and the doc's revision then, in a per-user SQLite file of mode 0600.

Each row is committed as soon as its write is done (SQLite's commit is atomic), so a sync
stopped mid-way keeps the record of what it wrote, and a rerun writes nothing twice."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.sync_plan import Base
from ..data_dir import private_database

if TYPE_CHECKING:
    import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS synced (
    scope TEXT NOT NULL,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    revision TEXT NOT NULL,
    PRIMARY KEY (scope, path)
);
"""


def scope_of(project_uuid: str, directory: Path, prefix: str) -> str:
    """The key of one sync pairing: the project, the folder's real path and the prefix."""
    return json.dumps([project_uuid, os.path.realpath(directory), prefix])


class SyncState:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        with private_database(self.path, schema=SCHEMA) as db:
            db.execute("PRAGMA journal_mode=WAL")

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with private_database(self.path) as db:
            # a record lost to a power cut only makes the next plan compare content again
            db.execute("PRAGMA synchronous=NORMAL")
            yield db

    def load(self, scope: str) -> dict[str, Base]:
        """Every recorded path of the pairing."""
        with self._connect() as db:
            rows = db.execute("SELECT path, sha256, revision FROM synced WHERE scope = ?",
                              (scope,)).fetchall()
        return {path: Base(sha, revision) for path, sha, revision in rows}

    def load_one(self, scope: str, path: str) -> Base | None:
        with self._connect() as db:
            row = db.execute("SELECT sha256, revision FROM synced WHERE scope = ? AND path = ?",
                             (scope, path)).fetchone()
        return Base(row[0], row[1]) if row else None

    def record(self, scope: str, path: str, base: Base) -> None:
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO synced VALUES (?, ?, ?, ?)",
                       (scope, path, base.sha256, base.revision))

    def record_many(self, scope: str, bases: Iterable[tuple[str, Base]]) -> None:
        """Several paths' records in one commit (a sync's group of writes)."""
        with self._connect() as db:
            db.executemany("INSERT OR REPLACE INTO synced VALUES (?, ?, ?, ?)",
                           [(scope, path, b.sha256, b.revision) for path, b in bases])

    def forget(self, scope: str, paths: Iterable[str]) -> None:
        with self._connect() as db:
            db.executemany("DELETE FROM synced WHERE scope = ? AND path = ?",
                           [(scope, p) for p in paths])
