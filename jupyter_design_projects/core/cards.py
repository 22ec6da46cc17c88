"""What an approval card shows, as data: the `ApprovalRequest` a decision's Ask becomes —
its title, the operation, the project (id and sanitised name), sharing, URL, writes,
deletes, detail and note lines, the buttons it offers and, for each absent button, why.
`.text` is the same card as plain text: what CARD_LIMIT measures and what a script reads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from . import display
from .plans import CARD_LIMIT, MAX_PLAN_PATHS, MAX_TARGETS, Targets, change_card

#: the buttons of an approval card
APPROVE = "Approve"
APPROVE_FOR_PROJECT = "Approve for this project"
DENY = "Deny"

CONSENT_HEADING = (
    "Allow agents to use your Claude Design projects (consent agent_design_projects)?"
)
CONSENT_NOTE = (
    "Each write still needs a plan or a project grant; `%design revoke` withdraws consent."
)
GRANT_HEADING = (
    "Allow Claude to write any ordinary file of this Design project until you revoke the "
    "grant in Design settings?"
)
GRANT_CHOICES = (
    f'"{APPROVE}" writes this batch only; "{APPROVE_FOR_PROJECT}" grants the project until '
    f'you revoke it in Design settings; "{DENY}" sends nothing.'
)
GRANT_LIMITS = (
    "Deletes, membership and sharing changes, copies and CLAUDE.md / .claude are never "
    "covered by the grant: they ask every time."
)
#: a change card's project line when the call names no project
NEW_PROJECT = "(new project)"

#: a per-batch plan card's question (each operation's own is its row's `heading`,
#: core.design_operations)
PER_BATCH_HEADING = "Write these files (this batch only: the project cannot hold a grant)."

#: why a card is asked for a call of the plan operation (a plan is shown every time)
PLAN_OPERATION = "plan_operation"
#: why a card is asked for a batch naming CLAUDE.md or .claude/ (spec §8: never on a grant)
RESERVED_TARGET = "reserved_target"
#: why a card is asked for a call whose targets cannot be listed (spec §8: never on a grant)
NOT_ENUMERABLE = "targets_not_enumerable"

#: why a card offers no "Approve for this project", by the reason it asks (a row of the
#: decision table); reasons that start with a key of PREFIXED take that sentence
NO_DURABLE = {
    "consent_not_given": "consent covers all your Design projects; each write still asks.",
    PLAN_OPERATION: "a plan approves exactly the changes it lists, for a limited time.",
    "sensitive_operation": "membership and sharing changes ask every time.",
    "no_plan_token": "deletes and copies never ride on a grant.",
    "grant_ineligible": "this project cannot hold a grant (the service refused one).",
    "write_operation": "a grant covers only writes of ordinary files to a project.",
    RESERVED_TARGET: "CLAUDE.md and .claude/ are never covered by a grant.",
    NOT_ENUMERABLE: "a grant never covers targets that cannot be listed.",
}
NO_DURABLE_PREFIXED = {
    "over_limit_": "a batch over the review limits is approved as this one call only.",
    "plan_token_": "a call that carries a plan token is approved for that call only.",
    "grant_card_refused_": "the project's name, sharing or URL cannot be shown exactly, so "
    "no grant is offered.",
}
NO_DURABLE_OTHERWISE = "only a tokenless write of ordinary files can be granted."

#: the reason prefix of a card over the reviewability limits (spec §7): `over_limit_<rule>`
OVER_LIMIT = "over_limit_"
#: the line of a card for a call whose targets cannot be listed
NOT_ENUMERABLE_NOTE = (
    "Its target paths cannot be listed, so no plan or project grant covers it: every "
    f'argument is shown above, and "{APPROVE}" sends this one call as written (the service '
    "checks its plan token or the project's grant); later calls ask again."
)
#: each limit in words, for the line that says why such a card approves one call only
LIMITS_IN_WORDS = {
    "too_many_writes": f"it lists more than {MAX_PLAN_PATHS} writes",
    "too_many_deletes": f"it lists more than {MAX_PLAN_PATHS} deletes",
    "too_many_targets": f"it names more than {MAX_TARGETS} paths",
    "path_too_long": f"a path is longer than {display.MAX_PATH_CHARS} characters",
    "card_too_long": f"this card is longer than {CARD_LIMIT:,} characters",
    "path_reserved": "it names CLAUDE.md or .claude/, which no plan or grant covers",
}


def over_limit_note(reason: str) -> str:
    """The card line that says why approving it sends this one call only."""
    rule = reason[len(OVER_LIMIT):]
    why = LIMITS_IN_WORDS.get(rule, rule)
    return (f'Over the review limits ({why}): "{APPROVE}" sends this one call; no plan is '
            "registered and no grant is offered, so later changes ask again.")


def reserved_note(targets: Targets) -> str:
    """The line of a card for a batch naming reserved paths: which, and what approving does."""
    named = [display.written_form(p) or p for p in targets.all() if display.is_reserved_path(p)]
    return (f"Reserved ({', '.join(named)}): CLAUDE.md and .claude/ are never covered by a "
            f'plan or the project grant, so "{APPROVE}" sends this one call and later changes '
            "to them ask again.")


#: the plan card's question when the plan names a reserved target: PROTOCOL §3, the
#: service spends such a token on the first call that presents it
RESERVED_PLAN_HEADING = ("Finalize a Design plan for one call only? It names CLAUDE.md or "
                         ".claude/, so it holds for the first call that presents its token.")


def reserved_plan_note(targets: Targets) -> str:
    """The line of a plan card naming reserved paths: the plan holds for one call only."""
    named = [display.written_form(p) or p for p in targets.all() if display.is_reserved_path(p)]
    return (f"Reserved ({', '.join(named)}): the service spends this plan's token on the "
            "first call that presents it, so the plan holds for that call only; later "
            "changes to them ask again.")


def no_durable_because(reason: str) -> str:
    """Why a card asked for `reason` offers no durable grant."""
    if reason in NO_DURABLE:
        return NO_DURABLE[reason]
    prefixed = (why for prefix, why in NO_DURABLE_PREFIXED.items() if reason.startswith(prefix))
    return next(prefixed, NO_DURABLE_OTHERWISE)


@dataclasses.dataclass(frozen=True)
class ApprovalRequest:
    """One approval card as data (never truncated: over CARD_LIMIT it is refused)."""

    kind: str  # consent | plan | grant | operation
    operation: str
    #: the card's question
    title: str = ""
    project_id: str | None = None
    #: the sanitised name (grant cards, from display.project_identity)
    project_name: str | None = None
    sharing: str | None = None
    url: str | None = None
    writes: tuple[str, ...] = ()
    deletes: tuple[str, ...] = ()
    #: argument lines the person must see (copies, roles, emails …)
    details: tuple[str, ...] = ()
    #: what approving means
    notes: tuple[str, ...] = ()
    buttons: tuple[str, ...] = (APPROVE, DENY)
    #: (button, why) for each button the card does not offer
    withheld: tuple[tuple[str, str], ...] = ()
    #: why the card is asked for (a row name of the decision table)
    reason: str = ""

    @property
    def allows_durable(self) -> bool:
        """The "Approve for this project" button is offered."""
        return APPROVE_FOR_PROJECT in self.buttons

    @property
    def project(self) -> str | None:
        """The project as the card names it: "name (id)", the id, or (new project)."""
        if self.project_name and self.project_id:
            return f"{self.project_name} ({self.project_id})"
        if self.project_name or self.project_id:
            return self.project_name or self.project_id
        return None if self.kind == "consent" else NEW_PROJECT

    @property
    def text(self) -> str:
        """The card as plain text, line by line."""
        if self.kind == "consent":
            return "\n".join([self.title, *self.notes, f"Requested operation: {self.operation}"])
        if self.kind == "grant":
            return "\n".join([
                self.title,
                f"Project: {self.project}",
                f"Sharing: {self.sharing}",
                f"URL: {self.url}",
                *self.notes,
                f"This batch writes ({len(self.writes)}):",
                *(f"  {display.with_escape(p)}" for p in self.writes),
            ])
        return change_card(self.title, self.project or NEW_PROJECT,  # never None here
                           Targets(self.writes, self.deletes), self.details + self.notes)


def shown_paths(paths: Sequence[str]) -> tuple[str, ...]:
    """Paths as a card shows them: in their normal form where they have one."""
    return tuple(display.written_form(p) or p for p in paths)


def change_request(kind: str, operation: str, project_id: Any, targets: Targets | None,
                   details: Sequence[str], reason: str = "", *,
                   heading: str, per_batch: bool = False) -> ApprovalRequest:
    """A consent, plan or operation card: Approve or Deny, never a durable grant.
    `heading` is the operation's own question (its row's, core.design_operations);
    `per_batch`: a plan card for this one batch of another operation's targets."""
    targets = targets or Targets()
    notes: tuple[str, ...] = ()
    if kind == "consent":  # the consent card asks about consent, not the call's details
        title, notes, details = CONSENT_HEADING, (CONSENT_NOTE,), ()
    elif reason.startswith(OVER_LIMIT):
        title, notes = heading, (over_limit_note(reason),)
    elif reason == RESERVED_TARGET and kind == "plan" and not per_batch:
        title, notes = RESERVED_PLAN_HEADING, (reserved_plan_note(targets),)
    elif reason == RESERVED_TARGET:
        title, notes = heading, (reserved_note(targets),)
    elif reason == NOT_ENUMERABLE:
        title, notes = heading, (NOT_ENUMERABLE_NOTE,)
    elif kind == "plan" and per_batch:
        title = PER_BATCH_HEADING
    else:
        title = heading
    return ApprovalRequest(
        kind=kind, operation=operation, title=title,
        project_id=project_id if isinstance(project_id, str) else None,
        writes=shown_paths(targets.writes), deletes=shown_paths(targets.deletes),
        details=tuple(details), notes=notes,
        withheld=((APPROVE_FOR_PROJECT, no_durable_because(reason)),), reason=reason,
    )


def grant_request(operation: str, targets: Targets | None,
                  identity: display.ProjectIdentity) -> ApprovalRequest:
    """A durable-grant card: whom the grant is for, what it allows, what each button does,
    and this batch's writes (the caller refuses it over CARD_LIMIT)."""
    return ApprovalRequest(
        kind="grant", operation=operation, title=GRANT_HEADING,
        project_id=identity.project_id, project_name=identity.name,
        sharing=identity.sharing, url=identity.url,
        writes=shown_paths((targets or Targets()).writes),
        notes=(GRANT_LIMITS, GRANT_CHOICES),
        buttons=(APPROVE, APPROVE_FOR_PROJECT, DENY), reason="no_grant",
    )
