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

A batch of calls (a deck push) is journaled ahead in one commit (`ahead_many`) before its
first call is sent and settled in one commit (`settle_many`) after its last; its entries
carry each write's content hash and the etag it replaced (`with_digests`), so an entry a
killed kernel left `unknown` can be settled later against what the service holds
(`pending`).
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import hashlib
import json
import os
import socket
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.design_effects import settings_change
from ..core.plans import PLAN_TTL_MS
from ..data_dir import private_database
from ..errors import TransportError
from .session import TIMEOUT_S as MCP_TIMEOUT_S

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
    changes TEXT NOT NULL,
    writer TEXT
);
"""
#: the longest a call journaled ahead can still land after its entry was written: its plan
#: token is honoured at most PLAN_TTL_MS after it was finalized (before the entry), and a
#: call sent before that is answered or abandoned within the MCP timeout
IN_FLIGHT_AT_MOST_S = PLAN_TTL_MS / 1000 + MCP_TIMEOUT_S


def changes_of(row: DesignOperation | None, operation: str,
               arguments: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What one call changes, path by path (`{path, change, bytes?, from?}`), as its row's
    `changes` reads it; a call whose row reads none (or that no row declares) is one
    `{change, detail}` line of what it sets."""
    if row is not None and row.changes is not None:
        return row.changes(arguments)
    return settings_change(operation, arguments)


