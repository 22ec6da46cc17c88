"""Plan tokens: `finalize_plan` mints one for a project and exact write/delete path sets;
later calls present it and it must be the caller's, unexpired, for the same project and
cover every target. Two kinds are single-use (PROTOCOL §3): a token naming a reserved
target, and a token with no paths, the only kind a membership or sharing change takes;
the first call one authorizes spends it. Tokens are stored only as sha256 digests."""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

from ..database import Database
from .errors import PlanRefused
from .file_paths import is_reserved

#: a plan token lives this many seconds (15 minutes)
PLAN_TTL_SECONDS = 900
#: the only plan scope the service accepts
PLAN_SCOPE = "paths"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", errors="surrogatepass")).hexdigest()


def single_use(writes: list[str], deletes: list[str]) -> bool:
    """Whether a plan of these path sets is spent by its first call: it names a reserved
    target, or it names no path at all (a membership or sharing change)."""
    return not (writes or deletes) or any(map(is_reserved, (*writes, *deletes)))


class PlanBook:
    def __init__(self, db: Database, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock

    def issue(self, user_id: str, project_id: str, writes: list[str], deletes: list[str],
              base_etags: dict[str, str]) -> dict[str, Any]:
        """Mint a token; `expires_at` is unix seconds, at most 15 minutes from now."""
        now = self.clock()
        expires_at = int(now) + PLAN_TTL_SECONDS
        token = "dpt_" + secrets.token_urlsafe(32)
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM design_plans WHERE expires_at <= ?", (now,))
            conn.execute("INSERT INTO design_plans VALUES (?, ?, ?, ?, ?, ?)",
                         (_digest(token), user_id, project_id, json.dumps(writes),
                          json.dumps(deletes), expires_at))
        return {"plan_token": token, "project_id": project_id, "scope": PLAN_SCOPE,
                "writes": writes, "deletes": deletes, "expires_at": expires_at,
                "base_etags": base_etags}

    def require(self, token: str | None, *, user_id: str, project_id: str,
                writes: Iterable[str] = (), deletes: Iterable[str] = ()) -> None:
        """Refuse unless `token` is the user's unexpired, unspent plan for `project_id` whose
        writes cover every path in `writes` and whose deletes cover every path in
        `deletes`; spend it when it is single-use."""
        row = self._live(token, user_id, project_id)
        allowed_writes, allowed_deletes = json.loads(row["writes"]), json.loads(row["deletes"])
        for kind, wanted, allowed in (("writes", writes, allowed_writes),
                                      ("deletes", deletes, allowed_deletes)):
            missing = sorted(set(wanted) - set(allowed))
            if missing:
                raise PlanRefused("not_covered",
                                  f"not in the plan's {kind}: {', '.join(missing[:5])}")
        if single_use(allowed_writes, allowed_deletes):
            self._spend(row["token_sha256"])

    def require_pathless(self, token: str | None, *, user_id: str, project_id: str) -> None:
        """Refuse unless `token` is the user's unexpired, unspent plan for `project_id`
        finalized with no paths (a membership or sharing change); spend it."""
        row = self._live(token, user_id, project_id)
        if json.loads(row["writes"]) or json.loads(row["deletes"]):
            raise PlanRefused("paths_not_allowed", "a membership or sharing change takes a "
                              "plan finalized with no writes and no deletes",
                              "Call finalize_plan with no paths for this change.")
        self._spend(row["token_sha256"])

    def _live(self, token: str | None, user_id: str, project_id: str) -> sqlite3.Row:
        """The stored plan `token` names, or the refusal that says why it cannot be used."""
        if not token:
            raise PlanRefused("missing", "this operation needs a plan_token")
        row = self.db.read().execute(
            "SELECT p.*, s.token_sha256 IS NOT NULL AS spent FROM design_plans p "
            "LEFT JOIN design_spent_plans s USING (token_sha256) WHERE p.token_sha256 = ?",
            (_digest(token),)).fetchone()
        if row is None or row["user_id"] != user_id:
            raise PlanRefused("unknown")
        if row["spent"]:
            raise PlanRefused("spent", "it was single-use and a call has used it")
        if self.clock() >= row["expires_at"]:
            raise PlanRefused("expired")
        if row["project_id"] != project_id:
            raise PlanRefused("other_project", "the token was issued for another project")
        return row

    def _spend(self, digest: str) -> None:
        """Mark a single-use plan spent; of two calls racing for it, exactly one wins (the
        insert is the decision, made under SQLite's write lock)."""
        with self.db.transaction() as conn:
            won = conn.execute("INSERT OR IGNORE INTO design_spent_plans VALUES (?, ?)",
                               (digest, self.clock())).rowcount == 1
        if not won:
            raise PlanRefused("spent", "it was single-use and a call has used it")
