"""A deck's push, drawn (`DeckPush`): one approval card per plan of the pipeline's push
(`design.deck.push.Push`), and once every plan is approved and written, a grid of
previews of the deck's slides.

The pipeline owns the flow; this module draws it and routes the clicks. Like every card,
the push is event-driven: each card's click continues its plan, and the click of the last
card answered writes every approved plan in one run (journaled ahead in one commit, under
a progress bar, stopped after the write in flight by an interrupt) and renders the
previews into the push's own widget.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ...design.approval import DesignOutcome, PendingApproval
from ..views import outcomes as views
from ..views.deck_outcomes import listed, preview_grid
from ..views.outcome import Outcome

if TYPE_CHECKING:
    from ...design.deck import Deck


class DeckHost(Protocol):
    """What a deck needs from the notebook it lives in (`host.NotebookHost` is one): the session,
    whether a person can answer a card now, the continuation of an answered card, and the
    notebook's variables (for `$name` in a slide)."""

    @property
    def session(self) -> Any: ...

    def can_ask(self) -> bool: ...

    def resume(self, pending: Any, approved: bool, durable: bool) -> Any: ...

    def user_namespace(self) -> Mapping[str, Any]: ...


class DeckPush:
    """One push, drawn: a card per plan of the pipeline's push (`.cards`, `.push` the
    `design.deck.push.Push`), each card's click continuing its plan; once every card is
    answered, the approved plans are written in one run (`.report`, a
    `design.deck.deck.PushReport`) under a progress bar, then previews of the slides it
    wrote (`.previews`, also shown as a grid). `.approve()` answers every open card, as
    clicking each would. An interrupt while the writes run stops them after the write in
    flight, and the status says what was written and what was not."""

    def __init__(self, host: DeckHost, deck: Deck) -> None:
        import ipywidgets as w

        from .progress import ProgressPanel

        self._host = host
        self.deck = deck
        self.push: Any = None
        self.cards: list[Any] = []
        self.failures: list[Outcome] = []
        self.message = "deck push"
        self.status = w.HTML()
        self.progress = ProgressPanel("deck push")
        self.grid = w.HTML()
        self.widget = w.VBox([self.status, self.progress.widget, self.grid])

    # ------------------------------------------------------------ what the push holds

    @property
    def batches(self) -> list[tuple[str, ...]]:
        return self.push.batches if self.push is not None else []

    @property
    def written(self) -> list[str]:
        return self.push.written if self.push is not None else []

    @property
    def report(self) -> Any:
        return self.push.report if self.push is not None else None

    @property
    def previews(self) -> list[tuple[str, bytes, dict]]:
        return self.push.previews if self.push is not None else []

    @property
    def stopping(self) -> Any:
        """Set by an interrupt while the writes run: no write is sent after it."""
        return self.push.stopping

    # ------------------------------------------------------------ running

    def start(self) -> Any:
        host = self._host
        self.push = push = host.session.deck.of(self.deck).start_push(
            resume=host.resume, can_ask=host.can_ask())
        if push.refused is not None:  # nothing was written
            refused = push.refused
            return (views.design_outcome(refused) if isinstance(refused, DesignOutcome)
                    else views.failed_outcome("design deck push", refused))
        if not push.batches:
            self._say("Nothing to push: the project holds every staged file.")
            return self
        self.cards = [self._card(batch, pending) for batch, pending in push.pending.items()]
        self.widget.children = (self.status, *(c.widget for c in self.cards),
                                self.progress.widget, self.grid)
        self._shown_failures()
        self._progress()
        if not push.asking:
            self._write_all()
        return self

    def _card(self, batch: tuple[str, ...], pending: PendingApproval) -> Any:
        from .cards import ApprovalCard

        def resume(answered: Any, approved: bool, durable: bool) -> Any:
            result = self._host.resume(answered, approved, durable)
            self.push.settle(batch, result)
            if isinstance(result, PendingApproval):
                return result  # a further question on this card: it is not answered yet
            self._shown_failures()
            if not self.push.asking and self.push.report is None:
                self._write_all()  # the last card answered: every approved plan is written
            else:
                self._progress()
            return result

        return ApprovalCard(pending, resume=resume, present=views.design_outcome,
                            project_names=self._project_names())

    def _project_names(self) -> dict[str, str | None]:
        """Names for the plan cards: every card names the project by name and id. The
        deck's name is shown only when it is display-safe, as every name on a card is."""
        from ...core.display import text_rule

        names = dict(self._host.session.design.projects_seen)
        deck = self.deck
        if deck.project_id and deck.project_name and not text_rule(deck.project_name):
            names.setdefault(deck.project_id, deck.project_name)
        return names

    def _shown_failures(self) -> None:
        """The push's failures as outcomes, each drawn once."""
        for failure in self.push.failures[len(self.failures):]:
            self.failures.append(views.design_outcome(failure)
                                 if isinstance(failure, DesignOutcome)
                                 else views.failed_outcome("design deck push", failure))

    def _write_all(self) -> None:
        """Write every approved plan in one run, in the order of the cards."""
        self.push.write(on_progress=self.progress.report_batch)
        self._shown_failures()
        self._progress()

    def _progress(self) -> None:
        total = self.push.total
        report = self.report
        if report is not None and (report.stopped or report.failure is not None):
            why = "Stopped" if report.stopped else "A write failed"
            text = (f"{why}: {len(report.written)} of {total} file(s) written"
                    + (f" ({listed(report.written)})" if report.written else "")
                    + f"; not written: {listed(report.not_written)}")
            if report.unknown:
                text += (f"; no answer for {listed(report.unknown)} (the next push "
                         "checks whether they landed)")
            self._say(text + ". Run %design deck push again: it writes only what is "
                      "still missing.")
        elif self.failures:
            self._say(f"{len(self.written)} of {total} file(s) written; a plan was not "
                      "approved or failed. Run %design deck push again: it writes only "
                      "what is still missing.")
        elif len(self.written) == total:
            self._say(f"Pushed {total} file(s) in {len(self.batches)} plan(s).")
            self.push.load_previews()
            self.grid.value = preview_grid(self.previews)
        else:
            answered = len(self.push.approved)
            self._say(f"{len(self.batches)} plan(s) to approve for {total} file(s); "
                      f"{answered} approved so far: the files are written once every "
                      "card is answered.")

    def _say(self, text: str) -> None:
        fit = self.push.fit_summary() if self.push is not None else ""
        text += f" {fit}" if fit else ""
        records = self.deck.records
        if records is not None and records.problem:  # the push went on; say what is lost
            text += f" (Not remembered for other kernels: {records.problem}.)"
        self.status.value = f"<b>{html.escape(text)}</b>"
        self.message = text

    # ------------------------------------------------------------ answering from code

    def approve(self) -> DeckPush:
        """Approve every card still asking (what a person clicking Approve on each does)."""
        for card in self.cards:
            if card.pending is not None:
                card.approve()
        return self

    @property
    def done(self) -> bool:
        return all(card.outcome is not None for card in self.cards)

    @property
    def images(self) -> list[tuple[str, bytes]]:
        return [("image/png", png) for _, png, _ in self.previews]

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude)
        bundle["text/plain"] = self.message
        # a frontend with no widgets (a docs page, nbconvert) shows the same as HTML: the
        # status, each card with what its answer said, the previews
        cards = "".join(f"{c.header.value}{c.status.value}" for c in self.cards)
        bundle["text/html"] = f"{self.status.value}{cards}{self.grid.value}"
        return bundle

    def __repr__(self) -> str:
        return f"<DeckPush {self.message}>"
