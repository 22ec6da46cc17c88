"""`%project sync` in the notebook: the plan as an outcome (a short summary and the table),
and for a real run one approval card for the whole batch, whose Approve sends the writes in
order under a progress bar and shows what was written (event-driven, like every card: the
click continues the call)."""

from __future__ import annotations

import html
from typing import Any

from ...core.plans import CARD_LIMIT
from ...core.sync_plan import CONFLICT, PUSH
from ...errors import JdpError, ProjectsChangeDenied
from ..views.budget import Budget
from ..views.card_record import CardRecord
from ..views.outcome import Outcome, PendingOutcome
from ..views.outcomes import failed_outcome
from ..views.sync_result import run_summary, with_results
from .cards import (
    AnsweredOnce,
    approve_deny,
    card_box,
    show_answer,
    show_card,
    stale_notice,
    status_line,
)

LABEL = "project sync"


def sync_command(host: Any, args: dict[str, Any]) -> Any:
    """Plan; a dry run returns the plan, a plan with nothing to write records what it
    found and returns it (no card), anything else shows the batch's card."""
    from ...projects.sync import SyncRequest, apply_sync, plan_sync

    session = host.session
    projects, state = session.projects, session.sync_state
    request = SyncRequest(args["directory"], to=args.get("to"),
                          delete=bool(args.get("delete")),
                          force=tuple(args.get("force") or ()), pull=bool(args.get("pull")))
    plan = session.run(plan_sync(projects, state, request))
    if args.get("dry_run"):
        return plan_outcome(plan, dry_run=True)
    if plan.direction == PUSH:
        plan.check_budget()
    if not plan.writes:
        plan.report = session.run(apply_sync(projects, state, plan))
        return plan_outcome(plan)
    if not host.can_ask():
        raise ProjectsChangeDenied("sync", "nobody_can_click")

    from ...projects.stoppable import run_stoppable

    # Approve sends the writes under the card's bar; interrupting the kernel stops the
    # run after the write in flight, and the outcome says what was and was not written
    card = SyncCard(plan, lambda panel: run_stoppable(session.run, lambda stop: apply_sync(
        projects, state, plan, on_progress=panel.report_batch, stop=stop)))
    show_card(card)
    return PendingSync(card)


def plan_outcome(plan: Any, *, dry_run: bool = False) -> Outcome:
    """The plan (and, after a run, its report) as an Outcome: `.df` is the plan table."""
    report = plan.report
    lines = [plan.summary]
    if dry_run:
        lines.append("dry run: nothing was sent" + (
            "; run it without --dry-run to approve these writes on one card"
            if plan.writes else ""))
    elif report is not None:
        lines.append(run_summary(report) if plan.writes else "nothing to write")
    data = plan.to_dict()
    if report is not None:
        data["report"] = report.to_dict()
        if plan.writes:  # the plan's rows, each with what the run did to it
            data["rows"] = with_results(data["rows"], report)
    error = report.error if report is not None else None
    label = f"{LABEL} --dry-run" if dry_run else LABEL
    budget = (Budget(plan.knowledge_after, plan.max_knowledge_size)
              if plan.direction == PUSH else None)
    # the summary comes first (the notice), the table after it
    notice = " · ".join(lines)
    return Outcome(label, data, tables=lambda: {"sync": data["rows"]}, budget=budget,
                   is_error=error is not None, error=error, notice=notice)


def _rows_html(rows: list[Any]) -> str:
    body = "".join(
        f"<tr><td><code>{html.escape(r.path)}</code></td><td>{html.escape(r.action)}</td>"
        f"<td style=\"text-align:right\">{'' if r.bytes is None else f'{r.bytes:,}'}</td>"
        f"<td style=\"text-align:right\">{'' if r.tokens is None else f'{r.tokens:,}'}</td>"
        f"<td>{html.escape(r.why)}</td></tr>" for r in rows)
    return ('<table class="jdp-sync-rows"><tr><th>path</th><th>action</th><th>bytes</th>'
            f"<th>tokens</th><th>why</th></tr>{body}</table>")


#: how many conflicting paths a sync card's line names (the list under it has them all)
CONFLICTS_NAMED = 3


def conflicts_line(conflicts: list[Any]) -> str:
    """'1 conflict kept, not written: kb/a.md (…)': the paths held back, named."""
    paths = [r.path for r in conflicts]
    named = ", ".join(paths[:CONFLICTS_NAMED])
    if len(paths) > CONFLICTS_NAMED:
        named += f" and {len(paths) - CONFLICTS_NAMED} more"
    return (f"{len(paths)} conflict{'s' * (len(paths) != 1)} kept, not written: {named} "
            "(--force PATH writes one)")


