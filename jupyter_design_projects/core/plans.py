"""Path plans: the paths a call touches (`Targets`; each operation's extractor is its row
of `core.design_operations`), when a finalized plan may be registered,
how long it lives, whether it covers a later operation, and the card that shows it.

A plan token means "a person saw exactly these paths of this project a moment ago". It is
registered only after its card was shown and approved, lives at most 15 minutes, and
covers an operation only when every normalised target is in the matching set.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import display
from .validation import PLAN_TOKEN_MAX_BYTES

#: writes and deletes a plan card may list (each)
MAX_PLAN_PATHS = 20
#: targets an operation may enumerate and still be matched or shown
MAX_TARGETS = 256
#: the longest a plan is honoured, whatever the server says
PLAN_TTL_MS = 900_000
#: the longest card body a plan or a grant is registered from (a longer card is still shown
#: in full, never truncated, and approves only its one call)
CARD_LIMIT = 2_000
#: the longest path a card shows at all (the service's own path limit); paths up to
#: display.MAX_PATH_CHARS (80) are reviewable, and only those a plan or grant covers
SHOWN_PATH_CHARS = 1_024
#: the reviewability limits of spec §7: over any of them a call is still put to a person,
#: but approving it sends that one call: no plan is registered and no grant offered. A
#: reserved target (CLAUDE.md, .claude/) is one of them: asked batch by batch (§8)
REVIEW_LIMITS = frozenset(
    {"too_many_writes", "too_many_deletes", "path_too_long", "card_too_long", "too_many_targets",
     "path_reserved"}
)


@dataclasses.dataclass(frozen=True)
class Targets:
    """The raw paths an operation writes and deletes, in call order."""

    writes: tuple[str, ...] = ()
    deletes: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return len(self.writes) + len(self.deletes)

    def all(self) -> tuple[str, ...]:
        return self.writes + self.deletes


@dataclasses.dataclass(frozen=True)
class ApprovedPlan:
    """A registered plan: token → project + exact normalised path sets + expiry (ms)."""

    token: str = dataclasses.field(repr=False)
    project_id: str
    writes: frozenset[str]
    deletes: frozenset[str]
    expires_at_ms: int

    def expired(self, now_ms: int) -> bool:
        """Expired at the exact millisecond: at now == expires_at the plan is gone."""
        return now_ms >= self.expires_at_ms


def strings_of(value: Any) -> tuple[str, ...] | None:
    """A list of strings as a tuple, or None for any other shape."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return tuple(value)


def plan_expiry_ms(server_expires_at: Any, now_ms: int) -> int:
    """min(server `expires_at` (unix seconds) in ms, now + 15 min); a missing or malformed
    server value leaves the client's own ceiling."""
    ceiling = now_ms + PLAN_TTL_MS
    if isinstance(server_expires_at, bool) or not isinstance(server_expires_at, (int, float)):
        return ceiling
    if not math.isfinite(server_expires_at):
        return ceiling
    return min(ceiling, math.floor(server_expires_at * 1000))


def normalised(paths: Iterable[str], *, reserved: bool = False) -> frozenset[str] | None:
    """Every path's normal form, or None if any path has none (`reserved`: a reserved path
    has its written form, as a one-time plan names it; never so for a registered plan)."""
    out = set()
    form = display.written_form if reserved else display.normal_form
    for path in paths:
        norm = form(path)
        if norm is None:
            return None
        out.add(norm)
    return frozenset(out)


def covers(plan: ApprovedPlan, project_id: Any, targets: Targets | None, now_ms: int) -> bool:
    """Whether `plan` allows these targets silently: unexpired, same project, enumerable
    targets, and every normalised target in the matching set."""
    if plan.expired(now_ms) or project_id != plan.project_id or targets is None:
        return False
    if targets.count > MAX_TARGETS:
        return False
    writes = normalised(targets.writes)
    deletes = normalised(targets.deletes)
    if writes is None or deletes is None:
        return False
    return writes <= plan.writes and deletes <= plan.deletes


