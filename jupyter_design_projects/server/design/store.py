"""Design storage: the tables (SCHEMA), the demo seed, and the project-level records —
projects, design systems, consent, durable grants, members and sharing.

Files live in `files.py` and plan tokens (and which single-use ones are spent) in
`plans.py`; all three share the one SQLite database of the service (`ctx.db`).
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable
from typing import Any

from ..database import Database
from ..timestamps import rfc3339
from . import demo as design_demo
from .errors import InvalidValue, NotFound

SCHEMA = """
CREATE TABLE IF NOT EXISTS design_systems (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, is_default INTEGER NOT NULL, tokens TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS design_projects (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, design_system_id TEXT,
    grant_eligible INTEGER NOT NULL, can_edit INTEGER NOT NULL,
    sharing_scope TEXT NOT NULL, link_permission TEXT NOT NULL, origin_org TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS design_files (
    project_id TEXT NOT NULL REFERENCES design_projects(id) ON DELETE CASCADE,
    path TEXT NOT NULL, content BLOB NOT NULL, etag TEXT NOT NULL, updated_at TEXT NOT NULL,
    PRIMARY KEY (project_id, path));
CREATE TABLE IF NOT EXISTS design_members (
    project_id TEXT NOT NULL REFERENCES design_projects(id) ON DELETE CASCADE,
    account_uuid TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL,
    PRIMARY KEY (project_id, account_uuid));
CREATE TABLE IF NOT EXISTS design_consent (user_id TEXT PRIMARY KEY, given_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS design_grants (
    user_id TEXT NOT NULL, project_id TEXT NOT NULL REFERENCES design_projects(id)
    ON DELETE CASCADE, created_at TEXT NOT NULL, PRIMARY KEY (user_id, project_id));
CREATE TABLE IF NOT EXISTS design_plans (
    token_sha256 TEXT PRIMARY KEY, user_id TEXT NOT NULL, project_id TEXT NOT NULL,
    writes TEXT NOT NULL, deletes TEXT NOT NULL, expires_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS design_spent_plans (
    token_sha256 TEXT PRIMARY KEY REFERENCES design_plans(token_sha256) ON DELETE CASCADE,
    spent_at REAL NOT NULL);
"""

PROJECT_URL = "https://design.example/p/{id}"



def project_url(project_id: str) -> str:
    return PROJECT_URL.format(id=project_id)


def seed_demo(ctx: Any) -> None:
    """Store the demo projects, files, members and design systems once (idempotent: a
    restart, or a second call, keeps whatever the user changed since)."""
    from .files import new_etag

    now = rfc3339(ctx.clock())
    with ctx.db.transaction() as conn:
        for system in design_demo.SYSTEMS:
            conn.execute("INSERT OR IGNORE INTO design_systems VALUES (?, ?, ?, ?)",
                         (system["id"], system["name"], int(system["is_default"]),
                          json.dumps(system["tokens"])))
        for project in design_demo.PROJECTS:
            known = conn.execute("SELECT 1 FROM design_projects WHERE id = ?",
                                 (project["id"],)).fetchone()
            if known:
                continue
            conn.execute(
                "INSERT INTO design_projects VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (project["id"], project["name"], project["type"], project["design_system_id"],
                 int(project["grant_eligible"]), int(project["can_edit"]),
                 project["sharing_scope"], project["link_permission"], project["origin_org"],
                 now, now))
            for path, text in project["files"].items():
                conn.execute("INSERT INTO design_files VALUES (?, ?, ?, ?, ?)",
                             (project["id"], path, text.encode(), new_etag(), now))
            for email, role in project["members"]:
                conn.execute("INSERT INTO design_members VALUES (?, ?, ?, ?)",
                             (project["id"], design_demo.account_uuid(email), email, role))


class DesignStore:
    """Project-level Design records over the service database."""

    def __init__(self, db: Database, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock

    def now(self) -> str:
        return rfc3339(self.clock())

    # -- consent -------------------------------------------------------------------------
    def consent(self, user_id: str) -> bool:
        row = self.db.read().execute("SELECT 1 FROM design_consent WHERE user_id = ?",
                                     (user_id,)).fetchone()
        return row is not None

    def give_consent(self, user_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("INSERT OR IGNORE INTO design_consent VALUES (?, ?)",
                         (user_id, self.now()))

    def revoke_consent(self, user_id: str) -> bool:
        """Forget consent, every grant and every plan token of the user; False if none."""
        with self.db.transaction() as conn:
            gone = conn.execute("DELETE FROM design_consent WHERE user_id = ?", (user_id,))
            conn.execute("DELETE FROM design_grants WHERE user_id = ?", (user_id,))
            conn.execute("DELETE FROM design_plans WHERE user_id = ?", (user_id,))
            return gone.rowcount > 0

    # -- durable grants ------------------------------------------------------------------
    def grants(self, user_id: str) -> list[dict[str, str]]:
        rows = self.db.read().execute(
            "SELECT project_id, created_at FROM design_grants WHERE user_id = ? "
            "ORDER BY created_at, project_id", (user_id,)).fetchall()
        return [{"project_id": r["project_id"], "created_at": r["created_at"]} for r in rows]

    def has_grant(self, user_id: str, project_id: str) -> bool:
        row = self.db.read().execute(
            "SELECT 1 FROM design_grants WHERE user_id = ? AND project_id = ?",
            (user_id, project_id)).fetchone()
        return row is not None

    def grant(self, user_id: str, project_id: str) -> dict[str, str] | None:
        """Create (or return the existing) grant; None when the project cannot hold one."""
        with self.db.transaction() as conn:
            project = self._project(conn, project_id)
            if not project["grant_eligible"]:
                return None
            conn.execute("INSERT OR IGNORE INTO design_grants VALUES (?, ?, ?)",
                         (user_id, project_id, self.now()))
            row = conn.execute("SELECT created_at FROM design_grants WHERE user_id = ? AND "
                               "project_id = ?", (user_id, project_id)).fetchone()
        return {"project_id": project_id, "created_at": row["created_at"]}

    def revoke_grant(self, user_id: str, project_id: str) -> bool:
        with self.db.transaction() as conn:
            gone = conn.execute("DELETE FROM design_grants WHERE user_id = ? AND project_id = ?",
                                (user_id, project_id))
            return gone.rowcount > 0

    # -- projects and design systems -----------------------------------------------------
    @staticmethod
    def _project(conn: sqlite3.Connection, project_id: str) -> sqlite3.Row:
        row = conn.execute("SELECT * FROM design_projects WHERE id = ?",
                           (project_id,)).fetchone()
        if row is None:
            raise NotFound("project", project_id)
        return row

    def project(self, project_id: str) -> sqlite3.Row:
        return self._project(self.db.read(), project_id)

    def projects(self, limit: int, cursor: str | None) -> list[sqlite3.Row]:
        """Projects ordered by (name, id); `cursor` is the id of the previous page's last."""
        conn = self.db.read()
        if cursor is None:
            return conn.execute("SELECT * FROM design_projects ORDER BY name, id LIMIT ?",
                                (limit,)).fetchall()
        last = conn.execute("SELECT name, id FROM design_projects WHERE id = ?",
                            (cursor,)).fetchone()
        if last is None:
            raise InvalidValue("cursor", "not a cursor this service gave out")
        return conn.execute(
            "SELECT * FROM design_projects WHERE (name, id) > (?, ?) ORDER BY name, id LIMIT ?",
            (last["name"], last["id"], limit)).fetchall()

    def create_project(self, name: str, design_system_id: str | None,
                       owner_email: str) -> str:
        project_id = str(uuid.uuid4())
        now = self.now()
        with self.db.transaction() as conn:
            if design_system_id is not None:
                self._system(conn, design_system_id)
            conn.execute(
                "INSERT INTO design_projects VALUES (?, ?, 'prototype', ?, 1, 1, 'private', "
                "'view', NULL, ?, ?)", (project_id, name, design_system_id, now, now))
            conn.execute("INSERT INTO design_members VALUES (?, ?, ?, 'owner')",
                         (project_id, design_demo.account_uuid(owner_email), owner_email))
        return project_id

    @staticmethod
    def _system(conn: sqlite3.Connection, system_id: str) -> sqlite3.Row:
        row = conn.execute("SELECT * FROM design_systems WHERE id = ?", (system_id,)).fetchone()
        if row is None:
            raise NotFound("design system", system_id)
        return row

    def design_system(self, system_id: str | None) -> sqlite3.Row | None:
        """The given design system, or the default one when `system_id` is None."""
        conn = self.db.read()
        if system_id is not None:
            return self._system(conn, system_id)
        return conn.execute("SELECT * FROM design_systems ORDER BY is_default DESC, name "
                            "LIMIT 1").fetchone()

    def design_systems(self) -> list[sqlite3.Row]:
        return self.db.read().execute(
            "SELECT * FROM design_systems ORDER BY is_default DESC, name").fetchall()

    # -- members and sharing -------------------------------------------------------------
    def members(self, project_id: str) -> list[dict[str, str]]:
        conn = self.db.read()
        self._project(conn, project_id)
        rows = conn.execute("SELECT account_uuid, email, role FROM design_members WHERE "
                            "project_id = ? ORDER BY email", (project_id,)).fetchall()
        return [dict(r) for r in rows]

    def add_member(self, project_id: str, email: str, role: str) -> dict[str, str]:
        account = design_demo.account_uuid(email)
        with self.db.transaction() as conn:
            self._project(conn, project_id)
            if self._member(conn, project_id, account) is not None:
                raise InvalidValue("email", "already a member of this project")
            conn.execute("INSERT INTO design_members VALUES (?, ?, ?, ?)",
                         (project_id, account, email, role))
        return {"account_uuid": account, "role": role}

    def update_member_role(self, project_id: str, account: str, role: str) -> dict[str, str]:
        with self.db.transaction() as conn:
            self._changeable_member(conn, project_id, account)
            conn.execute("UPDATE design_members SET role = ? WHERE project_id = ? AND "
                         "account_uuid = ?", (role, project_id, account))
        return {"account_uuid": account, "role": role}

    def remove_member(self, project_id: str, account: str) -> None:
        with self.db.transaction() as conn:
            self._changeable_member(conn, project_id, account)
            conn.execute("DELETE FROM design_members WHERE project_id = ? AND account_uuid = ?",
                         (project_id, account))

    @staticmethod
    def _member(conn: sqlite3.Connection, project_id: str, account: str) -> sqlite3.Row | None:
        return conn.execute("SELECT * FROM design_members WHERE project_id = ? AND "
                            "account_uuid = ?", (project_id, account)).fetchone()

    def _changeable_member(self, conn: sqlite3.Connection, project_id: str,
                           account: str) -> None:
        self._project(conn, project_id)
        row = self._member(conn, project_id, account)
        if row is None:
            raise NotFound("member", account)
        if row["role"] == "owner":
            raise InvalidValue("account_uuid", "the project owner cannot be changed or removed")

    def update_sharing(self, project_id: str, scope: str | None,
                       link_permission: str | None) -> dict[str, str]:
        with self.db.transaction() as conn:
            project = self._project(conn, project_id)
            sharing = {"scope": scope or project["sharing_scope"],
                       "link_permission": link_permission or project["link_permission"]}
            conn.execute("UPDATE design_projects SET sharing_scope = ?, link_permission = ?, "
                         "updated_at = ? WHERE id = ?",
                         (sharing["scope"], sharing["link_permission"], self.now(), project_id))
        return sharing
