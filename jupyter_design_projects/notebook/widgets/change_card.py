"""`%project write`, `%%project write`, `%project delete` and `%project restore` in the
notebook: each change on an approval card first (a create's path, size and budget after;
a replace's diff of what it replaces; a delete's path, size and first lines), whose Approve
sends exactly what it showed and whose Deny sends nothing. `--yes` sends the change with
no card, journaled as such; without it, where nobody can click, the cell fails naming
`--yes`. Event-driven, like every card: the click continues the call."""

from __future__ import annotations

import contextlib
import dataclasses
import html
from collections.abc import Callable
from typing import Any

from ...core import change_preview as preview
from ...errors import JdpError, ProjectsChangeDenied
from ...projects.change import DELETE, ProjectChange
from ...projects.journal import APPROVED_BY_YES, APPROVED_ON_CARD
from ..views import outcomes as views
from ..views.card_body import card_html
from ..views.card_record import CardRecord
from ..views.outcome import Outcome, PendingOutcome
from ..views.theme import colour
from .cards import (
    DENIED,
    AnsweredOnce,
    approve_deny,
    card_box,
    show_answer,
    show_card,
    stale_notice,
    status_line,
)
from .progress import MIB

#: the card's status line after Approve
SENT = "Approved: sent as shown on this card."


def change_command(host: Any, action: str, args: dict[str, Any]) -> Any:
    """One change: prepared (read, nothing sent), then sent with `--yes`, put on a card
    where a person can click, or refused naming `--yes` where nobody can."""
    from ...projects.change import prepare

    args = dict(args)
    yes = bool(args.pop("yes", False))
    session = host.session
    change = session.run(prepare(session.projects, action, args))
    if yes:
        return views.project_outcome(action, _send(host, change, APPROVED_BY_YES))
    if not host.can_ask():
        raise ProjectsChangeDenied(action, "nobody_can_click")
    card = ChangeCard(change, session.projects.project_uuid,
                      lambda: _send(host, change, APPROVED_ON_CARD))
    card.show()
    return PendingChange(card)


def _send(host: Any, change: ProjectChange, approved_by: str) -> dict[str, Any]:
    from ...projects.change import perform

    session = host.session
    # a bar only for an upload of a MiB or more: a panel made and closed at once inside the
    # card's output can reach the page after its model is gone ("model not found")
    big = change.method != DELETE and len((change.content or "").encode()) >= MIB
    progress = host.progress() if big else contextlib.nullcontext()
    with progress:
        return session.run(perform(session.projects, change, approved_by=approved_by))


# ---------------------------------------------------------------- the card's body


def _diff_lines(text: str) -> str:
    """A diff's lines, escaped, each coloured by what it does."""
    out = []
    for line in text.splitlines():
        role = ("ok" if line.startswith("+") and not line.startswith("+++") else
                "error" if line.startswith("-") and not line.startswith("---") else None)
        shown = html.escape(line)
        out.append(f'<span style="color:{colour(role)}">{shown}</span>' if role else shown)
    return "\n".join(out)


def _pre(text: str, css: str) -> str:
    return (f'<pre class="{css}" style="white-space:pre-wrap;margin:4px 0;max-height:24em;'
            f'overflow:auto">{_diff_lines(text)}</pre>')


def diff_html(change: ProjectChange) -> str:
    """A replace's diff: as much as the card's budget holds, the cut said, and the whole
    diff in a collapsible section (itself cut past WHOLE_DIFF_MAX_CHARS, and said)."""
    diff = change.diff
    shown = preview.diff_shown(diff)
    head = "What it replaces (unified diff, - the doc now, + this write)"
    if not diff:
        return (f'<div class="jdp-change-diff"><b>{html.escape(head)}</b>: the content is '
                "the same as the doc's now.</div>")
    cut = f" — {html.escape(shown.note)}; the whole diff is below" if shown.cut else ""
    parts = [f'<div class="jdp-change-diff"><b>{html.escape(head)}</b>{cut}',
             _pre(shown.text, "jdp-change-diff-shown")]
    if shown.cut:
        whole = preview.whole_diff(diff)
        more = (f'<p style="margin:2px 0">{html.escape(whole.note)} (the card holds '
                f"{preview.WHOLE_DIFF_MAX_CHARS:,} characters of it; the pending outcome's "
                "<code>.change.diff</code> has it all)</p>" if whole.cut else "")
        parts.append(f'<details class="jdp-change-whole-diff"><summary>The whole diff '
                     f"({whole.total:,} lines)</summary>{_pre(whole.text, 'jdp-change-all')}"
                     f"{more}</details>")
    parts.append("</div>")
    return "".join(parts)