def show_rule(project_id: Any, scope: Any, targets: Targets | None) -> str | None:
    """Why a card cannot show these targets exactly (so nobody may approve them), or None."""
    if display.id_rule(project_id):
        return "unsafe_project_id"
    if scope not in (None, "paths"):
        return "scope_not_paths"
    if targets is None:
        return "targets_not_enumerable"
    return path_rule_of(targets, SHOWN_PATH_CHARS, showable=frozenset({"path_reserved"}))


def review_rule(targets: Targets) -> str | None:
    """Which reviewability limit (REVIEW_LIMITS, the card's own length aside) these targets
    break, or None: a plan or a grant covers them only within every limit."""
    if targets.count > MAX_TARGETS:
        return "too_many_targets"
    if len(targets.writes) > MAX_PLAN_PATHS:
        return "too_many_writes"
    if len(targets.deletes) > MAX_PLAN_PATHS:
        return "too_many_deletes"
    # a reserved path is named only when nothing else is over: its card says so
    return (path_rule_of(targets, display.MAX_PATH_CHARS, showable=frozenset({"path_reserved"}))
            or path_rule_of(targets, display.MAX_PATH_CHARS))


def path_rule_of(targets: Targets, max_chars: int,
                 showable: frozenset[str] = frozenset()) -> str | None:
    """`path_<rule>` for the first target that breaks a path rule (other than `showable`
    ones), or None."""
    for path in targets.all():
        rule = display.path_rule(path, max_chars)
        if rule and f"path_{rule}" not in showable:
            return f"path_{rule}"
    return None


def plan_rule(project_id: Any, scope: Any, targets: Targets | None) -> str | None:
    """Why a plan for these paths cannot be registered (a card that cannot show them, or a
    reviewability limit), or None."""
    shown = show_rule(project_id, scope, targets)
    if shown or targets is None:  # show_rule names targets_not_enumerable itself
        return shown
    return review_rule(targets)


def change_card(
    heading: str, project_id: str, targets: Targets, details: Sequence[str] = ()
) -> str:
    """The body of a card that shows exactly what changes (paths in normal form)."""
    lines = [heading, f"Project: {project_id}"]
    for label, paths in (("Writes", targets.writes), ("Deletes", targets.deletes)):
        if paths:
            lines.append(f"{label} ({len(paths)}):")
            lines.extend(f"  {display.with_escape(display.written_form(p) or p)}"
                         for p in paths)
    lines.extend(details)
    return "\n".join(lines)


def approved_plan(
    result: Any, project_id: str, shown: Targets, now_ms: int
) -> ApprovedPlan | None:
    """The plan to register from a finalize_plan answer, or None: the answer must name the
    shown project, scope `paths`, and no path the person did not see."""
    if not isinstance(result, Mapping):
        return None
    token = result.get("plan_token")
    if not isinstance(token, str) or not token or len(token.encode()) > PLAN_TOKEN_MAX_BYTES:
        return None
    if result.get("project_id", project_id) != project_id:
        return None
    if result.get("scope", "paths") != "paths":
        return None
    seen_writes = normalised(shown.writes, reserved=True)
    seen_deletes = normalised(shown.deletes, reserved=True)
    writes = strings_of(result.get("writes", list(shown.writes)))
    deletes = strings_of(result.get("deletes", list(shown.deletes)))
    if None in (seen_writes, seen_deletes, writes, deletes):
        return None
    got_writes = normalised(writes or (), reserved=True)
    got_deletes = normalised(deletes or (), reserved=True)
    if got_writes is None or got_deletes is None:
        return None
    if not (got_writes <= seen_writes and got_deletes <= seen_deletes):  # type: ignore[operator]
        return None
    expires = plan_expiry_ms(result.get("expires_at"), now_ms)
    return ApprovedPlan(token, project_id, got_writes, got_deletes, expires)
