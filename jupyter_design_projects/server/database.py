"""The reference service's SQLite database: one file under --data-dir, WAL mode, mode 0600
(set before SQLite opens it, so its -wal and -shm files are 0600 too).

Each storage module (`projects_store`, `design_store`, ...) owns its tables and passes
its schema to `Database.migrate`. Connections are per thread; `transaction()` is the
only way to write, so a failed request stores nothing.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .private_files import private_database

#: small key/value facts about this data dir (seed markers, signing keys)
META_SCHEMA = """
CREATE TABLE IF NOT EXISTS service_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
#: reads map the file instead of copying each page through SQLite's small per-connection
#: cache: a search at 100k docs looks up a bm25 row size per candidate across the index
#: (~18% less CPU per search there, issue 15); the mapping is shared by the threads
MMAP_BYTES = 1 << 30


class Database:
    def __init__(self, path: Path) -> None:
        self.path = private_database(Path(path))
        self._local = threading.local()
        # outside a transaction: SQLite refuses to switch journal modes inside one
        self._conn().execute("PRAGMA journal_mode=WAL")
        self.migrate(META_SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                   check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
            self._local.conn = conn
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT, or ROLLBACK on any exception."""
        conn = self._conn()
        if conn.in_transaction:  # nested use joins the outer transaction
            yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")

    def read(self) -> sqlite3.Connection:
        """A connection for reads outside a transaction."""
        return self._conn()

    def migrate(self, schema_sql: str) -> None:
        conn = self._conn()
        conn.executescript(schema_sql)

    def get_meta(self, key: str) -> str | None:
        row = self.read().execute("SELECT value FROM service_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row["value"]

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO service_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
