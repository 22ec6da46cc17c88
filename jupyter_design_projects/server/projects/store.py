"""Storage of organizations and Projects: docs, uploads, sync sources, knowledge accounting
and per-project limits, and the JSON shapes PROTOCOL §4 gives them."""

from __future__ import annotations

import base64
import json
import re
import sqlite3
import uuid
from typing import Any

from ..envelopes import ApiError
from ..timestamps import rfc3339
from . import search

SCHEMA = """
CREATE TABLE IF NOT EXISTS organizations (
    uuid TEXT PRIMARY KEY, name TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS projects (
    uuid TEXT PRIMARY KEY,
    org_uuid TEXT NOT NULL REFERENCES organizations(uuid),
    name TEXT NOT NULL, description TEXT NOT NULL, prompt_template TEXT NOT NULL,
    max_knowledge_size INTEGER NOT NULL, search_threshold INTEGER NOT NULL,
    search_enabled INTEGER NOT NULL DEFAULT 1, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    uuid TEXT PRIMARY KEY,
    project_uuid TEXT NOT NULL REFERENCES projects(uuid) ON DELETE CASCADE,
    file_name TEXT NOT NULL, content TEXT NOT NULL, estimated_tokens INTEGER NOT NULL,
    created_at REAL NOT NULL, updated_at REAL NOT NULL,
    UNIQUE (project_uuid, file_name));
CREATE TABLE IF NOT EXISTS uploads (
    file_uuid TEXT PRIMARY KEY,
    project_uuid TEXT NOT NULL REFERENCES projects(uuid) ON DELETE CASCADE,
    file_name TEXT NOT NULL,
    file_kind TEXT NOT NULL CHECK (file_kind IN ('document', 'image', 'other')),
    mime_type TEXT NOT NULL, size_bytes INTEGER NOT NULL, data BLOB NOT NULL,
    extracted TEXT, estimated_tokens INTEGER NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sync_sources (
    id INTEGER PRIMARY KEY,
    project_uuid TEXT NOT NULL REFERENCES projects(uuid) ON DELETE CASCADE,
    type TEXT NOT NULL CHECK (type IN ('gdrive', 'github', 'outlin', 'mcpres')),
    config TEXT NOT NULL);
""" + search.SCHEMA

#: columns added after the first release, with their definitions (added to old data dirs)
PROJECT_COLUMNS = {
    "is_private": "INTEGER NOT NULL DEFAULT 1",
    "archived_at": "REAL",
    "updated_at": "REAL",
}
#: what `GET /api/organizations` says each organization can do (the hosted shape)
ORG_CAPABILITIES = ("chat", "claude_pro")

DEFAULT_MAX_KNOWLEDGE_SIZE = 2_000_000
DEFAULT_SEARCH_THRESHOLD = 50_000
#: raw downloads above this answer 413 (PROTOCOL §4)
MAX_RAW_BYTES = 20 * 1024 * 1024
FILE_KINDS = ("document", "image", "other")
_CANONICAL_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def migrate(db: Any) -> None:
    """Create the tables, then add the columns a data dir made by an older service lacks."""
    db.migrate(SCHEMA)
    with db.transaction() as conn:
        have = {row["name"] for row in conn.execute("PRAGMA table_info(projects)")}
        for name, definition in PROJECT_COLUMNS.items():
            if name not in have:
                conn.execute(f"ALTER TABLE projects ADD COLUMN {name} {definition}")
        search.migrate(conn)


def new_uuid() -> str:
    return str(uuid.uuid4())


def is_uuid(value: str) -> bool:
    """Only the canonical lowercase form: braces, URNs and upper case are not ids here."""
    return bool(_CANONICAL_UUID.match(value))


def estimate_tokens(text: str) -> int:
    """ceil(utf8_bytes / 4), PROTOCOL §0."""
    return (len(text.encode("utf-8")) + 3) // 4



# ---------------------------------------------------------------- organizations, projects


def create_org(conn: sqlite3.Connection, name: str, now: float) -> str:
    org_uuid = new_uuid()
    conn.execute("INSERT INTO organizations VALUES (?, ?, ?)", (org_uuid, name, now))
    return org_uuid