def with_digests(changes: list[dict[str, Any]],
                 files: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`changes` of a write, each with the sha256 of the bytes it writes and the `if_match`
    it was sent with (the etag it replaces; "0": none), from the call's `files` entries
    ({path, data, encoding?, if_match?}) in the same order: what settles the entry later
    against what the service holds. Neither is a secret."""
    out = []
    for change, entry in zip(changes, files, strict=True):
        data = str(entry.get("data") or "")
        raw = (base64.b64decode(data) if entry.get("encoding") == "base64"
               else data.encode("utf-8"))
        out.append({**change, "sha256": hashlib.sha256(raw).hexdigest(),
                    "if_match": entry.get("if_match")})
    return out


def landed(changes: Sequence[Mapping[str, Any]], etags: Mapping[str, str | None],
           sizes: Mapping[str, int], answered: Mapping[str, str] | None = None) -> bool | None:
    """Whether a `write_files` call journaled `with_digests` reached the service, read from
    a listing (path -> etag, path -> size) taken after it. A call is all-or-nothing and
    its `if_match` lets it land only over what it was sent against, so: True when every
    file holds a new etag of the size the call wrote; False when none changed since it
    was sent (each still at the etag it replaced, or absent where it was to be created);
    None when the listing cannot tell (some changed and some not: written over since; or
    a file holds an etag another write was `answered` with, path -> etag) or the entry
    carries no digests (not written by a push)."""
    if not changes or not all(isinstance(c.get("path"), str) and "sha256" in c
                              and isinstance(c.get("if_match"), str) for c in changes):
        return None
    seen = set()
    for change in changes:
        path, before = change["path"], change["if_match"]
        etag = etags.get(path)
        if (etag is None) if before == "0" else (etag == before):
            seen.add("unchanged")
        elif (etag is not None and sizes.get(path) == change.get("bytes")
              and (answered or {}).get(path) != etag):
            seen.add("written")
        else:
            seen.add("other")
    return {frozenset({"written"}): True, frozenset({"unchanged"}): False}.get(
        frozenset(seen))


def may_have_written(error: BaseException | None) -> bool:
    """Whether a write that failed with `error` may still have changed the project: only
    when no usable answer came (`TransportError`: a timeout, a 5xx, a malformed answer).
    An answer that says it failed (a tool error: the service writes all or nothing), a
    403, a JSON-RPC error, or a refusal before sending changed nothing."""
    return isinstance(error, TransportError)


def plan_detail(writes: int, deletes: int, expires_at_ms: int | None) -> str:
    """How a plan is named in the journal (never by its token)."""
    until = ("" if expires_at_ms is None else ", valid until "
             + _iso(expires_at_ms / 1000)[11:19] + " UTC")
    return f"an approved plan for {writes} write(s) and {deletes} delete(s){until}"


def _writer() -> str:
    """Who writes an entry: this machine and process (to tell a killed kernel's entries
    from those of one still running)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, and is another user's
        return True
    return True


def _seconds(at: Any) -> float | None:
    try:
        return datetime.datetime.fromisoformat(str(at).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _iso(seconds: float) -> str:
    at = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return at.isoformat(timespec="seconds").replace("+00:00", "Z")


class DesignJournal:
    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        #: why the journal could not be written, if it could not
        self.problem: str | None = None
        #: entries this process wrote ahead and has not settled: their calls may be out
        self._open: set[int] = set()
        self._migrated = False

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with private_database(self.path, schema=SCHEMA, rows=True) as db:
            if not self._migrated:  # a journal written before `writer` was recorded
                columns = {row[1] for row in db.execute("PRAGMA table_info(writes)")}
                if "writer" not in columns:
                    db.execute("ALTER TABLE writes ADD COLUMN writer TEXT")
                self._migrated = True
            yield db

    def ahead(self, *, operation: str, project_id: str, authority: str, detail: str,
              changes: list[dict[str, Any]], project_name: str | None = None) -> int | None:
        """Record a call about to be sent (`unknown`); its id, or None when the journal
        could not be written (the call goes on; `problem` says why)."""
        ids = self.ahead_many([{
            "operation": operation, "project_id": project_id, "authority": authority,
            "detail": detail, "changes": changes, "project_name": project_name}])
        return None if ids is None else ids[0]

    def ahead_many(self, entries: Sequence[Mapping[str, Any]]) -> list[int] | None:
        """Record several calls about to be sent (each `ahead`'s keyword arguments) in one
        commit: all of them are in the file, or none is. Their ids in order, or None when
        the journal could not be written (`problem` says why)."""
        import sqlite3

        at = _iso(self._clock())
        try:
            with self._connect() as db:
                ids = []
                for entry in entries:
                    cursor = db.execute(
                        "INSERT INTO writes (at, operation, project_id, project_name, "
                        "authority, authority_detail, outcome, changes, writer) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (at, entry["operation"], entry["project_id"],
                         entry.get("project_name"), entry["authority"], entry["detail"],
                         UNKNOWN, json.dumps(entry["changes"]), _writer()))
                    ids.append(int(cursor.lastrowid or 0))
            self._open.update(ids)
            return ids
        except (sqlite3.Error, OSError) as exc:
            self.problem = f"the Design write journal could not be written: {exc}"
            return None

    def settle(self, entry_id: int | None, *, done: bool) -> None:
        """The answer came: `done` keeps the entry as done; otherwise the service refused
        the call and nothing changed, so the entry is withdrawn."""
        if entry_id is not None:
            self.settle_many([entry_id] if done else [], [] if done else [entry_id])

    def settle_many(self, done: Sequence[int], withdrawn: Sequence[int]) -> None:
        """Several outcomes in one commit: the `done` entries kept as done, the `withdrawn`
        ones removed (refused, or never sent: nothing changed)."""
        if not done and not withdrawn:
            return
        import sqlite3

        try:
            with self._connect() as db:
                db.executemany("UPDATE writes SET outcome = ? WHERE id = ?",
                               [(DONE, entry_id) for entry_id in done])
                db.executemany("DELETE FROM writes WHERE id = ?",
                               [(entry_id,) for entry_id in withdrawn])
            self._open.difference_update([*done, *withdrawn])
        except (sqlite3.Error, OSError) as exc:
            self.problem = f"the Design write journal could not be written: {exc}"

    def pending(self, project_id: str, operation: str) -> list[dict[str, Any]]:
        """The entries of `operation` on this project still `unknown` (sent, never
        answered: a kernel killed mid-call), oldest first, each with its `changes`; none
        when the journal cannot be read (`problem` says why)."""
        import sqlite3

        try:
            with self._connect() as db:
                rows = db.execute(
                    "SELECT id, at, writer, changes FROM writes WHERE project_id = ? AND "
                    "operation = ? AND outcome = ? ORDER BY id",
                    (project_id, operation, UNKNOWN)).fetchall()
        except (sqlite3.Error, OSError) as exc:
            self.problem = f"the Design write journal could not be read: {exc}"
            return []
        return [{"id": row["id"], "at": row["at"], "writer": row["writer"],
                 "changes": json.loads(row["changes"])} for row in rows]

    def may_still_land(self, entry: Mapping[str, Any]) -> bool:
        """Whether the call of a `pending` entry could still reach the service, so that a
        listing showing it absent proves nothing yet: this process wrote it and has not
        settled it (a call cut off, or one with no usable answer, may still be at the
        service), or another process on this machine that is still running did; never
        once IN_FLIGHT_AT_MOST_S have passed since it was written (a kernel killed
        mid-push is settled by the next listing at once)."""
        written = _seconds(entry.get("at"))
        if written is None or self._clock() - written > IN_FLIGHT_AT_MOST_S:
            return False
        if entry.get("id") in self._open:
            return True
        host, _, pid = str(entry.get("writer") or "").rpartition(":")
        if host != socket.gethostname() or not pid.isdigit():
            return True  # another machine's call: only time tells
        return int(pid) == os.getpid() or _running(int(pid))

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

