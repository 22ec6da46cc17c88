"""The approval card: an ipywidgets composition that shows what a Design call would do and
continues the call when a person clicks Approve, Approve for this project, or Deny.

Cards are event-driven (a waiting cell never sees a click): the button callback resumes
the call and renders the result into the card's `Output`. `approve()` and `deny()` do
exactly what the buttons do, for code and tests.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.cards import APPROVE, APPROVE_FOR_PROJECT, DENY, ApprovalRequest
from ..design.approval import PendingApproval
from ..errors import ApprovalClosed, JdpError, PermissionDenied
from .outcome import Outcome
from .theme import colour
from .views import failed_outcome

#: each button's ipywidgets style (the long label gets an automatic width)
BUTTON_STYLES = {APPROVE: "success", APPROVE_FOR_PROJECT: "info", DENY: "danger"}

#: shown only while the card's widgets have lost their kernel (ipywidgets marks every view
#: `jupyter-widgets-disconnected` when the kernel restarts, and a card restored from saved
#: widget state never had one): the buttons go inert and this line says what to do
STALE_LINE = ("This card's kernel is gone (restarted or reloaded): re-run the cell to be "
              "asked again.")
STALE_CSS = (
    ".jdp-card-stale{display:none}"
    ".jupyter-widgets-disconnected.jdp-card-box .jdp-card-stale,"
    ".jdp-card-box .jupyter-widgets-disconnected.jdp-card-stale{display:block}"
    ".jupyter-widgets-disconnected.jdp-card-box .jdp-card-buttons button,"
    ".jdp-card-buttons.jupyter-widgets-disconnected button,"
    ".jdp-card-buttons button.jupyter-widgets-disconnected"
    "{pointer-events:none;opacity:.45;cursor:not-allowed}"
)

#: the status line after "Approve for this project" met a project that cannot hold a grant
GRANT_REFUSED = "this project cannot hold a grant; approve this batch only?"

#: resume(pending, approved, durable) → a DesignOutcome or a follow-up PendingApproval
Resume = Callable[[Any, bool, bool], Any]


def _paths(title: str, paths: Sequence[str]) -> str:
    if not paths:
        return ""
    items = "".join(f"<li><code>{html.escape(str(p))}</code></li>" for p in paths)
    return (f'<div style="margin-top:4px"><b>{html.escape(title)}</b> ({len(paths)})'
            f'<ul style="margin:2px 0">{items}</ul></div>')


def card_parts(request: ApprovalRequest) -> tuple[str, list[tuple[str, str]], list[str]]:
    """What a card shows besides its path lists: the title, the field rows, and the
    detail and note lines, each taken from the request's own fields."""
    rows = [(label, str(value)) for label, value in (
        ("Operation", request.operation), ("Project", request.project),
        ("Sharing", request.sharing), ("URL", request.url)) if value]
    lines = [line for line in (*request.details, *request.notes) if line.strip()]
    return request.title, rows, lines


def card_html(request: ApprovalRequest) -> str:
    """The card's body: every value escaped; the URL is a link only when it is https; each
    button the card does not offer is named with the reason."""
    title, rows, lines = card_parts(request)
    cells = []
    for label, value in rows:
        shown = html.escape(value)
        if label == "URL" and value.startswith("https://"):
            shown = (f'<a href="{html.escape(value, quote=True)}" target="_blank" '
                     f'rel="noopener noreferrer">{shown}</a>')
        cells.append(f'<tr><th style="text-align:left;padding-right:12px">'
                     f"{html.escape(label)}</th><td>{shown}</td></tr>")
    notes = "".join(f'<p style="margin:4px 0">{html.escape(line)}</p>' for line in lines)
    withheld = "".join(
        f'<p class="jdp-card-withheld" style="margin:4px 0;color:{colour("muted")}">'
        f"No &quot;{html.escape(button)}&quot;: {html.escape(why)}</p>"
        for button, why in request.withheld)
    return (
        f'<div class="jdp-card"><h4 style="margin:4px 0">{html.escape(title)}</h4>'
        f'<table>{"".join(cells)}</table>'
        f"{_paths('Writes', request.writes)}{_paths('Deletes', request.deletes)}"
        f"{notes}{withheld}</div>"
    )


