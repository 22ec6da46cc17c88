"""The approval card: an ipywidgets composition that shows what a Design call would do and
continues the call when a person clicks Approve, Approve for this project, or Deny.

Cards are event-driven (a waiting cell never sees a click): the button callback resumes
the call and renders the result into the card's `Output`. `approve()` and `deny()` do
exactly what the buttons do, for code and tests.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..design.approval import PendingApproval
from ..errors import ApprovalClosed, JdpError, PermissionDenied
from .outcome import Outcome
from .views import failed_outcome

TITLES = {
    "consent": "Allow agents to use your Design projects?",
    "plan": "Approve this plan of writes and deletes?",
    "grant": "Allow writes to this Design project?",
    "operation": "Run this Design operation?",
}

#: a line of the card text that heads a path list the card shows as its own list
_PATH_HEADING = re.compile(r"(?:This batch writes|Writes|Deletes) \(\d+\):")

#: resume(pending, approved, durable) → a DesignOutcome or a follow-up PendingApproval
Resume = Callable[[Any, bool, bool], Any]


def _paths(title: str, paths: Sequence[str]) -> str:
    if not paths:
        return ""
    items = "".join(f"<li><code>{html.escape(str(p))}</code></li>" for p in paths)
    return (f'<div style="margin-top:4px"><b>{html.escape(title)}</b> ({len(paths)})'
            f'<ul style="margin:2px 0">{items}</ul></div>')


def _project(request: Any) -> str:
    name = request.project_name or ""
    return f"{name} ({request.project_id})" if name and request.project_id else (
        name or request.project_id or "")


def card_parts(request: Any) -> tuple[str, list[tuple[str, str]], list[str]]:
    """What a card shows: its title (the text's question), the field rows, and the lines
    of the text that the rows and path lists do not already show (shown once, not twice)."""
    lines = (request.text or "").splitlines()
    title = lines.pop(0).strip() if lines and lines[0].strip() else TITLES.get(
        request.kind, TITLES["operation"])
    rows = [(label, str(value)) for label, value in (
        ("Operation", request.operation), ("Project", _project(request)),
        ("Sharing", request.sharing), ("URL", request.url)) if value]
    shown = {f"{label}: {value}" for label, value in rows}
    shown |= {f"Requested operation: {request.operation}"}
    shown |= {f"Project: {request.project_id}"} if request.project_id else set()
    paths = {str(p) for p in (*request.writes, *request.deletes)}
    rest = [line for line in lines
            if line.strip() and line.strip() not in shown and line.strip() not in paths
            and not _PATH_HEADING.fullmatch(line.strip())]
    return title, rows, rest


def card_html(request: Any) -> str:
    """The card's body: every value escaped; the URL is a link only when it is https."""
    title, rows, rest = card_parts(request)
    cells = []
    for label, value in rows:
        shown = html.escape(value)
        if label == "URL" and value.startswith("https://"):
            shown = (f'<a href="{html.escape(value, quote=True)}" target="_blank" '
                     f'rel="noopener noreferrer">{shown}</a>')
        cells.append(f'<tr><th style="text-align:left;padding-right:12px">'
                     f"{html.escape(label)}</th><td>{shown}</td></tr>")
    notes = "".join(f'<p style="margin:4px 0">{html.escape(line)}</p>' for line in rest)
    return (
        f'<div class="jdp-card"><h4 style="margin:4px 0">{html.escape(title)}</h4>'
        f'<table>{"".join(cells)}</table>'
        f"{_paths('Writes', request.writes)}{_paths('Deletes', request.deletes)}"
        f"{notes}</div>"
    )


class ApprovalCard:
    """One card for one Design call; a follow-up request (e.g. the grant after consent)
    replaces the card's content, and the final result renders into `output`."""

    def __init__(self, pending: Any, resume: Resume, present: Callable[[Any], Outcome]) -> None:
        import ipywidgets as w

        self._w = w
        self._resume = resume
        self._present = present
        self.operation = pending.operation
        self.pending: Any | None = None
        self.outcome: Outcome | None = None
        self.history: list[str] = []
        self.header = w.HTML()
        self.status = w.HTML()
        self.buttons = w.HBox()
        self.output = w.Output()
        self.widget = w.VBox([self.header, self.buttons, self.status, self.output],
                             layout=w.Layout(border="1px solid #9e9e9e", padding="6px"))
        self._ask(pending)

    def _ask(self, pending: Any) -> None:
        w = self._w
        self.pending = pending
        self.header.value = card_html(pending.request)
        self.approve_button = w.Button(description="Approve", button_style="success")
        self.approve_button.on_click(lambda _b: self.approve())
        self.durable_button = None
        self.deny_button = w.Button(description="Deny", button_style="danger")
        self.deny_button.on_click(lambda _b: self.deny())
        buttons = [self.approve_button]
        if pending.request.allows_durable:
            self.durable_button = w.Button(description="Approve for this project",
                                           button_style="info", layout=w.Layout(width="auto"))
            self.durable_button.on_click(lambda _b: self.approve(durable=True))
            buttons.append(self.durable_button)
        buttons.append(self.deny_button)
        self.buttons.children = tuple(buttons)

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
            raise PermissionDenied(self.operation, "this card does not offer a durable grant")
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