def list_orgs(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT uuid, name FROM organizations ORDER BY created_at, uuid")
    return [{"uuid": r["uuid"], "name": r["name"], "capabilities": list(ORG_CAPABILITIES)}
            for r in rows]


def create_project(conn: sqlite3.Connection, org_uuid: str, name: str, description: str,
                   prompt_template: str, now: float, *, is_private: bool = True) -> str:
    project_uuid = new_uuid()
    conn.execute(
        "INSERT INTO projects (uuid, org_uuid, name, description, prompt_template, "
        "max_knowledge_size, search_threshold, created_at, is_private, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (project_uuid, org_uuid, name, description, prompt_template,
         DEFAULT_MAX_KNOWLEDGE_SIZE, DEFAULT_SEARCH_THRESHOLD, now, int(is_private), now),
    )
    return project_uuid


def project_json(row: sqlite3.Row) -> dict[str, Any]:
    """A project as the hosted org routes list it (`GET …/projects`, create, update)."""
    return {
        "uuid": row["uuid"],
        "name": row["name"],
        "description": row["description"],
        "prompt_template": row["prompt_template"],
        "is_private": bool(row["is_private"]),
        "archived_at": rfc3339(row["archived_at"]) if row["archived_at"] is not None else None,
        "created_at": rfc3339(row["created_at"]),
        "updated_at": rfc3339(row["updated_at"] if row["updated_at"] is not None
                              else row["created_at"]),
    }


def list_projects(conn: sqlite3.Connection, org_uuid: str) -> list[sqlite3.Row]:
    """The organization's projects, newest first; a 404 when there is no such org."""
    org = conn.execute("SELECT uuid FROM organizations WHERE uuid = ?",
                       (org_uuid,)).fetchone() if is_uuid(org_uuid) else None
    if org is None:
        raise ApiError("not_found_error", "No such organization.")
    return list(conn.execute("SELECT * FROM projects WHERE org_uuid = ? "
                             "ORDER BY created_at DESC, uuid", (org_uuid,)))


def update_project(conn: sqlite3.Connection, proj: sqlite3.Row, changes: dict[str, str],
                   now: float) -> sqlite3.Row:
    """Set any of name, description and prompt_template (the hosted PUT)."""
    for column in ("name", "description", "prompt_template"):
        if column in changes:
            conn.execute(f"UPDATE projects SET {column} = ? WHERE uuid = ?",
                         (changes[column], proj["uuid"]))
    conn.execute("UPDATE projects SET updated_at = ? WHERE uuid = ?", (now, proj["uuid"]))
    return project(conn, proj["org_uuid"], proj["uuid"])


def list_docs(conn: sqlite3.Connection, project_uuid: str) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT * FROM docs WHERE project_uuid = ? ORDER BY file_name",
                        (project_uuid,))
    return [doc_json(row) for row in rows]


def project(conn: sqlite3.Connection, org_uuid: str, project_uuid: str) -> sqlite3.Row:
    """The project, or a 404 when either id is unknown or they do not belong together."""
    row = None
    if is_uuid(org_uuid) and is_uuid(project_uuid):
        row = conn.execute("SELECT * FROM projects WHERE uuid = ? AND org_uuid = ?",
                           (project_uuid, org_uuid)).fetchone()
    if row is None:
        raise ApiError("not_found_error", "No such project in this organization.")
    return row


def set_limits(conn: sqlite3.Connection, project_uuid: str, *, max_knowledge_size: int | None,
               threshold: int | None) -> None:
    if max_knowledge_size is not None:
        conn.execute("UPDATE projects SET max_knowledge_size = ? WHERE uuid = ?",
                     (max_knowledge_size, project_uuid))
    if threshold is not None:
        conn.execute("UPDATE projects SET search_threshold = ? WHERE uuid = ?",
                     (threshold, project_uuid))


def set_search_enabled(conn: sqlite3.Connection, project_uuid: str, enabled: bool) -> None:
    conn.execute("UPDATE projects SET search_enabled = ? WHERE uuid = ?",
                 (int(enabled), project_uuid))


def add_sync_source(conn: sqlite3.Connection, project_uuid: str, kind: str,
                    config: dict[str, Any]) -> None:
    conn.execute("INSERT INTO sync_sources (project_uuid, type, config) VALUES (?, ?, ?)",
                 (project_uuid, kind, json.dumps(config)))


