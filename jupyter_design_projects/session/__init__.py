"""A Session: the one background event loop and httpx client of one notebook (or script),
and its parts, built once, when first asked for, and closed together:

    with Session.open() as session:          # the settings from the environment
        info = session.project.info()        # or: session.run(session.projects.info())
        url, attempt = session.auth.login_begin()

`auth` (sign-in, status, refresh, sign-out), `design` and `projects` (the pipelines'
clients), `project` and `deck` (their facades for scripts), `history` (every call), `trace`
(every HTTP exchange) and `notifications` (the Design event stream); this package's
modules build them. With no service configured, `open` uses the reference service of the Jupyter
server this process runs under (`JDP_SERVICE_FILE`), else starts an embedded one, and says
so in `banner`. `begin` opens one on a background thread and warms it, so `%load_ext` can
begin it and the first call finds it ready.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..data_dir import DATA_DIR_ENV, private_data_dir, user_data_dir
from ..settings import Settings
from ..temp_folders import make_temp_folder
from . import building, service
from .service import tls_context

if TYPE_CHECKING:
    import httpx

    from ..core.redaction import Secret
    from ..core.sign_in_steps import AuthStatus
    from ..design.approval import DesignOutcome
    from ..design.client import DesignClient
    from ..embedded import EmbeddedService
    from ..transport.credential_manager import CredentialManager, LoginAttempt
    from ..transport.credentials import Credential
    from .auth import Auth
    from .design_calls import Approve

_T = TypeVar("_T")
Progress = Callable[[str, int, int | None], None]

#: how long after the session is ready the background start waits before it warms the
#: Design pipeline (its imports would otherwise compete with a first `%project` call)
DESIGN_WARM_DELAY_S = 1.0

__all__ = ["DATA_DIR_ENV", "DESIGN_WARM_DELAY_S", "Progress", "Session", "auth", "building",
           "design_calls", "notifications", "service", "shape", "starting", "tls_context",
           "user_data_dir"]


class Session:
    def __init__(self, settings: Settings, *, data_dir: Path | None = None,
                 can_ask: Callable[[], bool] = lambda: False, progress: Progress | None = None,
                 embedded: EmbeddedService | None = None,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        from ..transport.loop import BackgroundLoop

        self.settings = settings
        self.data_dir = data_dir or user_data_dir()
        self.embedded = embedded
        self.banner = service.banner_for(embedded, settings.api_base_url)
        #: whether a person can answer a card now; the pipelines' progress callback
        self.can_ask = can_ask
        self.progress = progress
        #: an httpx transport for the session's client (tests inject a MockTransport)
        self._transport = transport
        #: held while the Design client is built: a call and the warm-up build it once
        self._building = threading.Lock()
        self._design: DesignClient | None = None
        self.loop = BackgroundLoop()
        #: downloads and spilled results: private, and swept by the next session once
        #: this process is gone, however it ends (`temp_folders`)
        self.temp_dir = make_temp_folder(self.data_dir)
        self._closed = False
        #: set by `close`: ends the background start's wait before it warms Design
        self.closing = threading.Event()

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, settings: Settings | None = None, *, data_dir: Path | None = None,
             can_ask: Callable[[], bool] = lambda: False,
             progress: Progress | None = None) -> Session:
        """Open a session. Without `settings`, they come from the environment, as the
        magics read it (`Settings.resolve(os.environ)`). With no service configured: the
        Jupyter server's reference service when `settings.service_file` names one, else
        a newly started one."""
        if settings is None:
            settings = Settings.resolve(os.environ)
        # private before anything is kept in it: a loose existing one is tightened
        data_dir = private_data_dir(data_dir or user_data_dir())
        settings, embedded = service.find_service(settings, data_dir)
        return cls(settings, data_dir=data_dir, can_ask=can_ask, progress=progress,
                   embedded=embedded)

    @classmethod
    def start(cls, settings: Settings, *, data_dir: Path | None = None,
              can_ask: Callable[[], bool] = lambda: False,
              progress: Progress | None = None) -> Future[Session]:
        """`begin` on a thread of its own; the future holds the warmed session or the error."""
        from . import starting

        return starting.start(lambda started: cls.begin(
            started, lambda: settings, data_dir=data_dir, can_ask=can_ask, progress=progress),
            Future())

    @classmethod
    def begin(cls, started: Future[Session], settings: Callable[[], Settings], *,
              data_dir: Path | None = None, can_ask: Callable[[], bool] = lambda: False,
              progress: Progress | None = None) -> None:
        """`open` (resolving `settings()` here) and warm into `started`, on the calling
        thread: a background one, as `%load_ext` begins it (`session.starting`)."""
        from . import starting

        starting.begin(lambda: cls.open(settings(), data_dir=data_dir, can_ask=can_ask,
                                        progress=progress),
                       started, lambda: DESIGN_WARM_DELAY_S)

    # ------------------------------------------------------------------ running

    def run(self, coro: Coroutine[Any, Any, _T], timeout: float | None = None) -> _T:
        """Run a coroutine on the session's loop and wait for it (scripts and magics)."""
        return self.loop.run(coro, timeout=timeout)

    def submit(self, coro: Coroutine[Any, Any, _T]) -> Future[_T]:
        return self.loop.submit(coro)

    # ------------------------------------------------------------------ parts

    #: every secret the session knows, for redaction
    secrets = building.secrets
    #: every HTTP exchange of the session, redacted (`transport.trace`)
    trace = cached_property(building.trace)

    @cached_property
    def _client(self) -> httpx.AsyncClient:
        return building.client(self, self._transport)

    @cached_property
    def http(self) -> httpx.AsyncClient:
        """The session's one httpx client, sending its bearer token where it may go."""
        return building.with_bearer(self, self._client)

    @cached_property
    def auth(self) -> Auth:
        """Sign-in, its status, refresh and sign-out (`session.auth`)."""
        return building.auth(self, self._client)

    @property
    def credentials(self) -> CredentialManager:
        return self.auth.credentials

    @property
    def design(self) -> DesignClient:
        """The Design client, built once (the background warm-up may be building it while
        a first `%design` call asks for it)."""
        with self._building:
            if self._design is None:
                self._design = building.design(self)
            return self._design

    #: the Projects client (`projects.client`)
    projects = cached_property(building.projects)
    #: every Design and Projects call of the session (`design.call_history`)
    history = cached_property(building.history)
    #: the Design event stream: `listen()`, `records()` (`session.notifications`)
    notifications = cached_property(building.notifications)
    #: the session's stores in its data dir: the Projects and Design write journals, the
    #: deck pushes, the sync state
    journal = cached_property(building.journal)
    design_journal = cached_property(building.design_journal)
    deck_records = cached_property(building.deck_records)
    sync_state = cached_property(building.sync_state)
    #: the attached Project for plain Python: `.search`, `.read`, `.info`, `.history`, and
    #: `.write` / `.delete` / `.restore` once an `approve` callback approves
    project = cached_property(building.project)
    #: decks for plain Python: `.open(name)`, `.new(name, approve=…)`, each with
    #: `add_notebook`, `theme`, `push(approve=…)` and `export` (`design.deck.facade`)
    deck = cached_property(building.deck)

    def design_call(self, operation: str, arguments: dict[str, Any] | None = None, *,
                    approve: Approve | None = None, agent_key: str | None = None) -> DesignOutcome:
        """One Design operation from a script, each card put to `approve` (`design_calls`)."""
        from .design_calls import design_call

        return design_call(self.design, self.loop, operation, arguments, approve=approve,
                           agent_key=agent_key)

    # ---------------------------------------------- the older spellings: each is a part's

    def login_begin(self) -> tuple[str, LoginAttempt]:
        return self.auth.login_begin()

    def login_finish(self, attempt: LoginAttempt, pasted: str | Secret) -> None:
        return self.auth.login_finish(attempt, pasted)

    def login_start(self, *, timeout_s: float) -> tuple[str, Future[Credential]]:
        return self.auth.login_start(timeout_s=timeout_s)

    def login_embedded(self, timeout_s: float = 30.0) -> None:
        return self.auth.login_embedded(timeout_s)

    def auth_status(self, *, discover: bool = True) -> AuthStatus:
        return self.auth.status(discover=discover)

    def refresh_now(self) -> AuthStatus:
        return self.auth.refresh()

    def sign_out(self) -> AuthStatus:
        return self.auth.sign_out()

    def listen_for_notifications(self, *, open_session: bool = True) -> str:
        return self.notifications.listen(open_session=open_session)

    def design_notifications(self, *, listen: bool = True) -> list[dict[str, Any]]:
        return self.notifications.records(listen=listen)

    # ------------------------------------------------------------------ closing

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.closing.set()
        try:
            for client in (self._design, self.__dict__.get("projects")):
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
