"""A sync's values: the request (the folder, its prefix, direction and options), the rows
of a plan (every path with its action and why, its size and the knowledge budget around
it), the plan, and the report of a run."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection
from pathlib import Path
from typing import Any

from ..core import sync_plan as rules
from ..errors import JdpError, SyncOverBudget


@dataclasses.dataclass(frozen=True)
class SyncRequest:
    """What a sync is asked to do: the folder (`directory`), the Project prefix it maps
    to (`to`), whether a push deletes docs the folder no longer has (`delete`), the paths
    written despite a conflict (`force`, as the folder or the Project names them), and
    the direction (`pull`: the Project into the folder). Planning checks it."""

    directory: str | os.PathLike[str]
    to: str | None = None
    delete: bool = False
    force: Collection[str] = ()
    pull: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "force", tuple(self.force))


@dataclasses.dataclass
class Row:
    """One path of a plan: the doc's path, the file's path under the folder, the action
    and why, the content's bytes and estimated tokens, the budget before and after it."""

    path: str
    local: str
    action: str
    why: str = ""
    bytes: int | None = None
    tokens: int | None = None
    remote_tokens: int | None = None
    knowledge_before: int | None = None
    knowledge_after: int | None = None
    sha256: str | None = dataclasses.field(default=None, repr=False)
    remote_revision: str | None = dataclasses.field(default=None, repr=False)
    remote_hash: str | None = dataclasses.field(default=None, repr=False)
    doc_uuid: str | None = dataclasses.field(default=None, repr=False)

    @property
    def writes(self) -> bool:
        return self.action in rules.WRITES

    @property
    def change(self) -> rules.Change:
        """The row's effect on the knowledge budget."""
        return rules.Change(self.action, self.tokens or 0, self.remote_tokens or 0)

    def shown(self) -> dict[str, Any]:
        return {"path": self.path, "local": self.local, "action": self.action,
                "why": self.why, "bytes": self.bytes, "tokens": self.tokens,
                "knowledge_before": self.knowledge_before,
                "knowledge_after": self.knowledge_after}


#: the plan table's columns, in order
COLUMNS = ("path", "local", "action", "why", "bytes", "tokens", "knowledge_before",
           "knowledge_after")


@dataclasses.dataclass
class SyncPlan:
    directory: Path
    prefix: str
    direction: str
    delete: bool
    force: frozenset[str]
    rows: list[Row]
    knowledge_before: int
    knowledge_after: int
    max_knowledge_size: int
    scope: str
    updated_listed: bool = False
    #: the Project's name, as its listing gives it
    project_name: str = ""
    #: the highest knowledge a write of the run is checked at (None: no write is checked)
    knowledge_peak: int | None = None
    #: what a run did (None until the plan has been applied)
    report: SyncReport | None = None

    @property
    def writes(self) -> list[Row]:
        """The rows that change the target, in the order they are sent."""
        return sorted((r for r in self.rows if r.writes),
                      key=lambda r: rules.send_key(r.change, r.path))

    @property
    def over(self) -> int:
        """Estimated tokens to remove for the plan to fit the budget (0: it fits): the
        run checks each write with the same arithmetic (`budgets.knowledge_after`), so a
        plan that fits runs to its end."""
        if self.knowledge_peak is None:
            return 0
        return rules.over_budget(self.knowledge_peak, self.max_knowledge_size)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(rules.ACTIONS, 0)
        for row in self.rows:
            out[row.action] = out.get(row.action, 0) + 1
        return {k: v for k, v in out.items() if v}

    @property
    def summary(self) -> str:
        where = f"{self.prefix}/" if self.prefix else "the Project's top level"
        arrow = (f"{self.directory} → {where}" if self.direction == rules.PUSH
                 else f"{where} → {self.directory}")
        counts = ", ".join(f"{n} {action}" for action, n in self.counts().items()) or "empty"
        lines = [f"sync ({self.direction}) {arrow}: {counts}"]
        if self.direction == rules.PUSH:
            lines.append(f"knowledge: {self.knowledge_before:,} → {self.knowledge_after:,} of "
                         f"{self.max_knowledge_size:,} estimated tokens")
            if self.over:
                lines.append(f"over the budget: remove at least {self.over:,} estimated tokens "
                             f"(~{4 * self.over:,} bytes) before this can run")
        return "\n".join(lines)

    def table(self) -> list[dict[str, Any]]:
        """The plan table: one row per path with `COLUMNS` (the notebook's outcome makes it
        a DataFrame, `.df`; from a script, `pandas.DataFrame(plan.table())`)."""
        return [r.shown() for r in self.rows]

    def to_dict(self) -> dict[str, Any]:
        return {"direction": self.direction, "directory": str(self.directory),
                "prefix": self.prefix, "counts": self.counts(),
                "knowledge_before": self.knowledge_before,
                "knowledge_after": self.knowledge_after,
                "max_knowledge_size": self.max_knowledge_size,
                "rows": self.table()}

    def check_budget(self) -> None:
        if self.over:
            # the highest point a checked write reaches (the end, unless the plan starts
            # over the budget)
            raise SyncOverBudget(self.knowledge_before, self.knowledge_peak or 0,
                                 self.max_knowledge_size)

    def __repr__(self) -> str:
        return f"<SyncPlan {self.summary.splitlines()[0]}>"


@dataclasses.dataclass
class SyncReport:
    """What a run did: the rows written, those not written (after a stop), those found
    changed since the plan (re-planned, not written), and the error that stopped it, or
    `interrupted`: a stop was asked (the kernel interrupted) and the run stopped after the
    write in flight."""

    plan: SyncPlan
    written: list[Row] = dataclasses.field(default_factory=list)
    not_written: list[Row] = dataclasses.field(default_factory=list)
    replanned: list[Row] = dataclasses.field(default_factory=list)
    journal_ids: list[int] = dataclasses.field(default_factory=list)
    error: JdpError | None = None
    interrupted: bool = False

    @property
    def summary(self) -> str:
        lines = [f"written: {len(self.written)} of {len(self.plan.writes)}"]
        if self.replanned:
            lines.append("changed since the plan, not written (conflicts now): "
                         + ", ".join(r.path for r in self.replanned))
        if self.error is not None:
            lines.append(f"stopped at {self.not_written[0].path if self.not_written else '?'}"
                         f": {self.error}")
        elif self.interrupted:
            lines.append("interrupted: stopped after the write in flight")
        if self.not_written:
            lines.append("not written: " + ", ".join(r.path for r in self.not_written)
                         + " — run the same sync again to finish (nothing is written twice)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"written": [r.path for r in self.written],
                "not_written": [r.path for r in self.not_written],
                "replanned": [{"path": r.path, "why": r.why} for r in self.replanned],
                "journal_ids": self.journal_ids, "interrupted": self.interrupted,
                "error": self.error.to_dict() if self.error is not None else None}
