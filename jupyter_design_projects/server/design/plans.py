"""Plan tokens: `finalize_plan` mints one for a project and exact write/delete path sets;
later calls present it and it must be the caller's, unexpired, for the same project and
cover every target. Tokens are stored only as sha256 digests."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Iterable
from typing import Any

from ..database import Database
from .errors import PlanRefused

#: a plan token lives this many seconds (15 minutes)
PLAN_TTL_SECONDS = 900
#: the only plan scope the service accepts
PLAN_SCOPE = "paths"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", errors="surrogatepass")).hexdigest()


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
        """Refuse unless `token` is the user's unexpired plan for `project_id` whose writes
        cover every path in `writes` and whose deletes cover every path in `deletes`."""
        if not token:
            raise PlanRefused("missing", "this operation needs a plan_token")
        row = self.db.read().execute("SELECT * FROM design_plans WHERE token_sha256 = ?",
                                     (_digest(token),)).fetchone()
        if row is None or row["user_id"] != user_id:
            raise PlanRefused("unknown")
        if self.clock() >= row["expires_at"]:
            raise PlanRefused("expired")
        if row["project_id"] != project_id:
            raise PlanRefused("other_project", "the token was issued for another project")
        for kind, wanted, allowed in (("writes", writes, row["writes"]),
                                      ("deletes", deletes, row["deletes"])):
            missing = sorted(set(wanted) - set(json.loads(allowed)))
            if missing:
                raise PlanRefused("not_covered",
                                  f"not in the plan's {kind}: {', '.join(missing[:5])}")
