"""The files of Design projects: listing, reading, and all-or-nothing writes, deletes and
copies keyed by (project_id, path), each write minting a new opaque etag."""

from __future__ import annotations

import dataclasses
import secrets
import sqlite3
from collections.abc import Callable
from typing import Any

from ..database import Database
from ..timestamps import rfc3339
from .errors import NotFound, WriteConflict
from .file_paths import is_under

#: `if_match` value meaning "the path must not exist yet"
MUST_NOT_EXIST = "0"
#: a conflict shows at most this many bytes of the current content
CONFLICT_CONTENT_BYTES = 16 * 1024


def new_etag() -> str:
    return "e" + secrets.token_hex(10)


@dataclasses.dataclass(frozen=True)
class FileWrite:
    path: str
    content: bytes
    if_match: str | None = None


class FileStore:
    def __init__(self, db: Database, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock

    def listing(self, project_id: str, under: str,
                depth: int | None) -> list[dict[str, Any]]:
        """Files and directories at or below `under` ("" = root), `depth` levels deep."""
        rows = self.db.read().execute(
            "SELECT path, length(content) AS size, etag FROM design_files WHERE project_id = ? "
            "ORDER BY path", (project_id,)).fetchall()
        exact = [r for r in rows if r["path"] == under]
        if exact:
            return [_file_entry(exact[0])]
        inside = [r for r in rows if is_under(r["path"], under) and r["path"] != under]
        if under and not inside:
            raise NotFound("directory", under)
        prefix = len(under) + 1 if under else 0
        entries: dict[str, dict[str, Any]] = {}
        for row in inside:
            parts = row["path"][prefix:].split("/")
            for level in range(1, len(parts)):
                if depth is not None and level > depth:
                    break
                directory = row["path"][:prefix] + "/".join(parts[:level])
                entry = entries.setdefault(directory, {"path": directory, "type": "directory",
                                                       "size": 0, "etag": None})
                entry["size"] += row["size"]
            if depth is None or len(parts) <= depth:
                entries[row["path"]] = _file_entry(row)
        return [entries[key] for key in sorted(entries)]

    def read(self, project_id: str, path: str) -> sqlite3.Row:
        row = self.db.read().execute(
            "SELECT path, content, etag, updated_at FROM design_files WHERE project_id = ? AND "
            "path = ?", (project_id, path)).fetchone()
        if row is None:
            raise NotFound("file", path)
        return row

    def etags(self, project_id: str, paths: list[str]) -> dict[str, str | None]:
        conn = self.db.read()
        return {path: _etag(conn, project_id, path) for path in paths}

    def write(self, project_id: str, writes: list[FileWrite]) -> dict[str, str]:
        """Store every write or none: a failed if_match raises WriteConflict naming each."""
        now = rfc3339(self.clock())
        with self.db.transaction() as conn:
            conflicts = []
            for item in writes:
                if item.if_match is None:
                    continue
                current = conn.execute(
                    "SELECT content, etag FROM design_files WHERE project_id = ? AND path = ?",
                    (project_id, item.path)).fetchone()
                current_etag = current["etag"] if current else None
                holds = (current is None if item.if_match == MUST_NOT_EXIST
                         else current_etag == item.if_match)
                if not holds:
                    conflicts.append(_conflict(item.path, current))
            if conflicts:
                raise WriteConflict(conflicts)
            etags = {}
            for item in writes:
                etags[item.path] = new_etag()
                conn.execute(
                    "INSERT INTO design_files VALUES (?, ?, ?, ?, ?) ON CONFLICT (project_id, path)"
                    " DO UPDATE SET content = excluded.content, etag = excluded.etag, "
                    "updated_at = excluded.updated_at",
                    (project_id, item.path, item.content, etags[item.path], now))
            _touch(conn, project_id, now)
        return etags

    def delete(self, project_id: str, paths: list[str]) -> int:
        with self.db.transaction() as conn:
            for path in paths:
                if _etag(conn, project_id, path) is None:
                    raise NotFound("file", path)
            for path in paths:
                conn.execute("DELETE FROM design_files WHERE project_id = ? AND path = ?",
                             (project_id, path))
            _touch(conn, project_id, rfc3339(self.clock()))
        return len(paths)

    def copy(self, project_id: str, pairs: list[tuple[str, str, str]]) -> dict[str, str]:
        """Copy (src_project_id, src, dest) pairs into `project_id`, all or none."""
        with self.db.transaction():
            writes = [FileWrite(dest, self.read(src_project, src)["content"])
                      for src_project, src, dest in pairs]
            return self.write(project_id, writes)


def _etag(conn: sqlite3.Connection, project_id: str, path: str) -> str | None:
    row = conn.execute("SELECT etag FROM design_files WHERE project_id = ? AND path = ?",
                       (project_id, path)).fetchone()
    return row["etag"] if row else None


def _touch(conn: sqlite3.Connection, project_id: str, now: str) -> None:
    conn.execute("UPDATE design_projects SET updated_at = ? WHERE id = ?", (now, project_id))


def _file_entry(row: sqlite3.Row) -> dict[str, Any]:
    return {"path": row["path"], "type": "file", "size": row["size"], "etag": row["etag"]}


def _conflict(path: str, current: sqlite3.Row | None) -> dict[str, Any]:
    if current is None:
        return {"path": path, "etag": None, "current_content": None}
    content = bytes(current["content"])
    entry: dict[str, Any] = {
        "path": path, "etag": current["etag"],
        "current_content": content[:CONFLICT_CONTENT_BYTES].decode("utf-8", errors="replace")}
    if len(content) > CONFLICT_CONTENT_BYTES:
        entry["current_content_truncated"] = True
    return entry
