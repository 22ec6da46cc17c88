"""The `%design login` flow of the magics: the loopback sign-in (its card in `sign_in.py`),
and the paste-the-code fallback with its prompt.

`SignIn` adds sign-in to the session lifecycle; the `DesignProjects` magics class builds
on it and declares the `login_timeout` trait.
"""

from __future__ import annotations

from typing import Any

from .lifecycle import SessionLifecycle


class SignIn(SessionLifecycle):
    """The sign-in state of a magics instance: the loopback sign-in in progress, or the
    paste-the-code attempt waiting for `%design login CODE`."""

    # declared by the magics class
    login_timeout: Any

    _login_attempt: Any
    _sign_in: Any

    def _init_sign_in(self) -> None:
        #: the paste-the-code sign-in waiting for `%design login CODE`
        self._login_attempt = None
        #: the loopback sign-in in progress (its card), until it ends or another replaces it
        self._sign_in = None

    def close(self) -> None:
        """Close the session, cancelling a sign-in in progress first."""
        if self._sign_in is not None:
            self._sign_in.cancel()
            self._sign_in = None
        super().close()

    def _login(self, code: str | None, *, paste: bool = False) -> Any:
        """Sign in. The usual way: a one-time listener on 127.0.0.1 receives the sign-in
        page's redirect and finishes in the background (the card shows how it went);
        `--paste`, or a loopback port that cannot be bound, falls back to pasting the
        `code#state` the page shows. (Its modules load when it runs: the magics class,
        and so `%load_ext`, needs only the state above.)"""
        from IPython.display import display

        from ..errors import BadCommand
        from . import views

        session = self.session
        if code is not None:
            if self._login_attempt is None:
                raise BadCommand("design login", "run %design login --paste first, then "
                                                 "paste the code it asks for")
            session.login_finish(self._login_attempt, code)
            self._login_attempt = None
            return views.status_outcome({"signed_in": True}, label="design login")
        if self._sign_in is not None:
            self._sign_in.cancel()  # one sign-in at a time: the newer link wins
            self._sign_in = None
        note = None
        if not paste:
            try:
                url, done = session.login_start(timeout_s=self.login_timeout)
            except OSError as exc:
                note = (f"No loopback port for the sign-in redirect ({exc.strerror or exc}); "
                        "paste the code instead.")
            else:
                from .sign_in import SignInCard

                self._sign_in = SignInCard(url, done, self.login_timeout)
                display(self._sign_in.widget)
                return self._sign_in
        url, self._login_attempt = session.login_begin()
        if note:
            print(note)
        if not self._stdin_allowed():
            return views.login_outcome(url)
        # a person is at the frontend: ask for the code without it entering the cell's
        # source or the history
        import getpass

        display(views.login_outcome(url))
        pasted = getpass.getpass("Paste the CODE#STATE the sign-in page shows: ").strip()
        if not pasted:
            return views.login_outcome(url)
        return self._login(pasted)