def card_html(plan: Any) -> str:
    """The card's body: what will be written where, the budget, and the list of writes —
    whole when it fits the card's size, else in a collapsible list under a summary."""
    writes = plan.writes
    counts = plan.counts()
    target = f"{plan.prefix}/" if plan.prefix else "(top level)"
    project = plan.project_name or "the attached Project"
    fields = [("Project", project), ("Folder", str(plan.directory)), ("Docs under", target),
              ("Direction", "folder → Project" if plan.direction == PUSH
               else "Project → folder")]
    if plan.direction == PUSH:
        fields.append(("Knowledge", f"{plan.knowledge_before:,} → {plan.knowledge_after:,} of "
                                    f"{plan.max_knowledge_size:,} estimated tokens"))
    table = "".join(f'<tr><th style="text-align:left;padding-right:12px">{html.escape(k)}</th>'
                    f"<td>{html.escape(v)}</td></tr>" for k, v in fields)
    what = ", ".join(f"{n} {a}" for a, n in counts.items() if a in ("new", "changed", "delete"))
    title = f"Sync {len(writes)} write{'s' * (len(writes) != 1)}: {what}"
    listing = _rows_html(writes)
    if len(listing) > CARD_LIMIT:
        listing = (f'<details class="jdp-sync-all"><summary>All {len(writes)} writes (in the '
                   f"order they are sent)</summary>{listing}</details>")
    conflicts = [r for r in plan.rows if r.action == CONFLICT]
    held = ""
    if conflicts:
        held = (f'<details class="jdp-sync-conflicts"><summary>'
                f"{html.escape(conflicts_line(conflicts))}</summary>{_rows_html(conflicts)}"
                "</details>")
    return (f'<div class="jdp-card jdp-sync-card"><h4 style="margin:4px 0">'
            f"{html.escape(title)}</h4><table>{table}</table>{listing}{held}</div>")


class SyncCard:
    """One card for one sync plan: Approve sends every write in order, Deny sends none."""

    def __init__(self, plan: Any, apply: Any) -> None:
        import ipywidgets as w

        from .progress import ProgressPanel

        self.plan = plan
        self._apply = apply
        self.outcome: Outcome | None = None
        self.header = w.HTML(card_html(plan))
        self.stale = stale_notice()
        self.buttons, self.approve_button, self.deny_button = approve_deny(self.approve,
                                                                           self.deny)
        self.progress = ProgressPanel()
        self.status = status_line()
        self.record = CardRecord(self.header.value, f"Approval card: {plan.summary}")
        self._answer = AnsweredOnce("project sync", (self.approve_button, self.deny_button),
                                    self.status, self.record)
        self.output = w.Output()
        self.widget = card_box([self.header, self.stale, self.buttons, self.progress.widget,
                                self.status, self.output])

    def _claim(self, choice: str) -> None:
        self._answer.claim(choice)

    def approve(self) -> Outcome:
        """Send the plan's writes in order; the outcome says what was written."""
        self._claim("approved")
        try:
            self.plan.report = self._apply(self.progress)
            outcome = plan_outcome(self.plan)
        except JdpError as exc:
            outcome = failed_outcome(LABEL, exc)
        return self._finish(outcome)

    def deny(self) -> Outcome:
        self._claim("denied: nothing was sent")
        return self._finish(failed_outcome(LABEL, ProjectsChangeDenied("sync",
                                                                      "denied_on_card")))

    def _finish(self, outcome: Outcome) -> Outcome:
        self.outcome = outcome
        show_answer(self.buttons, self.output, outcome, self.record)
        return outcome

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The live card, and for a frontend with no widgets its body as HTML and text."""
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude)
        return {**bundle, "text/html": self.header.value,
                "text/plain": f"Approval card: {self.plan.summary}"}


class PendingSync(PendingOutcome):
    """A sync waiting on its card; afterwards every attribute is the final Outcome's."""

    def __init__(self, card: SyncCard) -> None:
        super().__init__(LABEL, card)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        if self.card.outcome is not None:
            return self.card.outcome._repr_mimebundle_(include, exclude)
        text = "%project sync: see its approval card above; what was written appears there"
        return {"text/plain": text, "text/html": f"<em>{html.escape(text)}</em>"}
