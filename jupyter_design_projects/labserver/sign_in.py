"""The side panel's sign-in, through the address the person's browser already uses
(docs/panel.md, "Signing in"): the server begins a PKCE attempt whose redirect is this
server's own callback, `<base_url>jupyter-design-projects/oauth/callback`, and keeps it
here; the browser opens the authorize page (the embedded reference service's, through
this server's proxy, `proxy.py`, or a configured service's own), and the callback — or
the `code#state` the person pastes into the panel — finishes it on the panel's session.

An attempt is used once and kept `ATTEMPT_TTL_S`; at most `MAX_ATTEMPTS` wait at a time
(the oldest is dropped). A stale or replayed callback, a bad paste, a denied or refused
sign-in: each gets a clear sentence, and a bad paste keeps the attempt for another try.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from ..core.redaction import Secret
from ..errors import AuthError, JdpError
from . import failures

if TYPE_CHECKING:
    from ..session import Session
    from ..transport.credential_manager import LoginAttempt
    from .panel import Panel

#: the prefix of the panel's routes (handlers.PREFIX) and the proxied pages under it
PREFIX = "jupyter-design-projects"
CALLBACK = "/oauth/callback"
AUTHORIZE = "/oauth/authorize"
CODE_PAGE = "/oauth/code/callback"
ATTEMPT_TTL_S = 600.0
MAX_ATTEMPTS = 8
MODES = ("redirect", "paste")
PASTE_MAX_CHARS = 4096

STALE = ("This sign-in link is stale or was already used; nothing was exchanged. Start "
         "again with the Design panel's Sign in button.")


def public_base(scheme: str, host: str, base_url: str, environ: Any) -> str:
    """Where this server's sign-in pages are for the person's browser: the origin of
    `JUPYTERHUB_PUBLIC_URL` when the hub names one, else the request's own scheme and
    Host, then `<base_url>jupyter-design-projects`."""
    hub = environ.get("JUPYTERHUB_PUBLIC_URL", "")
    parts = urlsplit(hub)
    origin = (f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https")
              and parts.netloc else f"{scheme}://{host}")
    return origin + "/" + base_url.strip("/") + ("/" if base_url.strip("/") else "") + PREFIX


#: names the runtime file where this server keeps the address browsers reach it by, for
#: its kernels' `%design login` (read by notebook/login.py)
PUBLIC_FILE_ENV = "JDP_PUBLIC_URL_FILE"


class PublicAddress:
    """The address of this server's sign-in pages as the person's browser reaches it,
    written (0600, atomically, only when it changes) to the runtime file named by
    `PUBLIC_FILE_ENV`, so a kernel's `%design login` sends the person through it too."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._last: str | None = None

    def note(self, base: str) -> None:
        if base == self._last:
            return
        self._last = base
        partial = self.path.with_name(self.path.name + ".partial")
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(base)
            os.replace(partial, self.path)
        except OSError:  # the kernels fall back to the panel's Sign in; nothing is lost
            self._last = None

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()


class PanelSignIn:
    """The attempts the panel began, by state, and how each finishes."""

    def __init__(self, panel: Panel, clock: Any = time.monotonic) -> None:
        self._panel = panel
        self._clock = clock
        self._attempts: OrderedDict[str, tuple[LoginAttempt, float]] = OrderedDict()
        self._guard = threading.Lock()

    def _keep(self, attempt: LoginAttempt) -> None:
        with self._guard:
            self._attempts[attempt.state] = (attempt, self._clock())
            while len(self._attempts) > MAX_ATTEMPTS:
                self._attempts.popitem(last=False)

    def _take(self, state: str, *, keep: bool = False) -> LoginAttempt | None:
        """The waiting attempt of `state` (removed unless `keep`), or None when unknown or
        older than ATTEMPT_TTL_S."""
        with self._guard:
            found = self._attempts.get(state)
            if found is None:
                return None
            if self._clock() - found[1] > ATTEMPT_TTL_S:
                del self._attempts[state]
                return None
            if not keep:
                del self._attempts[state]
            return found[0]

    async def begin(self, base: str, mode: str) -> dict[str, Any]:
        """A new attempt: `{"url", "mode", "state"}` — the page to open in the browser."""
        if mode not in MODES:
            return failures.fail("invalid_argument", "mode must be redirect or paste.")
        return await self._panel.answer(lambda session: self._begin(session, base, mode))

    async def _begin(self, session: Session, base: str, mode: str) -> dict[str, Any]:
        through_proxy = self._panel.proxied_service() is not None
        if mode == "redirect":
            redirect: str | None = base + CALLBACK
        else:
            redirect = base + CODE_PAGE if through_proxy else None
        attempt = session.auth.credentials.begin_login(redirect_uri=redirect)
        self._keep(attempt)
        url = attempt.url
        if through_proxy:  # the embedded service's page, through this server's proxy
            url = base + AUTHORIZE + "?" + urlsplit(url).query
        return {"url": url, "mode": mode, "state": attempt.state}

    async def finish_redirect(self, query: str) -> tuple[int, str, str]:
        """The callback: (HTTP status, title, sentence) for the page the browser shows."""
        fields = parse_qs(query)
        state = (fields.get("state") or [""])[0]
        attempt = self._take(state) if state else None
        if attempt is None:
            return 400, "Sign-in link is stale", STALE
        error = await self._panel.answer(
            lambda session: _exchange(session, attempt, query, pasted=False))
        if error is not None:
            return 400, "Sign-in failed", error["message"]
        return 200, "Signed in", ("You are signed in; you can close this tab and return to "
                                  "JupyterLab.")

    async def finish_paste(self, pasted: str) -> dict[str, Any]:
        """The `code#state` the person pasted into the panel."""
        text = pasted.strip()
        code, sep, state = text.partition("#")
        if len(text) > PASTE_MAX_CHARS or not sep or not code or not state:
            return failures.fail("invalid_argument", "Paste the whole code the sign-in page "
                                 "shows, in the form code#state; the sign-in still waits.")
        attempt = self._take(state)
        if attempt is None:
            return failures.fail("invalid_argument", STALE)
        error = await self._panel.answer(
            lambda session: _exchange(session, attempt, text, pasted=True))
        if error is None:
            return {"signed_in": True}
        self._keep(attempt)  # a mistyped code: the right one may still be pasted
        return error


async def _exchange(session: Session, attempt: LoginAttempt, answer: str, *,
                    pasted: bool) -> dict[str, str] | None:
    """Exchange the code; None when signed in, else a failure object saying what to do."""
    manager = session.auth.credentials
    try:
        if pasted:
            await manager.finish_login(attempt, Secret(answer))
        else:
            await manager.finish_redirect(attempt, Secret(answer))
    except AuthError as exc:
        return failures.fail("sign_in_failed", _sentence(exc))
    except JdpError as exc:
        return failures.fail("sign_in_failed", f"{exc.message} Start again with Sign in.")
    return None


def _sentence(exc: AuthError) -> str:
    if exc.reason == "access_denied":
        return "You denied the sign-in; nothing was issued. Click Sign in to try again."
    if exc.reason == "invalid_grant":
        return ("The service refused the code (already used, expired or from another "
                "sign-in); nothing was saved. Click Sign in to start again.")
    return f"{exc.message} Click Sign in to start again."