def lost_html(change: ProjectChange) -> str:
    """What a delete loses: the doc's path and size (in the fields above) and its first
    lines, the cut said."""
    lost = preview.lost_lines(change.previous or "")
    cut = f" — {html.escape(lost.note)}" if lost.cut else ""
    return (f'<div class="jdp-change-lost"><b>What is lost: {html.escape(change.path)}, '
            f"{html.escape(preview.size_line(change.n_bytes))}</b>{cut}"
            f'<pre style="white-space:pre-wrap;margin:4px 0">{html.escape(lost.text)}</pre>'
            "</div>")


def change_html(change: ProjectChange, project_uuid: str) -> str:
    """The card's body: the question, where it lands, its size and budget (the shared
    card layout), then the diff or what is lost."""
    request = dataclasses.replace(change.request(project_uuid), details=change.details())
    body = card_html(request)
    if change.method == DELETE:
        return body + lost_html(change)
    if change.replaces:
        return body + diff_html(change)
    return body


# ---------------------------------------------------------------- the card


class ChangeCard:
    """One card for one Projects change: Approve sends it as shown, Deny sends nothing."""

    def __init__(self, change: ProjectChange, project_uuid: str,
                 send: Callable[[], dict[str, Any]]) -> None:
        import ipywidgets as w

        self.change = change
        self._send = send
        self.outcome: Outcome | None = None
        self.header = w.HTML(change_html(change, project_uuid))
        self.stale = stale_notice()
        self.buttons, self.approve_button, self.deny_button = approve_deny(self.approve,
                                                                           self.deny)
        self.status = status_line()
        self.record = CardRecord(self.header.value, self._plain())
        self._answer = AnsweredOnce(self.label, (self.approve_button, self.deny_button),
                                    self.status, self.record)
        self.output = w.Output()
        self.widget = card_box([self.header, self.stale, self.buttons, self.status,
                                self.output])

    @property
    def label(self) -> str:
        return f"project {self.change.method}"

    def _claim(self, said: str) -> None:
        self._answer.claim(said)

    def approve(self) -> Outcome:
        """Send the change exactly as the card shows it; the outcome says what was done."""
        self._claim("approved: sending …")
        result: Any = None
        with self.output:  # a progress bar for a large upload shows in the card
            try:
                result = self._send()
            except BaseException as exc:  # noqa: BLE001 - raised again below, not here:
                result = exc  # an Output block shows and swallows what leaves it
        if isinstance(result, JdpError):
            outcome = views.failed_outcome(self.label, result)
            self.status.value = f"<em>approved, not sent: {html.escape(str(result))}</em>"
            self.record.answers_are([f"approved, not sent: {result}"])
        elif isinstance(result, BaseException):
            raise result
        else:
            outcome = views.project_outcome(self.change.method, result)
            self.status.value = f"<em>{html.escape(SENT)}</em>"
            self.record.answers_are([SENT])
        return self._finish(outcome)

    def deny(self) -> Outcome:
        self._claim(DENIED)
        return self._finish(views.failed_outcome(
            self.label, ProjectsChangeDenied(self.change.method, "denied_on_card")))

    def _finish(self, outcome: Outcome) -> Outcome:
        self.outcome = outcome
        show_answer(self.buttons, self.output, outcome, self.record)
        return outcome

    def _plain(self) -> str:
        return f"Approval card: {self.change.title} {self.change.path}"

    def show(self) -> None:
        """Display the card and its record (what was asked and answered, for a saved
        notebook reopened with no kernel)."""
        show_card(self)

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The live card, and for a frontend with no widgets (nbconvert, a docs page) the
        card as HTML and text."""
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude)
        return {**bundle, "text/html": self.header.value, "text/plain": self._plain()}


class PendingChange(PendingOutcome):
    """A change waiting on its card (`.change` is what it shows); afterwards every
    attribute is the final Outcome's."""

    def __init__(self, card: ChangeCard) -> None:
        super().__init__(card.label, card)

    @property
    def change(self) -> ProjectChange:
        return self.card.change

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        if self.card.outcome is not None:
            return self.card.outcome._repr_mimebundle_(include, exclude)
        text = f"%{self.operation}: see its approval card above; what was done appears there"
        return {"text/plain": text, "text/html": f"<em>{html.escape(text)}</em>"}
