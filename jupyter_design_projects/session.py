"""A Session: the one background event loop, the one httpx client, the credential manager,
and the Design and Projects clients of one notebook (or script), opened and closed together.

    with Session.open() as session:          # the settings from the environment
        info = session.project.info()        # or: session.run(session.projects.info())

With no service configured, `open` uses the reference service of the Jupyter server this
process runs under (named by `JDP_SERVICE_FILE`, waiting a bounded time while it starts),
or else starts its own embedded one, and says so in `banner`. `Session.begin` opens one on
a background thread and warms it (imports, the httpx client and its TLS context, the
stored credential), so `%load_ext` can begin it and the first call finds it ready.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from .core.redaction import Secret
from .data_dir import DATA_DIR_ENV, private_data_dir, user_data_dir
from .errors import AuthError
from .settings import Settings
from .temp_folders import make_temp_folder

T = TypeVar("T")

BANNER = (
    "Using the offline reference service at {base_url} (embedded, demo data, no account). "
    "Set JDP_API_BASE_URL to use another service."
)
SHARED_BANNER = (
    "Using the embedded reference service, on this Jupyter server (offline, demo data, no "
    "account; shared with the side panel and every kernel of this server). "
    "Set JDP_API_BASE_URL to use another service."
)


#: the Design MCP endpoint under the API base URL: the protected resource of discovery
DESIGN_MCP_PATH = "/v1/design/mcp"

#: how long after the session is ready the background start waits before it warms the
#: Design pipeline (its imports would otherwise compete with a first `%project` call)
DESIGN_WARM_DELAY_S = 1.0

__all__ = ["DATA_DIR_ENV", "Session", "user_data_dir"]


def tls_context(settings: Settings) -> Any:
    """True (httpx's default TLS context, which loads the CA file: about 60 ms) when a
    configured URL is https; else a client context with no CA loaded. Plain http is
    allowed only on loopback, so such a session never opens a TLS connection — and if
    one were ever opened, this context would refuse every certificate (it fails closed,
    never open)."""
    urls = (settings.api_base_url, settings.web_base_url, settings.oauth_token_url,
            settings.oauth_authorize_url)
    if any(url.startswith("https:") for url in urls):
        return True
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verify_mode CERT_REQUIRED, no CA


class Session:
    def __init__(
        self,
        settings: Settings,
        *,
        data_dir: Path | None = None,
        can_ask: Callable[[], bool] = lambda: False,
        progress: Callable[[str, int, int | None], None] | None = None,
        embedded: Any = None,
        transport: Any = None,
    ) -> None:
        from .transport.loop import BackgroundLoop

        self.settings = settings
        self.data_dir = data_dir or user_data_dir()
        self.embedded = embedded
        self.banner: str | None = None
        if embedded is not None:
            template = BANNER if embedded.owned else SHARED_BANNER
            self.banner = template.format(base_url=settings.api_base_url)
        self._can_ask = can_ask
        self._progress = progress
        #: an httpx transport for the session's client (tests inject a MockTransport)
        self._transport = transport
        #: held while the Design client is built: a call and the warm-up build it once
        self._building = threading.Lock()
        self._design: Any = None
        self.loop = BackgroundLoop()
        #: downloads and spilled results: private, and swept by the next session once
        #: this process is gone, however it ends (`temp_folders`)
        self.temp_dir = make_temp_folder(self.data_dir)
        self._closed = False
        #: set by `close`: ends the background start's wait before it warms Design
        self._closing = threading.Event()

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(
        cls,
        settings: Settings | None = None,
        *,
        data_dir: Path | None = None,
        can_ask: Callable[[], bool] = lambda: False,
        progress: Callable[[str, int, int | None], None] | None = None,
    ) -> Session:
        """Open a session. Without `settings`, they come from the environment, as the
        magics read it (`Settings.resolve(os.environ)`). With no service configured: the
        Jupyter server's reference service when `settings.service_file` names one, else
        a newly started one."""
        if settings is None:
            settings = Settings.resolve(os.environ)
        # private before anything is kept in it: a loose existing one is tightened
        data_dir = private_data_dir(data_dir or user_data_dir())
        embedded = None
        if settings.embedded:
            if settings.service_file:
                from . import service_file

                embedded = service_file.wait(Path(settings.service_file))
            else:
                from .embedded import start_embedded

                embedded = start_embedded(data_dir / "reference-service",
                                          warm_browser=settings.warm_preview_browser)
            settings = settings.using_service(embedded.client_env())
        return cls(settings, data_dir=data_dir, can_ask=can_ask, progress=progress,
                   embedded=embedded)

    @classmethod
    def start(
        cls,
        settings: Settings,
        *,
        data_dir: Path | None = None,
        can_ask: Callable[[], bool] = lambda: False,
        progress: Callable[[str, int, int | None], None] | None = None,
    ) -> Future[Session]:
        """`begin` on a daemon thread of its own; the future holds the warmed session (or
        the error `open` raised)."""
        started: Future[Session] = Future()
        threading.Thread(target=cls.begin, args=(started, lambda: settings),
                         kwargs={"data_dir": data_dir, "can_ask": can_ask,
                                 "progress": progress},
                         name="jdp-session-start", daemon=True).start()
        return started

    @classmethod
    def begin(
        cls,
        started: Future[Session],
        settings: Callable[[], Settings],
        *,
        data_dir: Path | None = None,
        can_ask: Callable[[], bool] = lambda: False,
        progress: Callable[[str, int, int | None], None] | None = None,
    ) -> None:
        """`open` and `warm` into `started`, on the calling thread: a background one (the
        magics' `%load_ext` begins the session on theirs, so this module and the settings
        load there too, `settings` being resolved here). The future holds the warmed
        session (or the error resolving or opening raised); the Design pipeline is warmed
        a little later. Warming failures are left for the first call to meet."""
        try:
            session = cls.open(settings(), data_dir=data_dir, can_ask=can_ask,
                               progress=progress)
        except BaseException as exc:
            started.set_exception(exc)
            return
        session.warm()
        started.set_result(session)
        # the Design pipeline waits, so a first call made now has the CPU to itself
        if not session._closing.wait(DESIGN_WARM_DELAY_S):
            session.warm_design()

    def warm(self) -> None:
        """Do ahead what a first call pays for: the httpx client (its TLS context), the
        Projects pipeline, the stored credential, the modules of a first connection.
        Nothing is sent; a failure here is left for the first call
        to meet and report."""
        try:
            self.projects  # noqa: B018 - imports the pipeline, builds the client
            self.run(self.credentials.load_stored(), timeout=10)
            # what httpx loads at its first connection (about 40 ms); nothing is sent
            import anyio._backends._asyncio  # noqa: F401
        except Exception:  # the first call meets the same failure and reports it
            pass

    def warm_design(self) -> None:
        """The Design pipeline's imports and client (after `warm`: a first `%project` call
        need not wait for them); nothing once the session is closing."""
        if self._closing.is_set():
            return
        try:
            self.design  # noqa: B018
        except Exception:
            pass

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

        return HttpTrace(self.settings.http_trace, self._secrets,
                         limit=self.settings.trace_limit)

    def _secrets(self):
        """Every secret this session knows (rotated tokens too, and the plan tokens, codes
        and verifiers its trace saw go by), for redaction."""
        out = [*self.credentials.known_secrets(), *self.trace.seen_secrets()]
        if self.settings.session_jwt is not None:
            out.append(self.settings.session_jwt)
        return out

    @cached_property
    def credentials(self):
        from .embedded import owner_secret_for
        from .transport.credential_manager import open_credentials

        def owner() -> Any:  # read at each sign-in: the service writes a new one each run
            return owner_secret_for(self.embedded, self.settings.credentials_file,
                                    self.settings.oauth_authorize_url)

        return open_credentials(self.settings, self.data_dir, self._client, owner_secret=owner)

    @cached_property
    def _client(self):
        """The session's one httpx client; `http` gives it its auth once credentials exist."""
        from .transport.http import make_client

        return make_client(event_hooks=self.trace.event_hooks(), transport=self._transport,
                           verify=tls_context(self.settings))

    @cached_property
    def http(self):
        from .transport.auth import BearerAuth

        client = self._client
        client.auth = BearerAuth(self.credentials, self.settings.allowed_origins)
        return client

    @property
    def design(self):
        """The Design client, built once (the background warm-up may be building it while
        a first `%design` call asks for it)."""
        with self._building:
            if self._design is None:
                from .core.design_operations import BY_NAME
                from .design.client import DesignClient
                from .projects.downloads import DownloadDir

                self._design = DesignClient(self.http, self.settings, can_ask=self._can_ask,
                                            clock_ms=lambda: int(time.time() * 1000),
                                            operations=BY_NAME,
                                            save_text=DownloadDir(self.temp_dir).save_text,
                                            journal=self.design_journal,
                                            observers=[self.history])
            return self._design

    @cached_property
    def journal(self):
        from .projects.journal import Journal

        return Journal(self.data_dir / "journal.sqlite3")

    @cached_property
    def design_journal(self):
        from .design.write_journal import FILE_NAME, DesignJournal

        return DesignJournal(self.data_dir / FILE_NAME)

    @cached_property
    def deck_records(self):
        from .design.deck.records import PushRecords

        return PushRecords(self.data_dir / "deck_pushes.sqlite3", self.settings.api_base_url)

    @cached_property
    def sync_state(self):
        from .projects.sync_state import SyncState

        return SyncState(self.data_dir / "sync_state.sqlite3")

    @cached_property
    def history(self):
        """Every Design and Projects call of this session (`design.call_history`)."""
        from .design.call_history import CallHistory

        def trace_mark() -> int | None:
            rows = self.trace.records() if self.trace.enabled else []
            return rows[-1]["n"] if rows else (0 if self.trace.enabled else None)

        return CallHistory(trace_mark=trace_mark)

    @cached_property
    def projects(self):
        from .projects.client import ProjectsClient

        client = ProjectsClient(
            self.http,
            self.settings,
            ensure_scopes=lambda: self.credentials.ensure_project_scopes(
                policy_allows=self.settings.allow_projects_tool
            ),
            temp_dir=self.temp_dir,
            journal=self.journal,
            progress=self._progress,
            secrets=self._secrets,
            observers=[self.history],
        )
        return client

    # ------------------------------------------------------------------ sync facades

    @cached_property
    def project(self):
        """The attached Project for plain Python: `session.project.search(...)`, `.read`,
        `.info`, `.history`, and `.write` / `.delete` / `.restore` once an `approve`
        callback approves (see `projects.facade`)."""
        from .projects.facade import ProjectFacade

        return ProjectFacade(self.projects, self.run, sync_state=lambda: self.sync_state,
                             progress=self._progress)

    @cached_property
    def deck(self):
        """Decks for plain Python: `session.deck.open(name)`, `session.deck.new(name,
        approve=…)`, each with `add_notebook`, `theme`, `push(approve=…)` and `export`
        (see `design.deck.facade`)."""
        from functools import partial

        from .design.deck.facade import DeckFacade
        from .projects.stoppable import run_stoppable

        return DeckFacade(lambda: self.design, self.run, partial(run_stoppable, self.run),
                          lambda: self.deck_records, self._can_ask)

    def design_call(
        self,
        operation: str,
        arguments: dict[str, Any] | None = None,
        *,
        approve: Callable[[Any], str | None] | None = None,
        agent_key: str | None = None,
    ):
        """Run one Design operation from a script and return its `DesignOutcome`.
        `agent_key` names whose `list` it is (each `AgentTools` passes its own; None: the
        person's), as each remembers its own catalogue hash.

        Each approval card the call needs (consent, then a grant or a plan) is handed to
        `approve(request)`, which answers "once", "project" (a durable grant, where the
        card allows one) or None (deny). Without `approve` nothing is approved: a call
        that needs a person comes back refused, as it does where no card can be shown.
        """
        from .design.approval import PendingApproval

        whose = {} if agent_key is None else {"agent_key": agent_key}
        result = self.run(self.design.call(operation, dict(arguments or {}), **whose))
        while isinstance(result, PendingApproval):
            answer = approve(result.request) if approve is not None else None
            result = self.run(self.design.resume(
                result, approved=answer in ("once", "project"), durable=answer == "project"))
        return result

    # ------------------------------------------------------------------ notifications

    @cached_property
    def notifications(self):
        """The Design session's event stream and what it kept (`design.notification_stream`);
        built when first asked for, and opened only by `listen_for_notifications`."""
        from .design.notification_stream import NotificationStream

        return NotificationStream(self.design.session, self.http, secrets=self._secrets)

    def listen_for_notifications(self, *, open_session: bool = True) -> str:
        """Open the Design session's event stream (idempotent) and say what it is doing.
        With `open_session` False it opens only on a Design session that already exists
        (so looking at the trace never starts one); starting one passes the Design gates
        first, as a call does (GateClosed)."""
        stream = self.notifications
        if self.design.session.state.has_session_id:
            self.run(_start(stream), timeout=10)
        elif open_session:
            from .errors import GateClosed

            for gate, open_ in self.settings.design_gates():  # as a Design call checks
                if not open_:
                    raise GateClosed("Design", gate)
            self.run(_start(stream), timeout=10)
        return stream.status

    def design_notifications(self, *, listen: bool = True) -> list[dict[str, Any]]:
        """Every notification and log message the Design session received and kept, oldest
        first, redacted: `n`, `time`, `kind`, `method`, `level`, `logger`, `data`. `listen`
        opens the stream first (messages sent while it is not open are not kept by the
        service)."""
        if listen:
            self.listen_for_notifications()
        return self.notifications.records()

    # ------------------------------------------------------------------ login

    def login_begin(self):
        """Start the paste-the-code sign-in: returns (url to open, attempt). After the
        person clicks Authorize, the page shows the `code#state` to pass to `login_finish`."""
        attempt = self.credentials.begin_login()
        return attempt.url, attempt

    def login_finish(self, attempt, pasted: str | Secret) -> None:
        """Finish sign-in with the pasted `code#state` (held as a Secret from here on)."""
        code = pasted if isinstance(pasted, Secret) else Secret(pasted)
        self.run(self.credentials.finish_login(attempt, code))

    def login_start(self, *, timeout_s: float) -> tuple[str, Future[Any]]:
        """Start the loopback sign-in (RFC 8252): a one-shot listener on 127.0.0.1 at a
        port the system picks, and the authorize URL that redirects to it. Returns the URL
        to open and a Future of the credential, which the browser's redirect completes on
        the session's loop (or fails: AuthError login_timeout after `timeout_s`, a state
        mismatch, a refused code). OSError when no loopback port can be bound."""
        from .transport.redirect_listener import RedirectListener

        listener = self.run(RedirectListener.open(), timeout=10)
        try:
            attempt = self.credentials.begin_login(redirect_uri=listener.redirect_uri)
        except BaseException:
            self.run(listener.close(), timeout=10)
            raise
        return attempt.url, self.submit(
            self.credentials.login_by_redirect(attempt, listener, timeout_s))

    def login_embedded(self, timeout_s: float = 30.0) -> None:
        """Sign in to a reference service on loopback by playing the person's part: the
        loopback sign-in, with this process opening the page and clicking Authorize (the
        side panel's Sign in button, and tests). The redirect completes it as it would in
        a browser."""
        url, done = self.login_start(timeout_s=timeout_s)
        try:
            self.run(self._click_authorize(url), timeout=timeout_s)
        except BaseException:
            done.cancel()
            raise
        done.result(timeout=timeout_s + 10)  # the listener's own bound ends it first

    async def _click_authorize(self, url: str) -> None:
        """GET the reference service's authorize page, post its form with Authorize and
        follow the redirect to the listener, as a browser would. The post and the redirect
        go over a plain socket: httpx and httpcore log request URLs and answer headers,
        and the redirect's location carries the code."""
        import httpx

        from .transport.redirect_listener import follow_to_listener, post_form

        async with httpx.AsyncClient(follow_redirects=False, trust_env=False,
                                     timeout=10.0) as browser:
            page = await browser.get(url)
        fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">',
                                 page.text))
        if page.status_code != 200 or not fields:
            raise AuthError("login_failed", "The reference service's sign-in page "
                            f"answered HTTP {page.status_code} with no form; see its log.")
        form = {html.unescape(k): html.unescape(v) for k, v in fields.items()}
        status, location = await post_form(str(page.url.copy_with(query=None)),
                                           {**form, "decision": "approve"})
        if status not in (302, 303) or not location:
            raise AuthError("login_failed", "The reference service's sign-in page answered "
                            f"HTTP {status} to Authorize; see its log.")
        await follow_to_listener(location)

    # ------------------------------------------------------------------ the sign-in, step by step

    def auth_status(self, *, discover: bool = True):
        """The sign-in as it stands (`core.sign_in_steps.AuthStatus`): the credential held
        (client, scopes, expiry; never a token), the steps of this session (authorize URL
        redacted, code exchange, each refresh and why, failures) and, with `discover`, the
        service's OAuth discovery documents fetched now (no bearer sent)."""
        if discover:
            from .transport.sign_in_record import discover as fetch

            self.run(fetch(self._client, self.credentials.record,
                           self.settings.oauth_token_url,
                           self.settings.api_base_url.rstrip("/") + DESIGN_MCP_PATH),
                     timeout=30)
        return self.run(self.credentials.status(), timeout=30)

    def refresh_now(self):
        """Refresh the access token now, under the credential locks as every refresh is;
        returns the new `auth_status()` (its last refresh says "asked by you"). AuthError
        no_token when not signed in, no_refresh_token when there is none to refresh."""
        self.run(self.credentials.refresh_now(), timeout=30)
        return self.auth_status(discover=False)

    def sign_out(self):
        """Forget the credential in this session and delete it from the credential store
        (the 0600 file, or the OS keyring's entry), tell this person's other processes
        (they stop using the token at once), and revoke it at the service (RFC 7009); the
        next call says "Not signed in". Returns the new `auth_status()`."""
        self.run(self.credentials.sign_out(), timeout=30)
        return self.auth_status(discover=False)

    # ------------------------------------------------------------------ closing

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._closing.set()
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


async def _start(stream: Any) -> None:
    stream.start()