# ---------------------------------------------------------------- knowledge accounting


def knowledge_size(conn: sqlite3.Connection, project_uuid: str) -> int:
    row = conn.execute(
        "SELECT (SELECT COALESCE(SUM(estimated_tokens), 0) FROM docs WHERE project_uuid = ?)"
        " + (SELECT COALESCE(SUM(estimated_tokens), 0) FROM uploads WHERE project_uuid = ?)",
        (project_uuid, project_uuid),
    ).fetchone()
    return int(row[0])


def knowledge_stats(conn: sqlite3.Connection, proj: sqlite3.Row) -> dict[str, Any]:
    size = knowledge_size(conn, proj["uuid"])
    return {
        "knowledge_size": size,
        "max_knowledge_size": proj["max_knowledge_size"],
        "project_knowledge_search_threshold": proj["search_threshold"],
        "use_project_knowledge_search": size > proj["search_threshold"],
    }


def _check_budget(conn: sqlite3.Connection, proj: sqlite3.Row, added: int, removed: int) -> None:
    size = knowledge_size(conn, proj["uuid"])
    if size - removed + added > proj["max_knowledge_size"]:
        raise ApiError(
            "request_too_large",
            f"This write would bring the project's knowledge to {size - removed + added:,} "
            f"estimated tokens; the maximum is {proj['max_knowledge_size']:,}.",
        )


# ---------------------------------------------------------------- docs


def doc_json(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "uuid": row["uuid"],
        "file_name": row["file_name"],
        "content": row["content"],
        "created_at": rfc3339(row["created_at"]),
        "updated_at": rfc3339(row["updated_at"]),
        "estimated_token_count": row["estimated_tokens"],
    }


def doc(conn: sqlite3.Connection, project_uuid: str, doc_uuid: str) -> sqlite3.Row:
    row = None
    if is_uuid(doc_uuid):
        row = conn.execute("SELECT * FROM docs WHERE uuid = ? AND project_uuid = ?",
                           (doc_uuid, project_uuid)).fetchone()
    if row is None:
        raise ApiError("not_found_error", "No such doc in this project.")
    return row


def doc_by_name(conn: sqlite3.Connection, project_uuid: str, file_name: str) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM docs WHERE project_uuid = ? AND file_name = ?",
                        (project_uuid, file_name)).fetchone()


def create_doc(conn: sqlite3.Connection, proj: sqlite3.Row, file_name: str, content: str,
               now: float) -> sqlite3.Row:
    """A new doc; a name already taken is a 400 (replace it with PATCH instead)."""
    if doc_by_name(conn, proj["uuid"], file_name) is not None:
        raise ApiError("invalid_request_error",
                       "A doc with this file_name already exists; replace it instead.")
    tokens = estimate_tokens(content)
    _check_budget(conn, proj, tokens, 0)
    doc_uuid = new_uuid()
    conn.execute("INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?)",
                 (doc_uuid, proj["uuid"], file_name, content, tokens, now, now))
    search.index(conn, proj["uuid"], "doc", doc_uuid, file_name, content, fresh=True)
    return doc(conn, proj["uuid"], doc_uuid)


def replace_doc(conn: sqlite3.Connection, proj: sqlite3.Row, doc_uuid: str, content: str,
                now: float) -> sqlite3.Row:
    old = doc(conn, proj["uuid"], doc_uuid)
    tokens = estimate_tokens(content)
    _check_budget(conn, proj, tokens, old["estimated_tokens"])
    conn.execute("UPDATE docs SET content = ?, estimated_tokens = ?, updated_at = ? "
                 "WHERE uuid = ?", (content, tokens, now, doc_uuid))
    search.index(conn, proj["uuid"], "doc", doc_uuid, old["file_name"], content)
    return doc(conn, proj["uuid"], doc_uuid)


def delete_doc(conn: sqlite3.Connection, proj: sqlite3.Row, doc_uuid: str) -> None:
    doc(conn, proj["uuid"], doc_uuid)
    conn.execute("DELETE FROM docs WHERE uuid = ?", (doc_uuid,))
    search.unindex(conn, doc_uuid)


