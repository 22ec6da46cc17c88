"""The Design permission decision: a pure function of a snapshot of what is authorized,
the facts of one operation and `now`, answering Allow, Ask (which card) or Deny (why).
An Ask's card is data: `card_of` / `grant_card_of` give its `core.cards.ApprovalRequest`.

Read `decide` top to bottom as the table: each `if` is a row of spec §6–8. Nothing remote
is written unless a person sees exactly what changes, or an authorization that covers
exactly that change (a registered plan, a verified project grant) is in force.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..errors.remedy import Remedy
from . import cards, display
from .cards import (
    NOT_ENUMERABLE,
    OVER_LIMIT,
    PLAN_OPERATION,
    RESERVED_TARGET,
    ApprovalRequest,
)
from .design_operations import Approval, DesignOperation, heading_of

# their home until the refusals' words and the grant watcher's test became modules of
# their own; other modules still import them from here
from .grant_watch import grant_appeared as grant_appeared
from .plans import (
    CARD_LIMIT,
    MAX_TARGETS,
    SHOWN_PATH_CHARS,
    ApprovedPlan,
    Targets,
    covers,
    path_rule_of,
    review_rule,
    show_rule,
)
from .refusals import REFUSALS as REFUSALS
from .refusals import explain as explain

#: what a refusal for want of consent says to do
CONSENT_REMEDY = Remedy("consent")
#: argument keys a card shows through the path lists, never as detail lines
_NOT_DETAILS = frozenset(
    {"project_id", "plan_token", "files", "paths", "path", "writes", "deletes"}
)
#: … and those of a call whose targets cannot be listed: every other argument is a line
_NOT_DETAILS_UNLISTED = frozenset({"project_id", "plan_token"})


@dataclasses.dataclass(frozen=True)
class Facts:
    """What the decision needs to know about one operation call."""

    operation: str
    read_only: bool
    destructive: bool
    project_id: Any = None
    plan_token: str | None = None
    scope: Any = None
    #: None when the paths cannot be enumerated (or more than 256)
    targets: Targets | None = Targets()
    #: extra card lines (copies, roles, emails); None when one is not display-safe
    details: tuple[str, ...] | None = ()
    #: the operation's row of the table the caller holds (None: that table does not know
    #: it, so it is a plain write, or a read by its hints; no other table is consulted)
    row: DesignOperation | None = None

    @property
    def known(self) -> DesignOperation | None:
        return self.row

    @property
    def approval(self) -> Approval:
        """How this call is approved: its row's class; a write the table does not know, or
        a call whose hints are not read-only though its row is, is asked about on a card."""
        known = self.known
        if known is None or (known.approval is Approval.READ and not self.read_only):
            return Approval.READ if self.read_only else Approval.CARD
        return known.approval

    @property
    def touches_paths(self) -> bool:
        """Its targets are paths a card lists (and a plan or grant may cover)."""
        known = self.known
        return known is not None and known.targets is not None

    @property
    def heading(self) -> str:
        return heading_of(self.operation, self.known)


@dataclasses.dataclass(frozen=True)
class Snapshot:
    consent: bool | None
    plans: Mapping[str, ApprovedPlan] = dataclasses.field(default_factory=dict)
    verified_grants: frozenset[str] = frozenset()
    grant_ineligible: frozenset[str] = frozenset()
    can_ask: bool = True
    main_context: bool = True


@dataclasses.dataclass(frozen=True)
class Allow:
    via: str  # read_only | plan | grant | approved


@dataclasses.dataclass(frozen=True)
class Ask:
    card: str  # consent | plan | grant | operation
    reason: str


@dataclasses.dataclass(frozen=True)
class Deny:
    reason: str
    remedy: Remedy | None = None


Decision = Allow | Ask | Deny


def facts_of(operation: str, read_only: bool, destructive: bool,
             arguments: Mapping[str, Any],
             table: Mapping[str, DesignOperation]) -> Facts:
    """The facts of one call of `operation`, as `table` (the caller's) declares it."""
    row = table.get(operation)
    token = arguments.get("plan_token")
    targets = Targets() if row is None else row.targets_of(arguments)
    return Facts(
        operation=operation,
        read_only=read_only,
        destructive=destructive,
        project_id=arguments.get("project_id"),
        plan_token=token if isinstance(token, str) else None,
        scope=arguments.get("scope") if row is not None and row.approval is Approval.PLAN
        else None,
        targets=targets,
        details=_details(row, arguments, listed=targets is not None),
        row=row,
    )


def _details(row: DesignOperation | None, arguments: Mapping[str, Any], *,
             listed: bool) -> tuple[str, ...] | None:
    """The card's argument lines, or None when one cannot be shown exactly. A call whose
    targets cannot be listed shows every argument but the project and the token: what
    would have been its path lists is on the card too, or nothing is asked."""
    if listed and row is not None and row.card_lines is not None:
        return row.card_lines(arguments)
    hidden = _NOT_DETAILS if listed else _NOT_DETAILS_UNLISTED
    lines: list[str] = []
    for key, value in arguments.items():
        if key in hidden or value is None:
            continue
        if isinstance(value, int):  # bools too
            lines.append(f"{key}: {value}")
        elif isinstance(value, str) and not display.text_rule(value) and key.isidentifier():
            lines.append(f"{key}: {value}")
        else:
            return None
    return tuple(lines)


def card_of(kind: str, facts: Facts, reason: str = "") -> ApprovalRequest:
    """The consent, plan or operation card that an Ask(kind, reason) shows for `facts`."""
    return cards.change_request(kind, facts.operation, facts.project_id, facts.targets,
                                facts.details or (), reason, heading=facts.heading,
                                per_batch=facts.approval is not Approval.PLAN)


def grant_card_of(facts: Facts, identity: display.ProjectIdentity) -> ApprovalRequest:
    """The durable-grant card for a tokenless write (the caller refuses it over CARD_LIMIT)."""
    return cards.grant_request(facts.operation, facts.targets, identity)


def card_text(kind: str, facts: Facts) -> str:
    """The body of a consent, plan or operation card, as the limit measures it."""
    return card_of(kind, facts).text


def _card_problem(facts: Facts) -> str | None:
    """Why the card for `facts` cannot be shown exactly (nobody may approve it), or None.
    A call whose targets cannot be listed (other than a plan, which must list its paths)
    is shown by its arguments instead (`_details`)."""
    if facts.project_id is not None and display.id_rule(facts.project_id):
        return "unsafe_project_id"
    if facts.details is None:
        return "unsafe_detail"
    if facts.touches_paths and (facts.targets is not None or facts.approval is Approval.PLAN):
        return show_rule(facts.project_id, facts.scope, facts.targets)
    return None


def _over_limit(kind: str, facts: Facts) -> str | None:
    """Which reviewability limit (spec §7) the card for `facts` breaks, or None: over one,
    the card is still shown in full, but approves only its one call."""
    if facts.targets is not None and facts.touches_paths:
        rule = review_rule(facts.targets)
        if rule:
            return rule
    if len(card_text(kind, facts)) > CARD_LIMIT:
        return "card_too_long"
    return None


def _ask(snapshot: Snapshot, kind: str, reason: str, facts: Facts) -> Decision:
    """Ask a person with a `kind` card, or Deny when nobody can. A batch over the
    reviewability limits is asked about as that one call: no plan is registered from it
    and no grant offered (the card's reason `over_limit_<rule>` says why)."""
    problem = _card_problem(facts)
    if problem:
        return Deny(problem)
    if not snapshot.can_ask:
        return Deny("nobody_can_approve")
    over = _over_limit(kind, facts)
    if over:
        return Ask("operation" if kind == "grant" else kind, _over_reason(over))
    return Ask(kind, reason)


def _over_reason(rule: str) -> str:
    """An Ask's reason for a card over review limit `rule`: a reserved target says so
    itself (its card names the paths and that no grant covers them)."""
    return RESERVED_TARGET if rule == "path_reserved" else OVER_LIMIT + rule


def _ask_unlisted(snapshot: Snapshot, facts: Facts) -> Decision:
    """A call whose targets cannot be listed rides on no plan and no grant (spec §8): it is
    asked about as one call, shown by its arguments, where approving it can work: it is
    then sent as written, so it needs a plan token of its own (the service checks that the
    token covers what the call touches) or, for a grantable write, the project's verified
    grant in the main context. Otherwise no card could offer an action that works."""
    verified = (facts.approval is Approval.GRANTABLE and snapshot.main_context
                and facts.project_id in snapshot.verified_grants)
    if facts.plan_token is None and not verified:
        return Deny(NOT_ENUMERABLE)
    return _ask(snapshot, "operation", NOT_ENUMERABLE, facts)


def decide(snapshot: Snapshot, facts: Facts, now_ms: int) -> Decision:
    """The table. Rows in order; the first that matches answers."""
    pid, targets, approval = facts.project_id, facts.targets, facts.approval
    # consent is the entry to every Design call; unknown consent is left to the server
    if snapshot.consent is False:
        if snapshot.can_ask and snapshot.main_context:
            return Ask("consent", "consent_not_given")
        return Deny("consent_not_given", CONSENT_REMEDY)
    if facts.read_only:
        return Allow("read_only")
    # PROTOCOL §3: at most 256 entries per list in one call; the service refuses more, so
    # no card could offer an action that works
    if facts.touches_paths and targets is not None and max(
            len(targets.writes), len(targets.deletes)) > MAX_TARGETS:
        return Deny("too_many_targets")
    # a plan is shown to a person every time; a project-wide scope is never registered
    if approval is Approval.PLAN:
        return _ask(snapshot, "plan", PLAN_OPERATION, facts)
    # membership and sharing: a card every time, whatever token comes along
    if approval is Approval.SENSITIVE:
        return _ask(snapshot, "operation", "sensitive_operation", facts)
    # targets that cannot be listed: no plan or grant covers them, a card for this call
    if targets is None and facts.touches_paths:
        return _ask_unlisted(snapshot, facts)
    if facts.plan_token is not None:
        plan = snapshot.plans.get(facts.plan_token)
        if plan is not None and covers(plan, pid, targets, now_ms):
            return Allow("plan")
        if approval.per_batch_plan:
            return _ask(snapshot, "operation", _token_miss(plan, pid, now_ms), facts)
    # deletes and copies: a plan token, or a card for this batch
    if approval is Approval.PLAN_TOKEN:
        return _ask(snapshot, "operation", "no_plan_token", facts)
    if approval is Approval.GRANTABLE:
        # a grant covers enumerable, reviewable, non-reserved targets, and only in the
        # main context: there it is reused even where nobody can answer, never minted
        assert targets is not None  # (the unlisted row above)
        if any(display.is_reserved_path(p) for p in targets.all()):
            # never on a grant: asked batch by batch, as one call (spec §8)
            return _ask(snapshot, "operation", RESERVED_TARGET, facts)
        unshowable = path_rule_of(targets, SHOWN_PATH_CHARS)
        if unshowable:
            return Deny(unshowable)
        # a grant covers only reviewable targets, with the plans' own limits on paths
        reviewable = path_rule_of(targets, display.MAX_PATH_CHARS) is None
        if (pid in snapshot.verified_grants and snapshot.main_context and reviewable
                and targets.count <= MAX_TARGETS):
            return Allow("grant")
        if pid in snapshot.grant_ineligible:
            return _ask(snapshot, "plan", "grant_ineligible", facts)
        if not snapshot.main_context:
            return Deny("grant_needs_main_context")
        return _ask(snapshot, "grant", "no_grant", facts)
    # any other write-tier operation (create_project, ...): a person sees it
    return _ask(snapshot, "operation", "write_operation", facts)


def grant_card_fallback(facts: Facts, refused: str) -> Ask | Deny:
    """The grant card cannot be shown exactly (`refused`: the identity rule it broke, or
    card_too_long): offer a card for this batch only, or refuse when none can be shown."""
    problem = _card_problem(facts)
    if problem:
        return Deny(problem)
    over = _over_limit("plan", facts)
    if over:
        return Ask("operation", _over_reason(over))
    return Ask("plan", f"grant_card_refused_{refused}")


def _token_miss(plan: ApprovedPlan | None, project_id: Any, now_ms: int) -> str:
    if plan is None:
        return "plan_token_unknown"
    if plan.expired(now_ms):
        return "plan_token_expired"
    if plan.project_id != project_id:
        return "plan_token_other_project"
    return "plan_token_does_not_cover"
