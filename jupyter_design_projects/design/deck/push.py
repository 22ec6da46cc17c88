"""One push of a deck, as the Design pipeline runs it: the plans it asks for (a
`finalize_plan` card per batch, `Deck.batches`), each card's answer, the writes of every
approved plan in one run once no card is still asking (`Deck.write_plans`), and the
previews of the slides it wrote.

A script answers each card through `approve(request)` (`answer_all`), with the very
`ApprovalRequest` a notebook card draws; a notebook draws each card and routes its click
to `answer` (`notebook.deck`). Either way nothing is written until a plan is approved,
and where nobody can answer a card the push fails closed before any card is asked.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Coroutine
from typing import Any

from ...core.batch_progress import BatchProgress
from ...core.design_operations import plan_operation
from ...core.permissions import explain
from ...errors import JdpError, PermissionRefused
from ..approval import DesignOutcome, PendingApproval
from .deck import Deck, PushReport

#: runs a coroutine on the session's loop and waits for it
Run = Callable[[Coroutine[Any, Any, Any]], Any]
#: continues an answered card: (pending, approved, durable) -> its result
Resume = Callable[[PendingApproval, bool, bool], Any]
#: runs a batch that an interrupt stops after its write in flight (`run_stoppable`)
RunStoppable = Callable[..., PushReport]
#: a person's answer to a card: "once", "project" (a durable grant) or None (deny)
Approve = Callable[[Any], Any]
#: the answers that approve a card
APPROVING = ("once", "project", True)


def nobody_can_approve(operation: str) -> JdpError:
    """The refusal of a card nobody can answer here (papermill, nbclient, a script
    opened without `can_ask`)."""
    return PermissionRefused(operation, "nobody_can_approve", explain("nobody_can_approve"))


def plan_gone() -> JdpError:
    """A plan the service no longer holds was asked again: push again."""
    return PermissionRefused("write_files", "plan_token_expired", explain("plan_token_expired"))


class Push:
    """One push: `plan()` asks a plan for each batch (`.pending` holds each card still
    asking, by batch), `answer()` continues one card, `write()` writes every approved
    plan, `load_previews()` draws the slides written. `.refused` is what stopped it before
    anything was written (a refused plan, or nobody to answer), `.failures` what went
    wrong after (a plan denied or failed, a write failed), `.report` the writes."""

    def __init__(self, deck: Deck, run: Run, resume: Resume,
                 run_stoppable: RunStoppable) -> None:
        self.deck = deck
        self._run = run
        self._resume = resume
        self._run_stoppable = run_stoppable
        self.batches: list[tuple[str, ...]] = []
        #: each card still asking, by its batch, in the order of the batches
        self.pending: dict[tuple[str, ...], PendingApproval] = {}
        #: the plans approved so far: batch -> its plan token (never shown: `approved`)
        self._tokens: dict[tuple[str, ...], str] = {}
        self.refused: DesignOutcome | JdpError | None = None
        self.failures: list[DesignOutcome | JdpError] = []
        self.written: list[str] = []
        self.report: PushReport | None = None
        self.previews: list[tuple[str, bytes, dict]] = []
        #: set by an interrupt while the writes run: no write is sent after it
        self.stopping = threading.Event()

    # ------------------------------------------------------------ asking

    def plan(self, can_ask: bool) -> Push:
        """List the project, cut the missing files into batches and ask a plan for each:
        an approval card (`.pending`), or a plan a grant or an earlier approval covers.
        A refusal stops the push with nothing written (`.refused`), as does a card when
        `can_ask` is False (fail closed)."""
        self._run(self.deck.refresh())
        self.batches = self.deck.batches()
        for batch in self.batches:
            result = self._run(self.deck.ask_plan(batch))
            if isinstance(result, DesignOutcome):
                if result.is_error:
                    self.refused = result
                    return self
                self._planned(batch, result)
            elif not can_ask:
                self.refused = nobody_can_approve(result.operation)
                return self
            else:
                self.pending[batch] = result
        return self

    def answer(self, batch: tuple[str, ...], approved: bool, durable: bool = False) -> Any:
        """Continue the card of `batch` as a person answered it; its result (a further
        card keeps the batch asking)."""
        result = self._resume(self.pending[batch], approved, durable)
        self.settle(batch, result)
        return result

    def settle(self, batch: tuple[str, ...], result: Any) -> None:
        """Take the result of `batch`'s answered card: a further card keeps it asking; the
        plan's outcome ends it (approved: its token is kept; refused: a failure)."""
        if isinstance(result, PendingApproval):
            self.pending[batch] = result
            return
        self.pending.pop(batch, None)
        if isinstance(result, DesignOutcome):
            self._planned(batch, result)

    def answer_all(self, approve: Approve | None) -> Push:
        """Put every card to `approve(request)` in the order of the batches, each further
        card of a batch too, until none is asking. Without `approve` every card is denied."""
        for batch in list(self.pending):
            while batch in self.pending:
                answer = approve(self.pending[batch].request) if approve is not None else None
                self.answer(batch, answer in APPROVING, answer == "project")
        return self

    def _planned(self, batch: tuple[str, ...], plan: DesignOutcome) -> None:
        planner = plan_operation(self.deck.table)
        if plan.is_error:
            self.failures.append(plan)
        elif plan.operation == planner and isinstance(plan.data, dict):
            self._tokens[batch] = plan.data["plan_token"]

    # ------------------------------------------------------------ writing

    @property
    def approved(self) -> list[tuple[str, ...]]:
        """The batches whose plan was approved so far (their tokens are never shown)."""
        return [batch for batch in self.batches if batch in self._tokens]

    @property
    def asking(self) -> bool:
        return bool(self.pending)

    @property
    def total(self) -> int:
        """The files the push's batches hold."""
        return sum(len(batch) for batch in self.batches)

    def write(self, on_progress: Callable[[BatchProgress], None] | None = None
              ) -> PushReport | None:
        """Write every approved plan in one run, in the order of the batches (None: no
        plan was approved). An interrupt stops it after the write in flight."""
        plans = [(batch, self._tokens[batch]) for batch in self.approved]
        if not plans or self.report is not None:
            return self.report
        self.report = report = self._run_stoppable(
            lambda stop: self.deck.write_plans(plans, on_progress=on_progress, stop=stop),
            stop=self.stopping)
        self.written += report.written
        if isinstance(report.failure, DesignOutcome):
            self.failures.append(report.failure)
        elif report.failure is not None:  # a gone plan asked again: push again
            self.failures.append(plan_gone())
        return report

    @property
    def complete(self) -> bool:
        """Nothing was refused and every file of every batch was written (so the project
        holds every staged file: also when there was nothing to push)."""
        return self.refused is None and len(self.written) == self.total

    def fit_summary(self) -> str:
        """Which slides of this push were fitted or continued on a page of their own, in
        one line ("" when none was): what the notebook's status says, and a script can."""
        slide_of = {f.path: f.slide for f in self.deck.stage.files}
        slides = {slide_of.get(path, path) for batch in self.batches for path in batch}
        return self.deck.stage.fit_summary(sorted(slides))

    def load_previews(self) -> list[tuple[str, bytes, dict]]:
        """A PNG preview of each slide the push wrote, asked for all at once: (slide path,
        PNG, what the page reported)."""
        written = set(self.written)
        slides = {f.slide for f in self.deck.stage.files if f.path in written}
        shown = [f.path for f in self.deck.stage.files  # a slide's continuations too
                 if f.kind == "slide" and f.slide in slides]
        self.previews = []
        for slide, result in zip(shown, self._run(self.deck.previews(shown)), strict=True):
            pngs = [blob for mime, blob in getattr(result, "images", []) if mime == "image/png"]
            data = result.data if isinstance(result.data, dict) else {}
            if pngs:  # described by the slide's heading
                self.previews.append((slide, pngs[0],
                                      {**data, "title": self.deck.stage.title(slide)}))
        return self.previews

    def __repr__(self) -> str:
        return (f"<Push {len(self.batches)} plan(s), {len(self.approved)} approved, "
                f"{len(self.written)} of {self.total} file(s) written>")
