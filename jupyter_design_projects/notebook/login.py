"""The `%design login` flow: the loopback sign-in (its card in `sign_in.py`), and the
paste-the-code fallback with its prompt. What a sign-in leaves behind (the attempt waiting
for a pasted code, the card in progress) is kept on the notebook host."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import BadCommand
from . import views

if TYPE_CHECKING:
    from .host import NotebookHost


def sign_in(host: NotebookHost, code: str | None, *, paste: bool = False) -> Any:
    """Sign in. The usual way: a one-time listener on 127.0.0.1 receives the sign-in
    page's redirect and finishes in the background (the card shows how it went);
    `--paste`, or a loopback port that cannot be bound, falls back to pasting the
    `code#state` the page shows."""
    from IPython.display import display

    session = host.session
    if code is not None:
        if host.login_attempt is None:
            raise BadCommand("design login", "run %design login --paste first, then "
                                             "paste the code it asks for")
        session.login_finish(host.login_attempt, code)
        host.login_attempt = None
        return views.status_outcome({"signed_in": True}, label="design login")
    if host.sign_in is not None:
        host.sign_in.cancel()  # one sign-in at a time: the newer link wins
        host.sign_in = None
    note = None
    if not paste:
        timeout = host.options.login_timeout
        try:
            url, done = session.login_start(timeout_s=timeout)
        except OSError as exc:
            note = (f"No loopback port for the sign-in redirect ({exc.strerror or exc}); "
                    "paste the code instead.")
        else:
            from .sign_in import SignInCard

            host.sign_in = SignInCard(url, done, timeout)
            display(host.sign_in.widget)
            return host.sign_in
    url, host.login_attempt = session.login_begin()
    if note:
        print(note)
    if not host.stdin_allowed():
        return views.login_outcome(url)
    # a person is at the frontend: ask for the code without it entering the cell's
    # source or the history
    import getpass

    display(views.login_outcome(url))
    pasted = getpass.getpass("Paste the CODE#STATE the sign-in page shows: ").strip()
    if not pasted:
        return views.login_outcome(url)
    return sign_in(host, pasted)
