"""The notebook's view of a deck: `%design deck open|new|push|show` and `%%design slide
PATH`, the `NotebookDeck` they return (a `design.deck.Deck` driven through the session's
`session.deck`, plus `.staged` as a DataFrame and a rich display) and the `DeckPush` a
push returns: one approval card per plan of the pipeline's push (`design.deck.push`), and
once every plan is approved and written, a grid of previews of the deck's slides.

The pipeline owns the flow; this module draws it and routes the clicks. Like every card,
the push is event-driven: each card's click continues its plan, and the click of the last
card answered writes every approved plan in one run (journaled ahead in one commit, under
a progress bar, stopped after the write in flight by an interrupt) and renders the
previews into the push's own widget.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping
from typing import Any, Protocol

from ...core import slide_fit
from ...design.approval import DesignOutcome, PendingApproval
from ...design.deck import Deck
from ...errors import BadCommand
from ..grammar import parse as grammar
from ..views import outcomes as views
from ..views import tables
from ..views.outcome import Outcome

#: the columns of `deck.staged`
STAGED_COLUMNS = ("path", "kind", "bytes", "change", "slide")
#: why a deck command cannot run before a deck is open, and the one step that opens one
NO_DECK = "this notebook has no deck open yet"
OPEN_A_DECK = "deck = %design deck open NAME_OR_ID (a new project: %design deck new NAME)"
#: width of one preview in the grid (px)
PREVIEW_WIDTH = 320


class DeckHost(Protocol):
    """What a deck needs from the notebook it lives in (`host.NotebookHost` is one): the session,
    whether a person can answer a card now, the continuation of an answered card, and the
    notebook's variables (for `$name` in a slide)."""

    @property
    def session(self) -> Any: ...

    def can_ask(self) -> bool: ...

    def resume(self, pending: Any, approved: bool, durable: bool) -> Any: ...

    def user_namespace(self) -> Mapping[str, Any]: ...


def deck_command(host: DeckHost, command: grammar.Command,
                 current: NotebookDeck | None) -> Any:
    """Run `%design deck …` or `%%design slide …` on the notebook's `current` deck (None:
    none yet); a `NotebookDeck` returned is the notebook's deck from now on."""
    args = command.args
    if command.action == "slide":
        deck = _current(current, "design slide")
        if args.get("drop"):
            deck.deck.stage.remove(args["path"])
            return deck
        if args.get("body") is None:
            raise BadCommand("design slide", "the Markdown goes in the cell body: "
                                             "%%design slide PATH (or --drop to unstage)")
        staged = deck.add_markdown(args["path"], args["body"], args.get("values") or {})
        return deck.staged_outcome(staged.path)
    verb, target = args["verb"], " ".join(args.get("target") or []).strip()
    if verb in ("open", "new"):
        if not target:
            raise BadCommand(f"design deck {verb}", "needs a project name" + (
                " or id" if verb == "open" else ""))
        opened = (NotebookDeck.open(host, target) if verb == "open"
                  else NotebookDeck.create(host, target))
        if args.get("theme") and isinstance(opened, NotebookDeck):
            opened.deck.use_theme(args["theme"])
        return opened
    deck = _current(current, f"design deck {verb}")
    if args.get("theme"):
        deck.deck.use_theme(args["theme"])
    if verb in ("from-notebook", "export"):
        if not target:
            raise BadCommand(f"design deck {verb}", "needs a path: " + (
                "%design deck from-notebook PATH.ipynb [--code]" if verb == "from-notebook"
                else "%design deck export PATH.pdf|PATH.html [--notes]"))
        if verb == "from-notebook":
            return deck.from_notebook(target, code=bool(args.get("code")))
        return deck.export(target, notes=bool(args.get("notes")))
    return deck.push() if verb == "push" else deck


