"""Decks for plain Python: `session.deck.open(name)` and `session.deck.new(name,
approve=…)` return a `ProjectDeck`, a `Deck` bound to the session's loop and Design client.

    with Session.open(can_ask=lambda: True) as session:
        deck = session.deck.open("Quarterly Review", approve=ask_me)
        deck.add_notebook("talk.ipynb")
        deck.push()                          # every plan's card goes to ask_me first
        deck.export("talk.pdf")

Every card a deck asks — the create_project card of `new`, each plan's card of a push —
goes to `approve(request)` with the `ApprovalRequest` a notebook card draws; "once" (or
"project" where the card offers a grant) approves, None denies and nothing is written.
Without `approve` nothing is approved. Where the session says nobody can answer (its
`can_ask`), the Design client refuses the card before it is asked: a push fails closed.
The notebook's `%design deck …` is a view over the same objects (`notebook.deck`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ...errors import DesignRpcError, JdpError
from ..approval import DesignOutcome, PendingApproval
from .deck import Deck
from .exported import Exported, export_deck
from .push import APPROVING, Approve, Push, Run, RunStoppable
from .records import PushRecords


class DeckFacade:
    """`session.deck`: opens and creates the session's decks."""

    def __init__(self, design: Callable[[], Any], run: Run, run_stoppable: RunStoppable,
                 records: Callable[[], PushRecords | None],
                 can_ask: Callable[[], bool]) -> None:
        self._design = design
        self.run = run
        self.run_stoppable = run_stoppable
        self._records = records
        self.can_ask = can_ask

    @property
    def design(self) -> Any:
        """The session's Design client (read at each use: the session may rebuild it)."""
        return self._design()

    def blank(self, approve: Approve | None = None) -> ProjectDeck:
        """A deck bound to no project yet (`create` or `bind_to` binds it)."""
        return ProjectDeck(self, Deck(self.design, records=self._records()), approve)

    def of(self, deck: Deck, approve: Approve | None = None) -> ProjectDeck:
        """`deck` driven through this session (its client follows the session's)."""
        deck.client = self.design
        return ProjectDeck(self, deck, approve)

    def open(self, name_or_id: str, *, approve: Approve | None = None) -> ProjectDeck:
        """The deck of the Design project whose id is `name_or_id`, or whose name is
        exactly it (only reads: nothing is asked or written)."""
        made = self.blank(approve)
        project = self.run(made.deck.find_project(name_or_id))
        made.bind_to(project["id"], project.get("name"))
        return made

    def new(self, name: str, *, approve: Approve | None = None) -> ProjectDeck:
        """A deck of a new Design project `name`, created once `approve` approves its
        create_project card (denied: PermissionRefused, nothing created)."""
        made = self.blank(approve)
        result = made.create(name)
        while isinstance(result, PendingApproval):
            answer = approve(result.request) if approve is not None else None
            result = self.resume(result, answer in APPROVING, answer == "project")
            made.created(result, name)
        if isinstance(result, DesignOutcome) and result.is_error:
            raise _error_of(result)
        return made

    def resume(self, pending: PendingApproval, approved: bool, durable: bool = False) -> Any:
        """Continue an answered card on the session's loop."""
        return self.run(self.design.resume(pending, approved=approved, durable=durable))


