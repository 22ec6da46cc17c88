"""The sign-in card of `%design login`: a link that opens the service's sign-in page in a
new tab and a status line that the loopback listener's outcome updates in the background.

A running cell cannot see the browser come back (nor a widget click), so the magic
returns at once; the session's loop finishes the sign-in when the page redirects to the
listener, and the card says how it went: signed in, denied, timed out or failed.
`card.wait(timeout)` blocks until then, for scripts and tests.
"""

from __future__ import annotations

import html
from concurrent.futures import CancelledError, Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from ..views.theme import colour

WAITING = "Waiting for the sign-in page (at most {minutes}); this notebook stays usable."
SIGNED_IN = "Signed in. The credential is stored; the next %design or %project call uses it."
CANCELLED = "This sign-in was cancelled (a newer %design login replaced it, or the session " \
            "closed)."


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:g} min" if seconds >= 60 else f"{seconds:g} s"


class SignInCard:
    """The link and the live status of one loopback sign-in (`done` is its Future)."""

    def __init__(self, url: str, done: Future[Any], timeout_s: float) -> None:
        import ipywidgets as w

        self.url = url
        self._done = done
        #: None while waiting; then "signed_in", "cancelled" or the error's reason
        self.result: str | None = None
        self.error: BaseException | None = None
        link = w.HTML(
            f'<p style="margin:4px 0"><b style="color:{colour("title")}">Sign in</b> — '
            f'<a href="{html.escape(url, quote=True)}" target="_blank" '
            'rel="noopener noreferrer" class="jdp-sign-in-link" style="text-decoration:'
            'underline">open the sign-in page</a>, check what it asks and click '
            "<b>Authorize</b>. The page sends your browser back to this notebook's "
            "one-time listener on 127.0.0.1.</p>")
        self.status = w.HTML(self._line(WAITING.format(minutes=_minutes(timeout_s)),
                                        "muted"))
        self.status.add_class("jdp-sign-in-status")
        self.widget = w.VBox([link, self.status], layout=w.Layout(
            border=f"1px solid {colour('border')}", padding="6px"))
        done.add_done_callback(self._finished)

    @staticmethod
    def _line(text: str, role: str) -> str:
        return f'<p style="margin:4px 0;color:{colour(role)}">{html.escape(text)}</p>'

    def _finished(self, done: Future[Any]) -> None:
        """The listener's outcome (on the session's loop thread): update the status."""
        if done.cancelled():
            self.result = "cancelled"
            self.status.value = self._line(CANCELLED, "muted")
            return
        error = done.exception()
        if error is None:
            self.result = "signed_in"
            self.status.value = self._line(SIGNED_IN, "ok")
            return
        self.error = error
        self.result = getattr(error, "reason", type(error).__name__)
        from ...errors import JdpError
        from ..remedies import magic_text

        said = magic_text(error) if isinstance(error, JdpError) else error
        self.status.value = self._line(f"Sign-in failed: {said}", "error")

    @property
    def signed_in(self) -> bool:
        return self.result == "signed_in"

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the sign-in ends (at most `timeout` seconds); True when signed in."""
        try:
            self._done.result(timeout=timeout)
        except (CancelledError, FutureTimeout, Exception):
            pass
        if self._done.done():
            self._finished(self._done)  # the callback may still be on its way
        return self.signed_in

    def cancel(self) -> None:
        """Stop waiting: the listener closes, and the status says so."""
        self._done.cancel()

    def __repr__(self) -> str:
        return f"SignInCard({self.result or 'waiting'})"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        # shown under the live card, so it must stay true after the sign-in ends; a
        # frontend without widgets (a terminal) shows the plain text, so it names the URL
        line = "Design login: the card above has the sign-in link; its status line says " \
               "when you are signed in."
        return {"text/html": f"<p>{html.escape(line)}</p>",
                "text/plain": f"Design login: open {self.url} and click Authorize; "
                              "card.wait() says when you are signed in."}
