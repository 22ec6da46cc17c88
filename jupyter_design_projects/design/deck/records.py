"""What decks pushed, kept across kernels: for each (service, project, path), the sha256 of
the content a deck wrote and the etag the service answered, in a per-user SQLite file.

A deck opened in a new kernel reads them when it binds, so a staged file the project still
holds exactly as a deck wrote it (the same content hash, and the service still showing the
etag it answered then) is not written again. Etags are the service's: a file changed on
the service since has another etag, and is written again."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from ...data_dir import private_database

SCHEMA = """
CREATE TABLE IF NOT EXISTS pushed (
    service TEXT NOT NULL,
    project_id TEXT NOT NULL,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    etag TEXT NOT NULL,
    PRIMARY KEY (service, project_id, path)
);
"""


class PushRecords:
    """The push records of one service (its API base URL) in the SQLite file `path`. A
    file that cannot be read or written (locked past 5 s by another kernel, read-only,
    full) never fails a push: it is read as holding nothing and not written, and
    `problem` says why (the push then rewrites what it cannot know it wrote)."""

    def __init__(self, path: Path, service: str, *, timeout_s: float = 5.0) -> None:
        self.path = Path(path)
        self.service = service.rstrip("/")
        #: how long to wait for another kernel's write to the file
        self.timeout_s = timeout_s
        #: why the records could not be read or written, if they could not
        self.problem: str | None = None

    def _connect(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return private_database(self.path, schema=SCHEMA, timeout_s=self.timeout_s)

    def load(self, project_id: str) -> dict[str, tuple[str, str]]:
        """path -> (sha256, etag) of every file a deck pushed to this project."""
        try:
            with self._connect() as db:
                rows = db.execute(
                    "SELECT path, sha256, etag FROM pushed WHERE service = ? AND project_id = ?",
                    (self.service, project_id)).fetchall()
        except (sqlite3.Error, OSError) as exc:
            self.problem = f"the deck's push records could not be read: {exc}"
            return {}
        return {path: (sha, etag) for path, sha, etag in rows}

    def save(self, project_id: str, written: Mapping[str, tuple[str, str]]) -> None:
        """Record what one write wrote (path -> (sha256, etag)), replacing older records."""
        try:
            with self._connect() as db:
                db.executemany(
                    "INSERT OR REPLACE INTO pushed (service, project_id, path, sha256, etag) "
                    "VALUES (?, ?, ?, ?, ?)",
                    [(self.service, project_id, path, sha, etag)
                     for path, (sha, etag) in written.items()])
        except (sqlite3.Error, OSError) as exc:
            self.problem = f"the deck's push records could not be written: {exc}"
