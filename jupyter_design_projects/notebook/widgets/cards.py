"""The approval card: an ipywidgets composition that shows what a Design call would do and
continues the call when a person clicks Approve, Approve for this project, or Deny.

Cards are event-driven (a waiting cell never sees a click): the button callback resumes
the call and renders the result into the card's `Output`. `approve()` and `deny()` do
exactly what the buttons do, for code and tests. While a grant card waits, an optional
`watch` (the grant watcher, spec §8) may answer it instead: a grant given elsewhere (Design
settings) continues the call the same way a click does, and the card says "approved
elsewhere".
"""

from __future__ import annotations

import dataclasses
import html
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from ...core.cards import (
    APPROVE,
    APPROVE_FOR_PROJECT,
    DENY,
    PLAN_OPERATION,
    RESERVED_TARGET,
    ApprovalRequest,
)
from ...core.plans import PLAN_TTL_MS
from ...design.approval import PendingApproval
from ...errors import ApprovalClosed, JdpError, PermissionDenied
from ..views.card_body import card_html
from ..views.card_record import CardRecord
from ..views.outcome import Outcome
from ..views.outcomes import failed_outcome
from ..views.theme import colour

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
    # ipywidgets draws a broken-link icon before every disconnected view (seven in a card):
    # the stale line says it once, in words
    ".jupyter-widgets-disconnected.jdp-card-box::before,"
    ".jdp-card-box .jupyter-widgets-disconnected::before{content:none;display:none}"
)

#: the status line after "Approve for this project" met a project that cannot hold a grant
GRANT_REFUSED = ("This project cannot hold a grant (the service refused one): approve this "
                 "batch only?")

#: resume(pending, approved, durable) → a DesignOutcome or a follow-up PendingApproval
Resume = Callable[[Any, bool, bool], Any]
#: watch(pending, claim) → a Future of the continued call's result (None: nothing came),
#: running on the session's loop; it calls claim() before it continues the call
Watch = Callable[[Any, Callable[[], bool]], "Future[Any] | None"]
#: the status line of a grant card answered by a grant given outside the notebook
APPROVED_ELSEWHERE = "approved elsewhere"
#: what each answer did, said on the card's status line (`history` keeps the short
#: `kind: answer` codes): a plain Approve grants nothing lasting, and says so
DENIED = "Denied: nothing was sent."
CONSENT_GIVEN = ("Consent given: agents may use your Design projects (`%design revoke` "
                 "withdraws it).")
ONCE = "Approved this call only: nothing lasting was granted, so the next change asks again."
BATCH_ONCE = ("Approved this batch only (no lasting grant): other writes to this project ask "
              "again.")
GRANTED = ("Approved for this project: its ordinary files may be written until you revoke "
           "the grant in Design settings.")
GRANTED_ELSEWHERE = "Approved elsewhere: a grant given in Design settings let this call go on."
PLAN_APPROVED = (f"Approved the plan: the changes it lists may run without asking again for "
                 f"up to {PLAN_TTL_MS // 60_000} minutes.")
#: … and for a plan naming CLAUDE.md or .claude/, which the service spends on first use
RESERVED_PLAN_APPROVED = ("Approved the plan for one call only: the first call that presents "
                          "its token spends it, and later changes to CLAUDE.md or .claude/ "
                          "ask again.")


def stale_notice() -> Any:
    """The line a card shows once its kernel is gone (hidden by CSS until then)."""
    import ipywidgets as w

    notice = w.HTML(f"<style>{STALE_CSS}</style><p style=\"margin:4px 0;color:{colour('error')}\">"
                    f"<b>{html.escape(STALE_LINE)}</b></p>")
    notice.add_class("jdp-card-stale")
    return notice