def _current(deck: NotebookDeck | None, command: str) -> NotebookDeck:
    if deck is None:
        raise BadCommand(command, NO_DECK, OPEN_A_DECK)
    if deck.ended is not None:
        raise BadCommand(command, deck.ended)
    return deck


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
        result = made._pipeline().create(name)
        if isinstance(result, DesignOutcome):
            return views.design_outcome(result) if result.is_error else made
        if not host.can_ask():
            return views.failed_outcome("design deck new", nobody_can_approve(result.operation))
        from IPython.display import display

        from .cards import ApprovalCard

        def resume(pending: Any, approved: bool, durable: bool) -> Any:
            answer = host.resume(pending, approved, durable)
            made._pipeline().created(answer, name)
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

    def _pipeline(self) -> Any:
        """This deck driven through the notebook's session (`design.deck.facade`)."""
        return self._host.session.deck.of(self.deck)

    # ------------------------------------------------------------ staging

    def add_markdown(self, path: str, markdown: str, values: dict | None = None) -> Any:
        """Stage a slide from Markdown; `$name` takes `values[name]`, else the notebook's
        variable `name` (a figure, a DataFrame or a string)."""
        if values is None:
            values = dict(self._host.user_namespace())
        return self.deck.add_markdown(path, markdown, values)

    def add_figure(self, path: str, figure: Any, title: str | None = None,
                   caption: str | None = None) -> Any:
        return self.deck.add_figure(path, figure, title, caption)

    def add_table(self, path: str, frame: Any, title: str | None = None,
                  max_rows: int | None = None) -> Any:
        if max_rows is None:
            return self.deck.add_table(path, frame, title)
        return self.deck.add_table(path, frame, title, max_rows)

    def from_notebook(self, path: str, code: bool = False) -> Outcome:
        """Stage the slides of a notebook (see `Deck.add_notebook`); nothing is sent."""
        reading = self.deck.add_notebook(path, code)
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
        done = self._pipeline().export(path, notes)
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
                    + (f" ({_listed(report.written)})" if report.written else "")
                    + f"; not written: {_listed(report.not_written)}")
            if report.unknown:
                text += (f"; no answer for {_listed(report.unknown)} (the next push "
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


#: how many paths a push's status names before it counts the rest
LISTED_PATHS = 10


def _listed(paths: list[str]) -> str:
    shown = ", ".join(paths[:LISTED_PATHS])
    more = len(paths) - LISTED_PATHS
    return shown + (f" and {more} more" if more > 0 else "") if paths else "none"


def preview_grid(previews: list[tuple[str, bytes, dict]]) -> str:
    """The previews side by side, each captioned with its path and what the page reported."""
    if not previews:
        return ""
    cells = []
    for path, png, data in previews:
        src = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        notes = []
        failed = data.get("failed_requests") or []
        if failed:
            notes.append(f"{len(failed)} failed request(s)")
        if data.get("fallback_reason"):
            notes.append(str(data["fallback_reason"]))
        note = f"<br><small>{html.escape('; '.join(notes))}</small>" if notes else ""
        cells.append(f'<figure class="jdp-deck-preview" style="margin:0">'
                     f'<img alt="{html.escape(str(data.get("title") or path), quote=True)}" '
                     f'src="{src}" '
                     f'style="width:100%;border:1px solid #9e9e9e">'
                     f"<figcaption><code>{html.escape(path)}</code>{note}</figcaption></figure>")
    return (f'<div class="jdp-deck-grid" style="display:grid;gap:12px;grid-template-columns:'
            f'repeat(auto-fill,minmax({PREVIEW_WIDTH}px,1fr))">{"".join(cells)}</div>')


def export_outcome(target: Any, data: bytes, read: Any, title: str, notes: bool,
                   printed: Any = None, kind: str = "PDF") -> Outcome:
    """What an export says: where it went, as what, and everything not exported as the
    project holds it (not read whole, pictured, missing, scaled, continued, cut, blocked)."""
    notice = (f"Wrote {target} ({len(data):,} bytes, {kind}): {len(read.slides)} slide(s) "
              f"of {title} as the project holds them"
              + (", with speaker notes" if notes else "") + ".")
    if read.partial:
        notice += (f" {len(read.partial)} file(s) NOT exported whole: "
                   f"{'; '.join(read.partial)}.")
    if read.pictured:
        notice += (f" {len(read.pictured)} image asset(s) cannot be read back over the "
                   "Design protocol (read_file is text only), so their slides are the "
                   f"service's picture of them: {'; '.join(read.pictured)}.")
    if read.missing:
        notice += (f" {len(read.missing)} asset(s) could not be read back from the project"
                   f" (shown as their alt text): {'; '.join(read.missing)}.")
    for said in (slide_fit.pictured_summary(read.pictures), slide_fit.summary(read.fitted)):
        notice += f" {said}" if said else ""
    fields: dict[str, Any] = {"path": str(target), "bytes": len(data),
                              "slides": [s.path for s in read.slides],
                              "missing": read.missing, "pictured": read.pictured,
                              "partial": read.partial, "kind": kind,
                              "pictures": dict(read.pictures),
                              "fitted": {p: slide_fit.describe(o) for p, o in read.fitted.items()}}
    if printed is not None:
        if printed.scaled:
            notice += (" Scaled down to fit a page: " + "; ".join(
                f"{p} to {s:.0%}" for p, s in printed.scaled.items()) + ".")
        if printed.continued:
            notice += (" Too tall for one page even at the smallest scale, so continued "
                       "over pages: " + "; ".join(f"{p} on {n} pages"
                                                  for p, n in printed.continued.items()) + ".")
        if printed.cut:
            notice += (" Wider than a page even at the smallest print scale, cut at the "
                       f"right edge: {'; '.join(printed.cut)}.")
        if printed.blocked:
            notice += (f" {printed.blocked} request(s) the pages tried to make were blocked "
                       "(a PDF loads nothing).")
        fields.update(scaled=printed.scaled, continued=printed.continued, cut=printed.cut,
                      blocked=printed.blocked)
    return Outcome("design deck export", fields, notice=notice)