class ProjectDeck:
    """A deck bound to one Design project, run on its session: stage (`add_notebook`,
    `add_markdown`, `add_figure`, `add_table`, `theme`), look (`staged_rows`), `push`
    and `export`. `.deck` is the `Deck` underneath."""

    def __init__(self, facade: DeckFacade, deck: Deck, approve: Approve | None = None) -> None:
        self._facade = facade
        self.deck = deck
        self.approve = approve

    # ------------------------------------------------------------ the project

    @property
    def project_id(self) -> str | None:
        return self.deck.project_id

    @property
    def project_name(self) -> str | None:
        return self.deck.project_name

    def bind_to(self, project_id: str, name: str | None = None) -> None:
        """Use this project (its design system, its files as listed now)."""
        self._facade.run(self.deck.bind(project_id, name))

    def create(self, name: str) -> DesignOutcome | PendingApproval:
        """Ask to create the project `name` through the normal permission path: its card
        (a PendingApproval), or the outcome when no card was needed (bound on success)."""
        result = self._facade.run(self.deck.client.call("create_project", {"name": name}))
        self.created(result, name)
        return result

    def created(self, result: Any, name: str) -> None:
        """Bind to the project a create_project outcome made (nothing for anything else)."""
        if isinstance(result, DesignOutcome) and not result.is_error:
            data = result.data if isinstance(result.data, dict) else {}
            if isinstance(data.get("project_id"), str):
                self.bind_to(data["project_id"], name)

    # ------------------------------------------------------------ staging (nothing sent)

    def add_notebook(self, path: str | os.PathLike[str], code: bool = False) -> Any:
        """Stage one slide page per slide of a notebook (`Deck.add_notebook`)."""
        return self.deck.add_notebook(path, code)

    def add_markdown(self, path: str, markdown: str, values: dict | None = None) -> Any:
        return self.deck.add_markdown(path, markdown, values)

    def add_figure(self, path: str, figure: Any, title: str | None = None,
                   caption: str | None = None) -> Any:
        return self.deck.add_figure(path, figure, title, caption)

    def add_table(self, path: str, frame: Any, title: str | None = None,
                  max_rows: int | None = None) -> Any:
        if max_rows is None:
            return self.deck.add_table(path, frame, title)
        return self.deck.add_table(path, frame, title, max_rows)

    def theme(self, choice: str) -> Any:
        """Use `light`, `dark` or `PATH.css` for every slide (`Deck.use_theme`)."""
        return self.deck.use_theme(choice)

    def staged_rows(self) -> list[dict[str, object]]:
        """What a push would write: path, kind, bytes, new / replace / unchanged, slide."""
        return self.deck.staged_rows()

    # ------------------------------------------------------------ pushing and exporting

    def start_push(self, resume: Callable[..., Any] | None = None,
                   can_ask: bool | None = None) -> Push:
        """A push's plans asked, its cards open (`.pending`): what a notebook draws.
        `resume(pending, approved, durable)` continues a card (default: on the session);
        `can_ask` says whether a person can answer one (default: the session's)."""
        facade = self._facade
        self.deck.client = facade.design  # the session may have been reopened since
        push = Push(self.deck, facade.run, resume or facade.resume, facade.run_stoppable)
        return push.plan(facade.can_ask() if can_ask is None else can_ask)

    def push(self, approve: Approve | None = None, *, previews: bool = False) -> Push:
        """Plan, approve and write the files the project does not hold as staged: each
        plan's card goes to `approve` (or the deck's), then every approved plan is
        written in one run. `previews` also draws each slide written. The push says
        what it did: `.written`, `.failures`, `.refused`, `.report`."""
        pushed = self.start_push()
        if pushed.refused is None:
            pushed.answer_all(approve if approve is not None else self.approve)
            pushed.write()
            if previews and pushed.complete:
                pushed.load_previews()
        return pushed

    def export(self, path: str | os.PathLike[str], notes: bool = False) -> Exported:
        """Write the deck as the project holds it to PATH.pdf or PATH.html
        (`exported.export_deck`); `notes` adds the speaker notes."""
        self.deck.client = self._facade.design
        return export_deck(self.deck, self._facade.run, path, notes)

    def __repr__(self) -> str:
        project = (f"{self.deck.project_name} ({self.deck.project_id})"
                   if self.deck.project_id else "no project yet")
        return (f"<ProjectDeck {project}: {len(self.deck.stage.slides)} slide(s), "
                f"{len(self.deck.stage.files)} file(s) staged>")


def _error_of(outcome: DesignOutcome) -> JdpError:
    """The error a failed outcome carries, or the service's tool error as one."""
    if outcome.error is not None:
        return outcome.error
    return DesignRpcError(outcome.operation, 0, str(outcome.data))