def approve_deny(approve: Callable[[], Any], deny: Callable[[], Any]) -> tuple[Any, Any, Any]:
    """A card's Approve and Deny buttons, each calling its answer: (row, approve, deny)."""
    import ipywidgets as w

    approve_button = w.Button(description=APPROVE, button_style=BUTTON_STYLES[APPROVE])
    deny_button = w.Button(description=DENY, button_style=BUTTON_STYLES[DENY])
    approve_button.on_click(lambda _b: approve())
    deny_button.on_click(lambda _b: deny())
    row = w.HBox([approve_button, deny_button])
    row.add_class("jdp-card-buttons")
    return row, approve_button, deny_button


def status_line() -> Any:
    """A card's status line: the labextension makes it a polite live region (role=status)
    that takes the focus once the buttons are gone, so the answer is heard."""
    import ipywidgets as w

    status = w.HTML()
    status.add_class("jdp-card-status")
    return status


class AnsweredOnce:
    """A card's answer, taken once whichever thread asks: the first `claim` disables the
    buttons and shows what was chosen (and writes it in the card's record, when it has
    one); a later one raises ApprovalClosed(label)."""

    def __init__(self, label: str, buttons: Sequence[Any], status: Any,
                 record: CardRecord | None = None) -> None:
        self.label = label
        self._buttons = tuple(buttons)
        self._status = status
        self._record = record
        self._lock = threading.Lock()
        self._open = True

    def claim(self, said: str) -> None:
        with self._lock:
            if not self._open:
                raise ApprovalClosed(self.label)
            self._open = False
        for button in self._buttons:
            button.disabled = True
        self._status.value = f"<em>{html.escape(said)}</em>"
        if self._record is not None:
            self._record.answered(said)


def show_answer(buttons: Any, output: Any, outcome: Outcome,
                record: CardRecord | None = None) -> None:
    """A card answered: its buttons gone, the outcome alone in its output (and its text
    in the card's record, when it has one)."""
    buttons.children = ()
    output.outputs = ()
    output.append_display_data(outcome)
    if record is not None:
        record.finished(outcome)


def show_card(card: Any) -> None:
    """Display a card's live widget, then its record (see `card_record`)."""
    from IPython.display import display

    display(card.widget)
    card.record.show()


def card_box(children: Sequence[Any]) -> Any:
    """A card's frame around its parts."""
    import ipywidgets as w

    box = w.VBox(list(children), layout=w.Layout(border=f"1px solid {colour('border')}",
                                                 padding="6px"))
    # the labextension names the box a group, by its title (the body's first <h4>)
    box.add_class("jdp-card-box")
    return box


def answer_line(request: ApprovalRequest, choice: str) -> str:
    """What answering `request` with `choice` did, as a sentence for the status line."""
    if choice == "denied":
        return DENIED
    if choice == APPROVED_ELSEWHERE:
        return GRANTED_ELSEWHERE
    if choice == "approved for this project":
        return GRANTED
    if request.kind == "consent":
        return CONSENT_GIVEN
    if request.kind == "plan" and request.reason == PLAN_OPERATION:
        return PLAN_APPROVED
    if request.kind == "plan" and request.reason == RESERVED_TARGET:
        return RESERVED_PLAN_APPROVED
    return BATCH_ONCE if request.kind in ("grant", "plan") else ONCE


