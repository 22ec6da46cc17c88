"""The `%design login` flow: the loopback sign-in (its card in `sign_in.py`), and the
paste-the-code fallback with its prompt. What a sign-in leaves behind (the attempt waiting
for a pasted code, the card in progress) is kept on the notebook host."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ...errors import BadCommand
from ..views import outcomes as views

if TYPE_CHECKING:
    from ...session import Session
    from ...transport.credential_manager import LoginAttempt
    from ..host import NotebookHost

#: the runtime file where the Jupyter server keeps the address browsers reach it by
#: (labserver/sign_in.py writes it), and the pages under it
PUBLIC_FILE_ENV = "JDP_PUBLIC_URL_FILE"
AUTHORIZE, CODE_PAGE = "/oauth/authorize", "/oauth/code/callback"


def jupyter_address(environ: Any = os.environ) -> str | None:
    """This kernel's Jupyter server's sign-in prefix as the person's browser reaches it
    (`https://host/user/alice/jupyter-design-projects`), or None when the server has not
    seen a browser yet (and no JUPYTERHUB_PUBLIC_URL named it) or there is no server."""
    name = environ.get(PUBLIC_FILE_ENV)
    if not name:
        return None
    try:
        with Path(name).open("r", encoding="utf-8") as handle:
            text = handle.read(1025).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if len(text) > 1024 or not text.startswith(("http://", "https://")) \
            or any(c.isspace() or c in "\\\"'<>`" for c in text):
        return None
    return text


def _through_jupyter(session: Session) -> tuple[str, LoginAttempt] | None:
    """Under a Jupyter server that shares its reference service with this kernel: a
    paste-the-code attempt whose page is the server's proxied one, at the address the
    person's browser uses (never this machine's loopback)."""
    embedded = session.embedded
    base = jupyter_address()
    if embedded is None or embedded.owned or base is None:
        return None
    attempt = session.auth.credentials.begin_login(redirect_uri=base + CODE_PAGE)
    return base + AUTHORIZE + "?" + urlsplit(attempt.url).query, attempt


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
        session.auth.login_finish(host.login_attempt, code)
        host.login_attempt = None
        return views.status_outcome({"signed_in": True}, label="design login")
    if host.sign_in is not None:
        host.sign_in.cancel()  # one sign-in at a time: the newer link wins
        host.sign_in = None
    note = None
    through = _through_jupyter(session)
    if through is not None:  # the page through the server's address; the code pasted here
        url, host.login_attempt = through
        return _ask_for_code(host, url, None)
    if not paste:
        timeout = host.options.login_timeout
        try:
            url, done = session.auth.login_start(timeout_s=timeout)
        except OSError as exc:
            note = (f"No loopback port for the sign-in redirect ({exc.strerror or exc}); "
                    "paste the code instead.")
        else:
            from ..widgets.sign_in import SignInCard

            host.sign_in = SignInCard(url, done, timeout)
            display(host.sign_in.widget)
            return host.sign_in
    url, host.login_attempt = session.auth.login_begin()
    return _ask_for_code(host, url, note)


def _ask_for_code(host: NotebookHost, url: str, note: str | None) -> Any:
    from IPython.display import display

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
