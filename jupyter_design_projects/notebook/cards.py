"""The approval card: an ipywidgets composition that shows what a Design call would do and
continues the call when a person clicks Approve, Approve for this project, or Deny.

Cards are event-driven (a waiting cell never sees a click): the button callback resumes
the call and renders the result into the card's `Output`. `approve()` and `deny()` do
exactly what the buttons do, for code and tests.
"""

from __future__ import annotations

import html
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

#: resume(pending, approved, durable) → a DesignOutcome or a follow-up PendingApproval
Resume = Callable[[Any, bool, bool], Any]


def _paths(title: str, paths: Sequence[str]) -> str:
    if not paths:
        return ""
    items = "".join(f"<li><code>{html.escape(str(p))}</code></li>" for p in paths)
    return f"<div><b>{html.escape(title)}</b> ({len(paths)})<ul>{items}</ul></div>"


def card_html(request: Any) -> str:
    """The card's body: every value escaped; the URL is a link only when it is https."""
    rows = [("Operation", request.operation)]
    if request.project_name or request.project_id:
        name = request.project_name or ""
        rows.append(("Project", f"{name} ({request.project_id})" if request.project_id
                     else name))
    if request.sharing:
        rows.append(("Sharing", request.sharing))
    cells = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(str(v))}</td>"
        "</tr>" for k, v in rows if v
    )
    url = ""
    if request.url:
        shown = html.escape(str(request.url))
        link = (f'<a href="{html.escape(str(request.url), quote=True)}" target="_blank" '
                f'rel="noopener noreferrer">{shown}</a>'
                if str(request.url).startswith("https://") else shown)
        url = f"<tr><th style='text-align:left'>URL</th><td>{link}</td></tr>"
    title = TITLES.get(request.kind, TITLES["operation"])
    return (
        f'<div class="jdp-card"><h4 style="margin:4px 0">{html.escape(title)}</h4>'
        f"<table>{cells}{url}</table>"
        f"{_paths('Writes', request.writes)}{_paths('Deletes', request.deletes)}"
        f'<div style="white-space:pre-wrap">{html.escape(request.text or "")}</div></div>'
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
        self.status.value = f"<em>{html.escape(pending.request.kind)}: {choice}</em>"
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