class ApprovalCard:
    """One card for one Design call; a follow-up request (e.g. the grant after consent)
    replaces the card's content, and the final result renders into `output`."""

    def __init__(self, pending: Any, resume: Resume, present: Callable[[Any], Outcome],
                 project_names: Mapping[str, str | None] | None = None) -> None:
        import ipywidgets as w

        self._w = w
        self._resume = resume
        self._present = present
        #: display-safe project names the notebook already looked up (plan cards name the
        #: project, not just its id)
        self._names = project_names if project_names is not None else {}
        self.operation = pending.operation
        self.pending: Any | None = None
        self.outcome: Outcome | None = None
        self.history: list[str] = []
        self.header = w.HTML()
        self.status = w.HTML()
        self.buttons = w.HBox()
        self.buttons.add_class("jdp-card-buttons")
        self.stale = w.HTML(
            f"<style>{STALE_CSS}</style><p style=\"margin:4px 0;color:{colour('error')}\">"
            f"<b>{html.escape(STALE_LINE)}</b></p>")
        self.stale.add_class("jdp-card-stale")
        self.output = w.Output()
        self.widget = w.VBox([self.header, self.stale, self.buttons, self.status, self.output],
                             layout=w.Layout(border=f"1px solid {colour('border')}",
                                             padding="6px"))
        self.widget.add_class("jdp-card-box")
        self._ask(pending)

    def _ask(self, pending: Any) -> None:
        w = self._w
        self.pending = pending
        request: ApprovalRequest = pending.request
        self.header.value = card_html(self._named(request))
        answers: dict[str, Callable[[], Any]] = {
            APPROVE: self.approve, APPROVE_FOR_PROJECT: lambda: self.approve(durable=True),
            DENY: self.deny}
        made = {}
        for label in request.buttons:
            width = "auto" if label == APPROVE_FOR_PROJECT else None
            button = w.Button(description=label, button_style=BUTTON_STYLES[label],
                              layout=w.Layout(width=width))
            button.on_click(lambda _b, answer=answers[label]: answer())
            made[label] = button
        self.approve_button = made.get(APPROVE)
        self.durable_button = made.get(APPROVE_FOR_PROJECT)
        self.deny_button = made.get(DENY)
        self.buttons.children = tuple(made.values())

    def _named(self, request: ApprovalRequest) -> ApprovalRequest:
        name = self._names.get(request.project_id or "")
        if request.project_name or not name:
            return request
        return dataclasses.replace(request, project_name=name)

    def _disable(self) -> None:
        for button in self.buttons.children:
            button.disabled = True

    def approve(self, durable: bool = False) -> Outcome | None:
        """Approve (durably: for this project); the final Outcome, or None when a follow-up
        card now asks a further question."""
        return self._decide(True, durable)

    def deny(self) -> Outcome | None:
        return self._decide(False, False)

    def _decide(self, approved: bool, durable: bool) -> Outcome | None:
        pending = self.pending
        if pending is None:
            raise ApprovalClosed(self.operation)
        if durable and not pending.request.allows_durable:
            why = dict(pending.request.withheld).get(APPROVE_FOR_PROJECT)
            offer = f'this card does not offer "{APPROVE_FOR_PROJECT}"'
            raise PermissionDenied(self.operation, f"{offer}: {why}" if why else offer)
        self.pending = None  # no double submit, from the buttons or from code
        self._disable()
        choice = "approved for this project" if durable else ("approved" if approved
                                                             else "denied")
        self.history.append(f"{pending.request.kind}: {choice}")
        self.status.value = f"<em>{html.escape(' → '.join(self.history))}</em>"
        try:
            result = self._resume(pending, approved, durable)
        except JdpError as exc:
            return self._finish(failed_outcome(f"design {self.operation}", exc))
        if isinstance(result, PendingApproval):
            self._ask(result)
            if durable and result.request.reason == "grant_ineligible":
                # the grant POST answered 404: say so, rather than "approved for this project"
                self.history[-1] = f"{pending.request.kind}: {GRANT_REFUSED}"
                self.status.value = f"<em>{html.escape(' → '.join(self.history))}</em>"
            return None
        return self._finish(self._present(result))

    def _finish(self, outcome: Outcome) -> Outcome:
        self.outcome = outcome
        self.buttons.children = ()
        self.output.outputs = ()
        self.output.append_display_data(outcome)
        return outcome

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)
