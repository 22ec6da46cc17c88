"""The `%design` and `%project` magics: parse the line, call the pipeline on the session
that lives on this magics instance, render the outcome.

Loading registers the magics; `%load_ext` also begins opening the session in the
background (`start_session`: with no service configured that is the Jupyter server's
reference service, or one this process starts), so the first call finds it ready. The
session closes on unload and at exit; changing a setting trait before any call discards
the session begun in the background.

One error style for both pipelines: an expected failure or a refusal (a Design call that
needs a person where nobody can answer included) fails the cell with one `UsageError` line
that names the next step, so Run All, nbclient and papermill stop there. The failed outcome
stays reachable with `%design last` / `%project last`. `%config DesignProjects.errors =
'outcome'`, or `--outcome` as the first word of one line, returns error outcomes instead
(for notebooks that debug the API). A pending approval card is not a failure.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections import ChainMap
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import (
    Magics,
    line_cell_magic,
    magics_class,
    needs_local_scope,
    no_var_expand,
)
from traitlets import Bool, Enum, Float, Int, Unicode, observe

from ..core.trace_limits import TRACE_LIMIT, TRACE_LIMIT_MAX, TRACE_LIMIT_MIN
from ..errors import (
    BadCommand,
    InvalidArguments,
    InvalidProjectsArgument,
    JdpError,
    PermissionDenied,
    PermissionRefused,
    TransportError,
    UnknownOperation,
    guidance,
)
from ..settings import Settings, trait_overrides
from . import grammar, subcommands, views
from .outcome import Outcome

#: traits that are passed to Settings.resolve as overrides (never a secret among them)
SETTING_TRAITS = (
    "api_base_url", "web_base_url", "oauth_token_url", "oauth_client_id", "org_uuid",
    "credentials_file", "allow_design_sync", "allow_projects_tool", "design_feature_flag",
    "essential_traffic_only", "http_trace", "grant_watch", "client_platform", "trace_limit",
)


@magics_class
class DesignProjects(Magics):
    """%design and %project. Options: %config DesignProjects.<trait> = value."""

    approval_mode = Enum(
        ("auto", "widget", "deny"), "auto", config=True,
        help="How Design asks a person: 'widget' always shows approval cards, 'deny' never "
             "asks (fails closed), 'auto' shows cards only where someone can click (stdin "
             "allowed) and fails closed elsewhere (nbclient, papermill).",
    )
    api_base_url = Unicode("", config=True, help="Design MCP/REST base URL (empty: the "
                                                  "embedded offline reference service).")
    web_base_url = Unicode("", config=True, help="Projects org API base URL.")
    oauth_token_url = Unicode("", config=True, help="OAuth token endpoint.")
    oauth_client_id = Unicode("", config=True, help="OAuth client id.")
    org_uuid = Unicode("", config=True, help="Organization UUID (default: the first).")
    credentials_file = Unicode("", config=True, help="Credential file path (default: the "
                                                      "system keyring or the user data dir).")
    allow_design_sync = Bool(True, config=True, help="Policy gate for Design.")
    allow_projects_tool = Bool(True, config=True, help="Policy gate for Projects.")
    design_feature_flag = Bool(True, config=True, help="Feature gate for Design.")
    essential_traffic_only = Bool(False, config=True,
                                  help="Turns Design and Projects off when True.")
    http_trace = Bool(False, config=True, help="Record an HTTP trace (%design trace; "
                                               "%design trace on|off at any time).")
    trace_limit = Int(TRACE_LIMIT, min=TRACE_LIMIT_MIN, max=TRACE_LIMIT_MAX, config=True,
                      help="How many exchanges the HTTP trace keeps (the oldest go first).")
    grant_watch = Bool(True, config=True, help="While a grant card waits, watch for a grant "
                                               "given elsewhere (Design settings) and go on.")
    client_platform = Unicode("jupyter_design_projects", config=True,
                              help="The anthropic-client-platform of every Design request.")
    login_timeout = Float(300.0, min=1.0, max=3600.0, config=True,
                          help="How long `%design login` keeps its one-time loopback "
                               "listener open for the sign-in page's redirect (seconds).")
    errors = Enum(
        ("raise", "outcome"), "raise", config=True,
        help="'raise': an expected failure or refusal fails the cell with one line naming "
             "the next step (Run All and papermill stop there); 'outcome': it returns the "
             "error outcome instead. Either way `%design last` / `%project last` has it.",
    )

    def __init__(self, shell=None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self._session: Any = None
        #: the session `%load_ext` began opening in the background, until first use
        self._starting: Any = None
        self._finalizer: weakref.finalize | None = None
        #: the paste-the-code sign-in waiting for `%design login CODE`
        self._login_attempt: Any = None
        #: the loopback sign-in in progress (its card), until it ends or another replaces it
        self._sign_in: Any = None
        self._panel: Any = None
        self._design_started = False
        #: who can answer right now, fixed on the main thread for the call in progress
        self._answerable: bool | None = None
        #: the notebook's deck (`%design deck open|new`)
        self._deck: Any = None
        #: each magic's last outcome, failed ones included (`%design last`, `%project last`)
        self._last: dict[str, Any] = {}
        #: Design project id -> its display-safe name (None when it has none), for each
        #: project a read-only get_project found in this session
        self._projects_seen: dict[str, str | None] = {}

    @observe(*SETTING_TRAITS)
    def _setting_changed(self, change: Any) -> None:
        # (config applied while the instance is built sets traits before __init__ ends)
        if getattr(self, "_starting", None) is not None:  # begun before this setting
            self._discard_started()
        elif getattr(self, "_session", None) is not None:
            from .trace import apply_setting

            if apply_setting(self._session, change["name"], change["new"]):
                return
            print(f"DesignProjects.{change['name']} applies to the next session: run "
                  "%reload_ext jupyter_design_projects to start one.")

    # ------------------------------------------------------------ session

    def settings(self) -> Settings:
        overrides = {name: getattr(self, name) for name in SETTING_TRAITS}
        return Settings.resolve(os.environ, trait_overrides(overrides))

    def start_session(self) -> None:
        """Begin opening the session on a background thread (what `%load_ext` does)."""
        if self._session is not None or self._starting is not None:
            return
        from ..session import Session

        try:
            settings = self.settings()
        except JdpError:  # a bad setting is reported by the first call
            return
        self._starting = Session.start(settings, can_ask=self.can_ask,
                                       progress=self.report_progress)

    def _discard_started(self) -> None:
        starting, self._starting = self._starting, None

        def close(done: Any) -> None:
            if not done.cancelled() and done.exception() is None:
                done.result().close()

        starting.add_done_callback(close)

    def _open_session(self):
        from ..session import Session

        starting, self._starting = self._starting, None
        if starting is not None:
            return starting.result()
        return Session.open(self.settings(), can_ask=self.can_ask,
                            progress=self.report_progress)

    @property
    def session(self):
        """The session: the one begun at `%load_ext`, or opened now (starting the
        reference service if needed)."""
        if self._session is None:
            if self._starting is not None and _settles(self._starting, QUIET_WAIT_S):
                session = self._open_session()  # ready soon enough: no bar to show
            else:
                with self._progress(transient=True) as panel:
                    if panel is not None:
                        panel.report("connecting", 0, 1)
                    session = self._open_session()
                    if panel is not None:
                        panel.report("connected", 1, 1)
            self._session = session
            self._finalizer = weakref.finalize(self, session.close)
            if session.banner:
                print(session.banner)
        return self._session

    def close(self) -> None:
        """Close the session: the temp dir goes, and anything it started stops."""
        if self._sign_in is not None:
            self._sign_in.cancel()
            self._sign_in = None
        if self._starting is not None:
            self._discard_started()
        if self._finalizer is not None:
            self._finalizer()
        self._session = None
        self._finalizer = None
        self._design_started = False
        self._projects_seen.clear()

    # ------------------------------------------------------------ who can answer

    def can_ask(self) -> bool:
        """Whether a person can answer an approval card now (the DesignClient's can_ask)."""
        if self._answerable is not None:
            return self._answerable
        return self._live_can_ask()

    def _live_can_ask(self) -> bool:
        if self.approval_mode == "widget":
            return True
        if self.approval_mode == "deny":
            return False
        return self._stdin_allowed()

    def _stdin_allowed(self) -> bool:
        """Whether the frontend of the running cell can answer (False under nbclient and
        papermill, and in a terminal with no kernel)."""
        kernel = getattr(self.shell, "kernel", None)
        if kernel is None:
            return False
        try:
            return bool(kernel.get_parent()["content"]["allow_stdin"])
        except (KeyError, TypeError, AttributeError):
            return False

    @contextlib.contextmanager
    def _answering(self, value: bool):
        previous, self._answerable = self._answerable, value
        try:
            yield
        finally:
            self._answerable = previous

    # ------------------------------------------------------------ progress

    def report_progress(self, label: str, done: int, total: int | None) -> None:
        """The pipelines' progress callback (may run on the session's loop thread)."""
        panel = self._panel
        if panel is not None:
            panel.report(label, done, total)

    @contextlib.contextmanager
    def _progress(self, *, transient: bool = False):
        """A hidden progress panel under the cell while the block runs (only in a kernel: a
        terminal has nowhere to draw it); blanked afterwards if it never had to show, or
        always when `transient`."""
        if getattr(self.shell, "kernel", None) is None:
            yield None
            return
        from IPython.display import display

        from .progress import ProgressPanel

        panel = ProgressPanel()
        handle = display(panel.widget, display_id=True)
        previous, self._panel = self._panel, panel
        try:
            yield panel
        finally:
            self._panel = previous
            if transient or not panel.visible:
                panel.close()
                if handle is not None:
                    handle.update({"text/plain": ""}, raw=True)

    @contextlib.contextmanager
    def _first_handshake(self):
        """The first Design command of a session also shakes hands: show that it is working."""
        if self._design_started:
            yield None
            return
        self._design_started = True
        with self._progress(transient=True) as panel:
            yield panel

    # ------------------------------------------------------------ the magics

    def _namespace(self, local_ns: Any) -> ChainMap:
        return ChainMap(local_ns or {}, self.shell.user_ns if self.shell else {})

    @no_var_expand
    @needs_local_scope
    @line_cell_magic
    @subcommands.with_usage("project")
    def project(self, line: str, cell: str | None = None, local_ns: Any = None):
        """The attached claude.ai Project (its knowledge, docs and uploads).

        Each returns an Outcome: .data, .df, .local_file, .to_tool_result(id).
        `$name` passes a Python variable. A failure fails the cell with one line naming
        the next step; `%project last` keeps its outcome (`--outcome` returns it).
        """
        return self._run("project", line, cell, local_ns)

    @no_var_expand
    @needs_local_scope
    @line_cell_magic
    @subcommands.with_usage("design")
    def design(self, line: str, cell: str | None = None, local_ns: Any = None):
        """The remote Design canvas (its operations come from the service's catalogue).

        A call that needs approval shows a card (Approve / Approve for this project /
        Deny) and returns a PendingOutcome; where nobody can click it fails the cell with
        one line naming the explicit command (`%design last` keeps the outcome).
        """
        return self._run("design", line, cell, local_ns)

    def _run(self, tool: str, line: str, cell: str | None, local_ns: Any):
        """Parse, run and settle one magic: a failure raises one `UsageError` line (or, with
        errors='outcome' or `--outcome`, is returned); every outcome becomes `last`."""
        as_outcome, line = _outcome_flag(line, self.errors == "outcome")
        try:
            if tool == "project":
                command = grammar.parse_project(line, cell, self._namespace(local_ns))
            else:
                command = grammar.parse_design(line, cell, self._namespace(local_ns))
            if command.help is not None:
                print(self._help(command))
                return None
            if command.action == "last":
                return self._last_outcome(tool)
            if tool == "project":
                outcome = self._project(command)
            else:
                with self._answering(self._live_can_ask()), \
                        self._first_handshake() as panel:
                    if panel is not None:
                        panel.report("Design handshake (initialize, tools/list)", 0, 1)
                    outcome = self._design(command)
        except BadCommand as exc:  # a mistyped line: nothing ran, nothing to keep
            raise UsageError(views.failure_line(exc, tool)) from None
        except JdpError as exc:
            error = self._reworded(exc)
            outcome = views.failed_outcome(f"{tool} {_label(line)}", error)
        return self._settle(tool, outcome, as_outcome)

    def _settle(self, tool: str, outcome: Any, as_outcome: bool):
        if isinstance(outcome, Outcome) and outcome.error is not None:
            error = self._reworded(outcome.error)
            if error is not outcome.error:
                outcome.error, outcome.notice = error, str(error)
        self._last[tool] = outcome
        if as_outcome or not isinstance(outcome, Outcome) or not outcome.is_error:
            return outcome  # a pending card is not a failure
        raise UsageError(views.failure_line(outcome, tool)) from None

    def _last_outcome(self, tool: str):
        if tool not in self._last:
            raise UsageError(f"%{tool} last: no %{tool} call has finished in this session yet.")
        return self._last[tool]

    def _help(self, command: grammar.Command) -> str:
        """--help text; for a Design operation, its fields from the catalogue's schema."""
        if command.tool != "design" or command.action != "call":
            return command.help or ""
        schema = self._known_schema(command.args["operation"])
        return (command.help or "") + views.schema_fields(command.args["operation"], schema)

    def _known_schema(self, operation: str) -> dict | None:
        """The input schema of `operation`: the service's, once the catalogue is known in
        this session, else the client's declared floor (no call is made for --help)."""
        from ..core.design_operations import BY_NAME

        if operation in BY_NAME:
            return BY_NAME[operation].schema
        entry = next((e for e in self._catalogue() if e.name == operation), None)
        return entry.input_schema if entry is not None else None

    def _catalogue(self) -> list:
        """The live catalogue's entries when this session has already listed it, else []."""
        session = self._session
        if session is None or not session.design.session.state.discovered:
            return []
        try:
            return session.run(session.design.catalogue.entries())
        except JdpError:
            return []

    def _reworded(self, error: JdpError) -> JdpError:
        """The few failures whose line needs what only the magic knows: the approval_mode
        setting, the catalogue (did-you-mean) and the configured URL."""
        if (isinstance(error, PermissionDenied) and error.reason == "nobody_can_approve"
                and self.approval_mode == "deny"):
            return PermissionRefused(error.operation, "approval_mode_deny",
                                     guidance.APPROVAL_MODE_DENY, guidance.APPROVAL_MODE_ON)
        if isinstance(error, UnknownOperation):
            import difflib

            from ..core.design_operations import BY_NAME

            names = sorted({*BY_NAME, *(e.name for e in self._catalogue())})
            close = difflib.get_close_matches(error.operation, names, n=1, cutoff=0.6)
            if close:
                return guidance.reworded(error, f"{error} Did you mean {close[0]!r}?")
        if isinstance(error, TransportError) and guidance.is_connection_failure(error):
            settings = self.settings()
            url = (settings.web_base_url if error.action.startswith("project")
                   else settings.api_base_url)
            return guidance.reworded(error, guidance.connection_line(error, url))
        return error

    # ------------------------------------------------------------ %project

    def _project(self, command: grammar.Command):
        action, args = command.action, command.args
        projects = self.session.projects
        if action == "history":
            return views.history_outcome(projects.history(args["limit"]))
        if action == "restore":
            _refuse_restoring_a_create(projects.history, args["entry_id"])
            data = self.session.run(projects.restore(args["entry_id"]))
            return views.project_outcome("restore", data)
        if action == "sync":
            from .sync_view import sync_command

            return sync_command(self, args)
        call_args = {k: v for k, v in args.items() if v is not None}
        if action == "info":
            call_args = {}
        # the bar stays hidden unless the transfer is a MiB or more
        transfer = action in ("read", "write")
        progress = self._progress() if transfer else contextlib.nullcontext()
        with progress:
            data = self.session.run(projects.call(f"project_{action}", call_args))
        return views.project_outcome(action, data)

    # ------------------------------------------------------------ %design

    def _design(self, command: grammar.Command):
        session = self.session
        design = session.design
        action, args = command.action, command.args
        if action == "list":
            from .catalogue import CatalogueView

            result = session.run(design.list(full=args["full"]))
            return views.design_outcome(result, catalogue_widget=CatalogueView)
        if action in ("consent", "revoke"):
            data = session.run(getattr(design, action)())
            status = {"consent": action == "consent"} if data is None else data
            return views.status_outcome(status, label=f"design {action}")
        if action == "status":
            return views.status_outcome(session.run(design.status()))
        if action == "trace":
            from .trace import trace_command

            return trace_command(session.trace, args)
        if action == "login":
            return self._login(args.get("code"), paste=args.get("paste", False))
        if action in ("deck", "slide"):
            from .deck import deck_command

            return deck_command(self, command)
        return self._call(args["operation"], args["arguments"])

    def _call(self, operation: str, arguments: dict):
        session = self.session
        result = session.run(session.design.call(operation, arguments))
        from ..design.approval import PendingApproval

        if not isinstance(result, PendingApproval):
            return views.design_outcome(result)
        if not self.can_ask():  # fail closed
            from ..core.permissions import explain

            raise PermissionRefused(operation, "nobody_can_approve",
                                    explain("nobody_can_approve"))
        if result.request.kind != "consent":
            self._check_project_exists(operation, arguments)
        from IPython.display import display

        from .cards import ApprovalCard
        from .outcome import PendingOutcome

        card = ApprovalCard(result, resume=self._resume, present=views.design_outcome,
                            watch=self._watch_grant, project_names=self._projects_seen)
        display(card.widget)
        return PendingOutcome(operation, card)

    def _watch_grant(self, pending: Any, claim: Any):
        """The grant watcher of a waiting grant card, on the session's loop (spec §8)."""
        session = self.session
        return session.submit(session.design.watch_grant(pending, claim=claim))

    def _check_project_exists(self, operation: str, arguments: dict) -> None:
        """Before a card for a write: a read-only get_project (never a card of its own)
        says whether the project exists; one that does not fails the call here."""
        project_id = arguments.get("project_id")
        if not isinstance(project_id, str) or project_id in self._projects_seen:
            return
        session = self.session
        with self._answering(False):
            found = session.run(session.design.call("get_project", {"project_id": project_id}))
        if getattr(found, "is_error", False) and getattr(found, "error", None) is None:
            said = found.data if isinstance(found.data, str) else "not found"
            raise InvalidArguments(operation, "project_id", f"{project_id!r} names no Design "
                                   f"project the service knows ({said}); `%design "
                                   "list_projects` lists them")
        if not getattr(found, "is_error", True):
            from ..core.display import ProjectIdentity, project_identity

            identity = project_identity(project_id, found.data)
            self._projects_seen[project_id] = (identity.name if isinstance(
                identity, ProjectIdentity) else None)

    def _resume(self, pending: Any, approved: bool, durable: bool):
        """The card's continuation: a person has just answered, so asking again is allowed."""
        session = self.session
        with self._answering(True):
            return session.run(session.design.resume(pending, approved=approved,
                                                     durable=durable))

    def _login(self, code: str | None, *, paste: bool = False):
        """Sign in. The usual way: a one-time listener on 127.0.0.1 receives the sign-in
        page's redirect and finishes in the background (the card shows how it went);
        `--paste`, or a loopback port that cannot be bound, falls back to pasting the
        `code#state` the page shows."""
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
        from IPython.display import display

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


#: how long a first call waits for the session begun at `%load_ext` before it shows a
#: "connecting" bar (building one imports ipywidgets, which costs more than a short wait)
QUIET_WAIT_S = 0.5


def _settles(started: Any, timeout: float) -> bool:
    """Whether the background start finishes (well or not) within `timeout` seconds."""
    from concurrent.futures import wait

    return started in wait([started], timeout=timeout).done


OUTCOME_FLAG = "--outcome"


def _outcome_flag(line: str, default: bool) -> tuple[bool, str]:
    """`--outcome` as the line's first word returns error outcomes for this call."""
    head, _, rest = line.strip().partition(" ")
    if head == OUTCOME_FLAG:
        return True, rest
    return default, line


def _label(line: str) -> str:
    return line.strip().partition(" ")[0] or "call"


def _refuse_restoring_a_create(history: Any, entry_id: int) -> None:
    """A journal entry that created its doc has nothing before it: restoring it would
    mean deleting the doc, so say that instead of running anything."""
    for entry in history(JOURNAL_SCAN):
        if entry.get("id") == entry_id and not entry.get("has_previous"):
            path = entry.get("path")
            if entry.get("action") != "create":
                return
            raise InvalidProjectsArgument(
                "restore", "entry_id", f"{entry_id} recorded the creation of {path!r} with "
                f"nothing before it, so restoring it would delete {path!r}; to do that, run "
                f"`%project delete {path}`")


#: how many journal entries `%project restore` looks through for the entry's kind
JOURNAL_SCAN = 10_000


def load(ipython) -> None:
    """Register the magics (once); nothing else changes."""
    if "DesignProjects" not in ipython.magics_manager.registry:
        ipython.register_magics(DesignProjects(shell=ipython))


def start_session(ipython) -> None:
    """Begin opening the session in the background (`%load_ext`; `load` alone does not)."""
    instance = ipython.magics_manager.registry.get("DesignProjects")
    if instance is not None:
        instance.start_session()


def unload(ipython) -> None:
    """Close the session and remove the magics."""
    manager = ipython.magics_manager
    instance = manager.registry.pop("DesignProjects", None)
    if instance is not None:
        instance.close()
    for kind in ("line", "cell"):
        for name in ("design", "project"):
            manager.magics[kind].pop(name, None)
