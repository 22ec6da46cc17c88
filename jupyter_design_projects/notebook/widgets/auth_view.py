"""`%design auth`: the sign-in, step by step, as the MCP Inspector's auth debugger shows
it: the discovery documents, the client, the authorization URL (redacted), the code
exchange, the scopes held and asked for, the expiry, the last refresh and why, failures;
and the two things a person may do about it, Refresh now and Sign out.

The view is an outcome (`.data`, a plain-text rendering) whose widget adds the buttons.
A button is shown only when it would work: no refresh token, no Refresh now (a line says
why); not signed in, neither (a line names how to sign in). `.refresh_now()` and
`.sign_out()` are what the buttons run, for tests and scripts, as `ApprovalCard.approve()`
is. Everything shown is a step of `core.sign_in_steps` (no token, code or verifier ever
reaches one) and is escaped.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from ...core.sign_in_steps import KINDS, AuthStatus, Step, iso, lines, refresh_line
from ...errors import JdpError
from ...errors.guidance import LOGIN
from ..remedies import as_magic, magic_text
from ..views.outcome import Outcome
from ..views.theme import colour

if TYPE_CHECKING:
    from ...session.auth import Auth

COMMAND = "design auth"
REFRESH = "Refresh now"
SIGN_OUT = "Sign out"


class AuthView(Outcome):
    """The sign-in status of a session's `auth` part (its `status()`), with Refresh now
    and Sign out; `.status` is the `AuthStatus` shown, `.said` what the last button did."""

    def __init__(self, auth: Auth, status: AuthStatus | None = None) -> None:
        self._auth = auth
        self.status = status if status is not None else auth.status()
        super().__init__(COMMAND, self.status.to_dict())
        #: the outcome of the last button (None before any), as shown above the steps
        self.said: str | None = None
        self._said_ok = True
        self._html_view: Any = None
        self._buttons: dict[str, Any] = {}

    # ------------------------------------------------------------ the buttons

    def refresh_now(self) -> AuthStatus:
        """Refresh the token now (through the credential manager, under its locks) and
        show the new expiry; a failure is shown and kept in `.said`."""
        try:
            status = self._auth.refresh()
            self._show(status, f"Refreshed (asked by you). {status.expiry_line()}.")
        except JdpError as exc:
            self._failed(exc)
        return self.status

    def sign_out(self) -> AuthStatus:
        """Forget the credential here and delete it from the credential store."""
        try:
            self._show(self._auth.sign_out(), "Signed out: the credential is forgotten "
                       f"and deleted from {self.status.store}.")
        except JdpError as exc:
            self._failed(exc)
        return self.status

    def _show(self, status: AuthStatus, said: str) -> None:
        self.status, self.data = status, status.to_dict()
        self.said, self._said_ok = said, True
        self._render()

    def _failed(self, error: JdpError) -> None:
        self.said, self._said_ok = magic_text(error), False
        self.status = self._auth.status(discover=False)
        self.data = self.status.to_dict()
        self._render()

    # ------------------------------------------------------------ rendering

    @property
    def widget(self) -> Any:
        if self._widget is None:
            import ipywidgets as w

            self._html_view = w.HTML(self._body_html())
            self._buttons = {}
            for label, action, style in ((REFRESH, self.refresh_now, "primary"),
                                         (SIGN_OUT, self.sign_out, "warning")):
                button = w.Button(description=label, button_style=style)
                button.on_click(lambda _b, act=action: act())
                button.add_class("jdp-auth-" + label.lower().replace(" ", "-"))
                self._buttons[label] = button
            row = w.HBox(list(self._buttons.values()))
            row.add_class("jdp-auth-buttons")
            box = w.VBox([self._html_view, row], layout=w.Layout(
                border=f"1px solid {colour('border')}", padding="6px"))
            box.add_class("jdp-auth")
            self._widget = box
            self._render()
        return self._widget

    @property
    def buttons(self) -> tuple[str, ...]:
        """The buttons shown now (those that would work)."""
        shown = []
        if self.status.can_refresh:
            shown.append(REFRESH)
        if self.status.signed_in or self.status.store_problem:
            shown.append(SIGN_OUT)  # a store that cannot be read is deleted by it too
        return tuple(shown)

    def _render(self) -> None:
        if self._html_view is None:
            return
        self._html_view.value = self._body_html()
        for label, button in self._buttons.items():
            button.layout.display = "" if label in self.buttons else "none"

    def _text(self) -> str:
        out = [COMMAND]
        if self.said:
            out.append(self.said)
        out.extend(lines(self.status, as_magic(LOGIN)))
        return "\n".join(out)

    def _html(self) -> str:
        return self._body_html()

    def _body_html(self) -> str:
        status = self.status
        parts = ['<div class="jdp-outcome jdp-auth-status" style="overflow-wrap:anywhere">',
                 f'<div style="font-weight:bold;color:{colour("title")}">The sign-in, step '
                 "by step</div>"]
        if self.said:
            role = "ok" if self._said_ok else "error"
            parts.append(_line(self.said, role, "jdp-auth-said"))
        if status.store_problem:
            parts.append(_line(f"The credential store cannot be read: "
                               f"{status.store_problem}", "error"))
        if not status.signed_in:
            parts.append(_line(f"Not signed in. Next: {as_magic(LOGIN)}.", "notice",
                               "jdp-auth-signed-out"))
        rows = _facts(status)
        parts.append("<table>" + "".join(
            f'<tr><th style="text-align:left;padding-right:1em">{html.escape(k)}</th>'
            f'<td class="jdp-auth-{html.escape(css)}">{html.escape(v)}</td></tr>'
            for k, v, css in rows) + "</table>")
        note = status.refresh_note()
        if note:
            parts.append(_line(note, "muted", "jdp-auth-no-refresh"))
        if status.discovery:
            parts.append("<div><b>Discovery</b></div>")
            parts.extend(_step_html(s) for s in status.discovery)
        parts.append("<div><b>Steps</b> (this session, oldest first)</div>")
        if not status.steps:
            parts.append(_line("None yet in this session.", "muted"))
        parts.extend(_step_html(s) for s in status.steps)
        parts.append("</div>")
        return "".join(parts)


def _facts(status: AuthStatus) -> list[tuple[str, str, str]]:
    """(label, value, css class) of the table at the top."""
    rows = [("Client", status.client_id, "client"), ("Store", status.store, "store")]
    if status.signed_in:
        rows.append(("Expires", status.expiry_line().removeprefix("Expires: "), "expiry"))
        rows.append(("Scopes held", " ".join(status.scopes_held) or "none", "scopes-held"))
    if status.scopes_asked:
        rows.append(("Scopes asked for", " ".join(status.scopes_asked), "scopes-asked"))
    last = status.last_refresh
    if last is not None:
        rows.append(("Last refresh", refresh_line(last).removeprefix("Last refresh: "),
                     "last-refresh"))
    elif status.signed_in:
        rows.append(("Last refresh", "none in this session", "last-refresh"))
    return rows


def _line(text: str, role: str, css: str = "") -> str:
    klass = f' class="{css}"' if css else ""
    return (f'<div{klass} style="margin:4px 0;color:{colour(role)}">'
            f"{html.escape(text)}</div>")


def _step_html(step: Step) -> str:
    mark = ('<span style="color:{}">ok</span>'.format(colour("ok")) if step.ok else
            '<span style="color:{}">failed{}</span>'.format(
                colour("error"), html.escape(f" ({step.reason})" if step.reason else "")))
    fields = "".join(f"<li><code>{html.escape(k)}</code>: {html.escape(v)}</li>"
                     for k, v in step.fields)
    head = (f"{html.escape(iso(step.at_ms))} · <b>{html.escape(KINDS.get(step.kind, step.kind))}"
            f"</b> · {mark} · {html.escape(step.summary)}")
    kind = html.escape(step.kind)
    if not fields:
        return f'<div class="jdp-auth-step jdp-auth-{kind}">{head}</div>'
    return (f'<details class="jdp-auth-step jdp-auth-{kind}"><summary>{head}</summary>'
            f'<ul style="margin:2px 0">{fields}</ul></details>')