class ApprovalCard:
    """One card for one Design call; a follow-up request (e.g. the grant after consent)
    replaces the card's content, and the final result renders into `output`."""

    def __init__(self, pending: Any, resume: Resume, present: Callable[[Any], Outcome],
                 watch: Watch | None = None,
                 project_names: Mapping[str, str | None] | None = None) -> None:
        import ipywidgets as w

        self._w = w
        self._resume = resume
        self._present = present
        self._watch = watch
        self._watching: Future[Any] | None = None
        #: a click (main thread) and the watcher (the loop's thread) answer a card once
        self._lock = threading.Lock()
        self._finished = threading.Event()
        #: display-safe project names the notebook already looked up (plan cards name the
        #: project, not just its id)
        self._names = project_names if project_names is not None else {}
        self.operation = pending.operation
        self.pending: Any | None = None
        self.outcome: Outcome | None = None
        #: each answer as `kind: answer` (e.g. "grant: approved"), oldest first
        self.history: list[str] = []
        #: each answer as the sentence the status line shows
        self.said: list[str] = []
        self.header = w.HTML()
        self.status = status_line()
        self.record = CardRecord("", "")
        self.buttons = w.HBox()
        self.buttons.add_class("jdp-card-buttons")
        self.stale = stale_notice()
        self.output = w.Output()
        self.widget = card_box([self.header, self.stale, self.buttons, self.status,
                                self.output])
        self._ask(pending)

    def _ask(self, pending: Any) -> None:
        w = self._w
        self.pending = pending
        request: ApprovalRequest = pending.request
        self.header.value = card_html(self._named(request))
        #: what the card asks, in words (its text where no widget can be drawn)
        self.asked = f"{request.title} ({request.operation})"
        self.record.asked(self.header.value, self.asked)
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
        if self._watch is not None and request.kind == "grant":
            self._watching = self._watch(pending, lambda: self._claim(pending, None))
            if self._watching is not None:
                self._watching.add_done_callback(self._watched)

    def _claim(self, pending: Any, choice: str | None) -> bool:
        """Answer `pending` once, whoever answers first: a click (`choice`) or the grant
        watcher (None: approved elsewhere). False when it was already answered."""
        request: ApprovalRequest = pending.request
        kind = request.kind
        with self._lock:
            if self.pending is not pending:
                return False
            self.pending = None  # no double submit, from the buttons, code or the watcher
        watching, self._watching = self._watching, None
        if watching is not None and choice is not None:
            watching.cancel()
        self._disable()
        self.history.append(f"{kind}: {choice or APPROVED_ELSEWHERE}")
        self.said.append(answer_line(request, choice or APPROVED_ELSEWHERE))
        self._say()
        return True

    def _say(self) -> None:
        self.status.value = f"<em>{html.escape(' → '.join(self.said))}</em>"
        self.record.answers_are(self.said)

    def _watched(self, future: Future[Any]) -> None:
        """The watcher ended: show the continued call's result, if it continued one."""
        if future.cancelled() or future.exception() is not None:
            return
        result = future.result()
        if result is not None:
            self._show(result)

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
        choice = "approved for this project" if durable else ("approved" if approved
                                                             else "denied")
        if not self._claim(pending, choice):
            raise ApprovalClosed(self.operation)
        try:
            result = self._resume(pending, approved, durable)
        except JdpError as exc:
            return self._finish(failed_outcome(f"design {self.operation}", exc))
        shown = self._show(result)
        if (durable and isinstance(result, PendingApproval)
                and result.request.reason == "grant_ineligible"):
            # the grant POST answered 404: say so, rather than "approved for this project"
            self.history[-1] = f"{pending.request.kind}: grant refused"
            self.said[-1] = GRANT_REFUSED
            self._say()
        return shown

    def _show(self, result: Any) -> Outcome | None:
        """A follow-up card, or the final Outcome rendered into the card."""
        if isinstance(result, PendingApproval):
            self._ask(result)
            return None
        return self._finish(self._present(result))

    def _finish(self, outcome: Outcome) -> Outcome:
        self.outcome = outcome
        show_answer(self.buttons, self.output, outcome, self.record)
        self._finished.set()
        return outcome

    def show(self) -> None:
        """Display the card and its record (the magics' way to show it)."""
        show_card(self)

    def wait(self, timeout: float) -> Outcome | None:
        """The final Outcome once the card is settled (by a click, code or the grant
        watcher), waiting at most `timeout` seconds; None if it is still open."""
        self._finished.wait(timeout)
        return self.outcome

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The live card, and for a frontend with no widgets (nbconvert, a docs page) the
        card as HTML and as text (never the widget's Python repr)."""
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude)
        plain = f"Approval card: {self.asked}"
        if self.said:
            plain += " · " + " · ".join(self.said)
        return {**bundle, "text/html": self.header.value, "text/plain": plain}
