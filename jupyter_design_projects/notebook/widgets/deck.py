"""The notebook's view of a deck: the `NotebookDeck` that `%design deck open|new|show`
and `%%design slide PATH` return (the verbs are rows of `commands.registry`, their handlers
in `commands.deck`). It is the pipeline's deck (`design.deck.facade.ProjectDeck`, reached
as `.pipeline` through the notebook's session) drawn for a notebook: its staging calls
are the pipeline's own, and it adds `.staged` as a DataFrame, a rich display, the
create_project card of `new` and the push drawn as cards (`deck_push.DeckPush`).
"""

from __future__ import annotations

import html
from typing import Any

from ...design.approval import DesignOutcome
from ...design.deck import Deck
from ...errors import BadCommand
from ..views import outcomes as views
from ..views import tables
from ..views.deck_outcomes import export_outcome
from ..views.outcome import Outcome
from .deck_push import DeckHost, DeckPush

#: the columns of `deck.staged`
STAGED_COLUMNS = ("path", "kind", "bytes", "change", "slide")


class _Pipeline:
    """A method of the pipeline's deck (`ProjectDeck`), called on the notebook's deck as
    it is: the notebook adds nothing to it."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, deck: Any, owner: type | None = None) -> Any:
        return self if deck is None else getattr(deck.pipeline, self.name)


class NotebookDeck:
    """A deck in a notebook: stage with `add_markdown`, `add_figure`, `add_table` (or
    `%%design slide PATH`), look at `.staged`, then `%design deck push` (or `.push()`)."""

    def __init__(self, host: DeckHost, deck: Deck) -> None:
        self._host = host
        self.deck = deck
        #: the create_project card of `%design deck new`, until it is answered
        self.create_card: Any = None
        #: why this deck can no longer be used (its create card was denied), else None
        self.ended: str | None = None
        #: while a create card is open, the deck's cell shows this widget, redrawn once the
        #: card is answered (the cell's first rendering cannot change by itself)
        self._live: Any = None

    # ------------------------------------------------------------ opening

    @classmethod
    def open(cls, host: DeckHost, name_or_id: str) -> NotebookDeck:
        return cls(host, host.session.deck.open(name_or_id).deck)

    @classmethod
    def create(cls, host: DeckHost, name: str) -> NotebookDeck | Outcome:
        """Create the project through the normal permission path (its card asks first)."""
        from ...design.deck.push import nobody_can_approve

        made = cls(host, host.session.deck.blank().deck)
        result = made.pipeline.create(name)
        if isinstance(result, DesignOutcome):
            return views.design_outcome(result) if result.is_error else made
        if not host.can_ask():
            return views.failed_outcome("design deck new", nobody_can_approve(result.operation))
        from IPython.display import display

        from .cards import ApprovalCard

        def resume(pending: Any, approved: bool, durable: bool) -> Any:
            answer = host.resume(pending, approved, durable)
            made.pipeline.created(answer, name)
            if made.project_id is None:  # denied, or the create failed: the deck ends
                made.ended = (f"the deck for {name!r} ended: its create_project card was "
                              f"{'denied' if not approved else 'not carried out'}. Run "
                              f"`%design deck new {name}` again to create it.")
            made._live.value = made._html()
            return answer

        import ipywidgets as w

        made._live = w.HTML()
        made._live.value = made._html()
        made.create_card = ApprovalCard(result, resume=resume, present=views.design_outcome)
        display(made.create_card.widget)
        return made

    @property
    def pipeline(self) -> Any:
        """This deck as the pipeline drives it (`ProjectDeck`), through the notebook's
        session (read at each use: the session may have been reopened)."""
        return self._host.session.deck.of(self.deck)

    # ------------------------------------------------------------ staging

    def add_markdown(self, path: str, markdown: str, values: dict | None = None) -> Any:
        """Stage a slide from Markdown; `$name` takes `values[name]`, else the notebook's
        variable `name` (a figure, a DataFrame or a string)."""
        if values is None:
            values = dict(self._host.user_namespace())
        return self.pipeline.add_markdown(path, markdown, values)

    #: staging a figure, a table or a notebook's slides, and the staged rows: the
    #: pipeline deck's own calls (`ProjectDeck.add_figure`, ...)
    add_figure = _Pipeline()
    add_table = _Pipeline()
    add_notebook = _Pipeline()
    staged_rows = _Pipeline()

    def from_notebook(self, path: str, code: bool = False) -> Outcome:
        """Stage the slides of a notebook (see `Deck.add_notebook`); nothing is sent."""
        reading = self.pipeline.add_notebook(path, code)
        rows = self.deck.staged_rows()
        mine = {s.path for s in reading.slides}
        changed = sum(1 for f in self.deck.missing() if f.slide in mine)
        lines = [f"Staged {len(reading.slides)} slide(s) from {path} (by its "
                 f"{reading.rule}); {changed} file(s) differ from what the project holds; "
                 "nothing sent: %design deck push writes them."]
        if reading.skipped:
            lines.append("Skipped: " + "; ".join(reading.skipped) + ".")
        if reading.left_out:
            lines.append("Left out: " + "; ".join(reading.left_out) + ".")
        lines.append(self.deck.stage.fit_summary(sorted(mine)))
        return Outcome("design deck from-notebook",
                       {"slides": [s.path for s in reading.slides],
                        "skipped": reading.skipped, "left_out": reading.left_out,
                        "rule": reading.rule},
                       notice=" ".join(line for line in lines if line),
                       tables={"staged": [r for r in rows if r["slide"] in mine]})

    def export(self, path: str, notes: bool = False) -> Outcome:
        """Write the deck as the project holds it to PATH.pdf or PATH.html (see
        `design.deck.exported`); `notes` adds the speaker notes."""
        done = self.pipeline.export(path, notes)
        return export_outcome(done.path, done.data, done.read, done.title, notes,
                              done.printed, done.kind)

    # ------------------------------------------------------------ what a user reaches for

    @property
    def project_id(self) -> str | None:
        return self.deck.project_id

    @property
    def project_name(self) -> str | None:
        return self.deck.project_name

    @property
    def theme(self) -> Any:
        return self.deck.theme

    @property
    def slides(self) -> list[str]:
        """The staged slide pages, in deck order."""
        return list(self.deck.stage.slides)

    @property
    def staged(self):
        """What a push would write: path, kind, bytes, new or replace, and its slide."""
        import pandas as pd

        frame = pd.DataFrame(self.deck.staged_rows(), columns=list(STAGED_COLUMNS))
        return frame.astype({"bytes": "Int64"})

    def staged_outcome(self, path: str) -> Outcome:
        rows = self.deck.staged_rows()
        row = next((r for r in rows if r["path"] == path), {})
        slides = len(self.deck.stage.slides)
        notice = (f"Staged {path} ({row.get('bytes', 0):,} bytes, {row.get('change')}); "
                  f"{slides} slide(s) staged, nothing sent: %design deck push writes them."
                  + (f" {fit}" if (fit := self.deck.stage.fit_summary([path])) else ""))
        return Outcome("design slide", row, notice=notice, tables={"staged": rows})

    # ------------------------------------------------------------ pushing

    def push(self) -> Any:
        """Plan, approve and write the missing files; see `DeckPush`."""
        if self.ended is not None:
            raise BadCommand("design deck push", self.ended)
        return DeckPush(self._host, self.deck).start()

    # ------------------------------------------------------------ display

    def _summary(self) -> str:
        deck = self.deck
        project = (f"{deck.project_name} ({deck.project_id})" if deck.project_id
                   else "(project awaiting its create card)" if self.ended is None
                   else "(ended: its create card was denied)")
        return (f"Deck for {project} · design system: {deck.theme.name} · "
                f"{len(deck.stage.slides)} slide(s), {len(deck.stage.files)} file(s) staged")

    def _html(self) -> str:
        return (f"<div><b>{html.escape(self._summary())}</b></div>"
                + tables.html_table(self.deck.staged_rows(), STAGED_COLUMNS))

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        if self._live is not None:  # a create card was shown: a view that follows it
            self._live.value = self._html()
            bundle = self._live._repr_mimebundle_(include=include, exclude=exclude)
            return {**bundle, "text/plain": self._summary(), "text/html": self._html()}
        return {"text/plain": self._summary(), "text/html": self._html()}

    def __repr__(self) -> str:
        return f"<NotebookDeck {self._summary()}>"


