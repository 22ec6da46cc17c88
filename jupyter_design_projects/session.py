"""A Session: the one background event loop, the one httpx client, the credential manager,
and the Design and Projects clients of one notebook (or script), opened and closed together.

    session = Session.open(Settings.resolve(os.environ))
    info = session.run(session.projects.info())
    session.close()

With no service configured, `open` starts the embedded reference service first and says
so in `banner`.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from .core.redaction import Secret
from .errors import AuthError
from .settings import Settings

T = TypeVar("T")

BANNER = (
    "Using the offline reference service at {base_url} (embedded, demo data, no account). "
    "Set JDP_API_BASE_URL to use another service."
)


def user_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("jupyter-design-projects"))


class Session:
    def __init__(
        self,
        settings: Settings,
        *,
        data_dir: Path | None = None,
        can_ask: Callable[[], bool] = lambda: False,
        progress: Callable[[str, int, int | None], None] | None = None,
        embedded: Any = None,
    ) -> None:
        from .transport.loop import BackgroundLoop

        self.settings = settings
        self.data_dir = data_dir or user_data_dir()
        self.embedded = embedded
        self.banner: str | None = (
            BANNER.format(base_url=settings.api_base_url) if embedded is not None else None
        )
        self._can_ask = can_ask
        self._progress = progress
        self.loop = BackgroundLoop()
        self.temp_dir = Path(tempfile.mkdtemp(prefix="jdp-session-"))
        os.chmod(self.temp_dir, 0o700)
        self._closed = False

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(
        cls,
        settings: Settings,
        *,
        data_dir: Path | None = None,
        can_ask: Callable[[], bool] = lambda: False,
        progress: Callable[[str, int, int | None], None] | None = None,
    ) -> Session:
        """Open a session; start the embedded reference service when none is configured."""
        data_dir = data_dir or user_data_dir()
        embedded = None
        if settings.embedded:
            from .embedded import start_embedded

            embedded = start_embedded(data_dir / "reference-service")
            settings = Settings.resolve(
                {},
                {
                    **{k: v for k, v in vars(settings).items() if k != "session_jwt"},
                    "api_base_url": embedded.base_url,
                    "web_base_url": embedded.base_url,
                    "oauth_token_url": embedded.base_url + "/v1/oauth/token",
                    "oauth_authorize_url": embedded.base_url + "/oauth/authorize",
                    "org_uuid": settings.org_uuid or embedded.org_uuid,
                    "project_uuid": settings.project_uuid or embedded.project_uuid,
                    "credentials_file": settings.credentials_file or embedded.credentials_file,
                    "session_jwt": settings.session_jwt,
                },
            )
        return cls(settings, data_dir=data_dir, can_ask=can_ask, progress=progress,
                   embedded=embedded)

    # ------------------------------------------------------------------ running

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run a coroutine on the session's loop and wait for it (scripts and magics)."""
        return self.loop.run(coro, timeout=timeout)

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        return self.loop.submit(coro)

    # ------------------------------------------------------------------ parts

    @cached_property
    def trace(self):
        from .transport.trace import HttpTrace

        return HttpTrace(self.settings.http_trace, self._secrets)

    def _secrets(self):
        """Every secret this session knows (rotated tokens too), for redaction."""
        out = list(self.credentials.known_secrets())
        if self.settings.session_jwt is not None:
            out.append(self.settings.session_jwt)
        return out

    @cached_property
    def credentials(self):
        from .transport.credential_manager import CredentialManager
        from .transport.credentials import lock_path_for, open_store
        from .transport.oauth import OAuthClient

        store = open_store(self.settings.credentials_file or None, self.data_dir)
        oauth = OAuthClient(
            self._client,
            self.settings.oauth_token_url,
            self.settings.oauth_authorize_url,
            self.settings.oauth_client_id,
        )
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return CredentialManager(
            store,
            oauth,
            client_id=self.settings.oauth_client_id,
            lock_path=lock_path_for(store, self.data_dir),
            clock_ms=lambda: int(time.time() * 1000),
        )

    @cached_property
    def _client(self):
        """The session's one httpx client; `http` gives it its auth once credentials exist."""
        from .transport.http import make_client

        return make_client(event_hooks=self.trace.event_hooks())

    @cached_property
    def http(self):
        from .transport.auth import BearerAuth

        client = self._client
        client.auth = BearerAuth(self.credentials, self.settings.allowed_origins)
        return client

    @cached_property
    def design(self):
        from .design.client import DesignClient

        return DesignClient(self.http, self.settings, can_ask=self._can_ask,
                            clock_ms=lambda: int(time.time() * 1000))

    @cached_property
    def journal(self):
        from .projects.journal import Journal

        return Journal(self.data_dir / "journal.sqlite3")

    @cached_property
    def projects(self):
        from .projects.client import ProjectsClient

        return ProjectsClient(
            self.http,
            self.settings,
            ensure_scopes=lambda: self.credentials.ensure_project_scopes(
                policy_allows=self.settings.allow_projects_tool
            ),
            temp_dir=self.temp_dir,
            journal=self.journal,
            progress=self._progress,
            secrets=self._secrets,
        )

    # ------------------------------------------------------------------ sync facade

    def design_call(
        self,
        operation: str,
        arguments: dict[str, Any] | None = None,
        *,
        approve: Callable[[Any], str | None] | None = None,
    ):
        """Run one Design operation from a script and return its `DesignOutcome`.

        Each approval card the call needs (consent, then a grant or a plan) is handed to
        `approve(request)`, which answers "once", "project" (a durable grant, where the
        card allows one) or None (deny). Without `approve` nothing is approved: a call
        that needs a person comes back refused, as it does where no card can be shown.
        """
        from .design.approval import PendingApproval

        result = self.run(self.design.call(operation, dict(arguments or {})))
        while isinstance(result, PendingApproval):
            answer = approve(result.request) if approve is not None else None
            result = self.run(self.design.resume(
                result, approved=answer in ("once", "project"), durable=answer == "project"))
        return result

    # ------------------------------------------------------------------ login

    def login_begin(self):
        """Start the authorization-code flow: returns (url to open, attempt)."""
        attempt = self.credentials.begin_login()
        return attempt.url, attempt

    def login_finish(self, attempt, pasted: str | Secret) -> None:
        """Finish sign-in with the pasted `code#state` (held as a Secret from here on)."""
        code = pasted if isinstance(pasted, Secret) else Secret(pasted)
        self.run(self.credentials.finish_login(attempt, code))

    def login_embedded(self) -> None:
        """Sign in to the embedded reference service: the same authorization-code flow,
        with this process reading the code off the authorize page instead of a person."""
        url, attempt = self.login_begin()
        page = self.run(self._fetch_authorize_page(url))
        found = re.search(r'<pre id="code">([^<]+)</pre>', page)
        if found is None:
            raise AuthError("login_failed", "The reference service's sign-in page showed "
                                            "no code; see its log.")
        self.login_finish(attempt, Secret(html.unescape(found.group(1))))

    async def _fetch_authorize_page(self, url: str) -> str:
        from .transport.http import send

        answer = await send(self._client, "GET", url, action="reference sign-in",
                            max_bytes=64_000, deadline_s=10.0, authenticate=False)
        return answer.text(64_000)

    # ------------------------------------------------------------------ closing

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            for name in ("design", "projects"):
                client = self.__dict__.get(name)
                if client is not None and hasattr(client, "close"):
                    self.run(client.close(), timeout=10)
            client = self.__dict__.get("_client")
            if client is not None:
                self.run(client.aclose(), timeout=10)
        finally:
            self.loop.close()
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            if self.embedded is not None:
                self.embedded.stop()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
