"""The permission decision table of the docs, made by asking `core.permissions.decide`:
each row is one situation (a snapshot of what is authorized and one call), and the last
column is whatever `decide` answered for it, so the page cannot drift from the rule."""

from __future__ import annotations

import dataclasses

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.core.permissions import Allow, Ask, Deny, Snapshot, decide, facts_of
from jupyter_design_projects.core.plans import ApprovedPlan

NOW_MS = 1_800_000_000_000
PROJECT = "p-1"
TOKEN = "plan-token-1"
ONE_FILE = {"project_id": PROJECT, "files": [{"path": "slides/01.html", "content": "<h1>1</h1>"}]}
PLAN = ApprovedPlan(token=TOKEN, project_id=PROJECT, writes=frozenset({"slides/01.html"}),
                    deletes=frozenset(), expires_at_ms=NOW_MS + 60_000)
EXPIRED = dataclasses.replace(PLAN, expires_at_ms=NOW_MS)
GIVEN = Snapshot(consent=True)


@dataclasses.dataclass(frozen=True)
class Row:
    situation: str
    snapshot: Snapshot
    operation: str
    arguments: dict
    read_only: bool = False
    destructive: bool = False


def _with_token(token: str = TOKEN) -> dict:
    return {**ONE_FILE, "plan_token": token}


ROWS = (
    Row("consent not given, a person can click", Snapshot(consent=False), "write_files", ONE_FILE),
    Row("consent not given, nobody can click", Snapshot(consent=False, can_ask=False),
        "write_files", ONE_FILE),
    Row("a read-only operation", GIVEN, "list_projects", {}, read_only=True),
    Row("`finalize_plan` (a plan is always shown)", GIVEN, "finalize_plan",
        {"project_id": PROJECT, "writes": ["slides/01.html"], "deletes": []}),
    Row("membership or sharing, even with a plan token",
        Snapshot(consent=True, plans={TOKEN: PLAN}), "update_sharing",
        {"project_id": PROJECT, "plan_token": TOKEN, "scope": "org"}),
    Row("a write whose plan token covers it", Snapshot(consent=True, plans={TOKEN: PLAN}),
        "write_files", _with_token()),
    Row("a write whose plan token expired", Snapshot(consent=True, plans={TOKEN: EXPIRED}),
        "write_files", _with_token()),
    Row("a write with an unknown plan token", GIVEN, "write_files", _with_token("other")),
    Row("a delete without a plan token", GIVEN, "delete_files",
        {"project_id": PROJECT, "paths": ["slides/01.html"]}, destructive=True),
    Row("a tokenless write, the project has a verified grant",
        Snapshot(consent=True, verified_grants=frozenset({PROJECT})), "write_files", ONE_FILE),
    Row("a tokenless write, a grant exists but nobody can click",
        Snapshot(consent=True, verified_grants=frozenset({PROJECT}), can_ask=False),
        "write_files", ONE_FILE),
    Row("a tokenless write, no grant", GIVEN, "write_files", ONE_FILE),
    Row("a tokenless write, no grant, nobody can click", Snapshot(consent=True, can_ask=False),
        "write_files", ONE_FILE),
    Row("a tokenless write to a project that cannot hold a grant",
        Snapshot(consent=True, grant_ineligible=frozenset({PROJECT})), "write_files", ONE_FILE),
    Row("a tokenless write to a reserved path (`CLAUDE.md`)", GIVEN, "write_files",
        {"project_id": PROJECT, "files": [{"path": "CLAUDE.md", "content": "x"}]}),
    Row("a tokenless write to a reserved path, the project has a verified grant",
        Snapshot(consent=True, verified_grants=frozenset({PROJECT})), "write_files",
        {"project_id": PROJECT, "files": [{"path": "docs/CLAUDE.md", "content": "x"}]}),
    Row("a tokenless write in a sub-agent (not the main context)",
        Snapshot(consent=True, main_context=False), "write_files", ONE_FILE),
    Row("another write operation (`create_project`)", GIVEN, "create_project",
        {"name": "New deck"}),
)


def verdict(decision: Allow | Ask | Deny) -> str:
    if isinstance(decision, Allow):
        return f"**allow** (via {decision.via})"
    if isinstance(decision, Ask):
        return f"**ask**: the {decision.card} card (`{decision.reason}`)"
    from jupyter_design_projects.notebook.remedies import as_magic

    step = as_magic(decision.remedy)
    command = f"; next: `{step}`" if step else ""
    return f"**deny** (`{decision.reason}`{command})"


def decision_table() -> str:
    lines = ["| situation | call | `decide` answers |", "|---|---|---|"]
    for row in ROWS:
        facts = facts_of(row.operation, row.read_only, row.destructive, row.arguments,
                         BY_NAME)
        decision = decide(row.snapshot, facts, NOW_MS)
        lines.append(f"| {row.situation} | `{row.operation}` | {verdict(decision)} |")
    return "\n".join(lines)