# ---------------------------------------------------------------- uploads


def add_upload(conn: sqlite3.Connection, project_uuid: str, *, file_name: str, file_kind: str,
               mime_type: str, data: bytes, extracted: str | None, now: float) -> str:
    """Store an upload; a document's extracted text counts towards knowledge and is indexed.
    A document with no extracted text (None) is one whose text extraction failed: its
    extracted route answers 404 and clients read it raw."""
    if file_kind not in FILE_KINDS:
        raise ApiError("invalid_request_error", f"'file_kind' must be one of {FILE_KINDS}.")
    text = extracted if file_kind == "document" else None
    file_uuid = new_uuid()
    conn.execute(
        "INSERT INTO uploads VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (file_uuid, project_uuid, file_name, file_kind, mime_type, len(data), data, text,
         estimate_tokens(text) if text else 0, now),
    )
    if text:
        search.index(conn, project_uuid, "file", file_uuid, file_name, text, fresh=True)
    return file_uuid


def upload(conn: sqlite3.Connection, project_uuid: str, file_uuid: str) -> sqlite3.Row:
    row = None
    if is_uuid(file_uuid):
        row = conn.execute("SELECT * FROM uploads WHERE file_uuid = ? AND project_uuid = ?",
                           (file_uuid, project_uuid)).fetchone()
    if row is None:
        raise ApiError("not_found_error", "No such file in this project.")
    return row


def extracted_json(row: sqlite3.Row) -> dict[str, Any]:
    if row["file_kind"] != "document":
        raise ApiError("not_found_error",
                       "This file has no extracted text (it is not a document); read it raw.")
    if row["extracted"] is None:
        raise ApiError("not_found_error",
                       "Text extraction failed for this document; read it raw.")
    return {"file_uuid": row["file_uuid"], "file_name": row["file_name"],
            "file_kind": row["file_kind"], "content": row["extracted"] or "",
            "created_at": rfc3339(row["created_at"])}


def raw_json(row: sqlite3.Row, *, misreport: bool = False) -> dict[str, Any]:
    if row["size_bytes"] > MAX_RAW_BYTES:
        raise ApiError("request_too_large",
                       f"This file is larger than {MAX_RAW_BYTES:,} bytes; download it from "
                       "the web app.")
    return {"file_uuid": row["file_uuid"], "file_name": row["file_name"],
            "file_kind": row["file_kind"], "mime_type": row["mime_type"],
            "file_size_bytes": row["size_bytes"] + (1 if misreport else 0),
            "encoding": "base64", "data": base64.b64encode(row["data"]).decode("ascii"),
            "created_at": rfc3339(row["created_at"])}


# ---------------------------------------------------------------- detail


def detail(conn: sqlite3.Connection, proj: sqlite3.Row) -> dict[str, Any]:
    docs = conn.execute("SELECT uuid, file_name, created_at, estimated_tokens FROM docs "
                        "WHERE project_uuid = ? ORDER BY file_name", (proj["uuid"],))
    files = conn.execute("SELECT file_uuid, file_name, file_kind, size_bytes, mime_type, "
                         "created_at FROM uploads WHERE project_uuid = ? ORDER BY file_name",
                         (proj["uuid"],))
    sources = conn.execute("SELECT type, config FROM sync_sources WHERE project_uuid = ? "
                           "ORDER BY id", (proj["uuid"],))
    return {
        "uuid": proj["uuid"],
        "name": proj["name"],
        "description": proj["description"],
        "prompt_template": proj["prompt_template"],
        "documents": [{"uuid": d["uuid"], "file_name": d["file_name"],
                       "created_at": rfc3339(d["created_at"]),
                       "estimated_token_count": d["estimated_tokens"]} for d in docs],
        "files": [{"file_uuid": f["file_uuid"], "file_name": f["file_name"],
                   "file_kind": f["file_kind"], "file_size_bytes": f["size_bytes"],
                   "mime_type": f["mime_type"], "created_at": rfc3339(f["created_at"])}
                  for f in files],
        "sync_sources": [{"type": s["type"], "config": json.loads(s["config"])} for s in sources],
        "knowledge_stats": knowledge_stats(conn, proj),
    }
