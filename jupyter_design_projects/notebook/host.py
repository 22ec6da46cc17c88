"""The notebook host: everything a `%design` / `%project` line works with besides its own
words — the session's lifecycle, the sign-in in progress, the notebook's deck, each magic's
last outcome, who can answer a card now, and the progress panel under the running cell.

The magics class composes one host (as IPython's `InteractiveShell` composes its
`history_manager`) and hands it to the run path (`commands.run`), which hands it to every
handler with the parsed line (`commands.call.Call`); nothing of a call
reaches into the magics instance. The host reads the magics' traits through `Options`,
when it needs them, so a `%config` change applies to the next read.
"""

from __future__ import annotations

import contextlib
from collections import ChainMap
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from .lifecycle import SessionLifecycle

if TYPE_CHECKING:
    from ..session import Session
    from ..settings import Settings
    from .widgets.deck import NotebookDeck
    from .widgets.sign_in import SignInCard

#: how long a first call waits for the session begun at `%load_ext` before it shows a
#: "connecting" bar (building one imports ipywidgets, which costs more than a short wait)
QUIET_WAIT_S = 0.5


class Options(Protocol):
    """What the host reads of the magics' traits (`%config DesignProjects.<trait>`)."""

    approval_mode: str
    errors: str
    login_timeout: float

    def setting_values(self) -> dict[str, Any]:
        """The setting traits' values: `Settings.resolve`'s overrides."""
        ...


class NotebookHost:
    """The notebook side of every call: one per magics instance (see the module docstring).
    It satisfies `deck.DeckHost`."""

    def __init__(self, shell: Any, options: Options, *,
                 warm: Callable[[], None] = lambda: None) -> None:
        self.shell = shell
        self.options = options
        self.lifecycle = SessionLifecycle(options.setting_values, warm=warm)
        #: the notebook's deck (`%design deck open|new`)
        self.deck: NotebookDeck | None = None
        #: each magic's last outcome, failed ones included (`%design last`, `%project last`)
        self.last: dict[str, Any] = {}
        #: the paste-the-code sign-in waiting for `%design login CODE`
        self.login_attempt: Any = None
        #: the loopback sign-in in progress (its card), until it ends or another replaces it
        self.sign_in: SignInCard | None = None
        #: who can answer right now, fixed on the main thread for the call in progress
        self._answerable: bool | None = None
        self._panel: Any = None
        self._design_started = False

    # ------------------------------------------------------------ the session

    @property
    def session(self) -> Session:
        """The session: the one begun at `%load_ext`, or opened now (starting the
        reference service if needed)."""
        lifecycle = self.lifecycle
        if lifecycle.current is None:
            if lifecycle.ready_within(QUIET_WAIT_S):
                session = self._open()  # ready soon enough: no bar to show
            else:
                with self.progress(transient=True) as panel:
                    if panel is not None:
                        panel.report("connecting", 0, 1)
                    session = self._open()
                    if panel is not None:
                        panel.report("connected", 1, 1)
            lifecycle.adopt(session)
            if session.banner:
                print(session.banner)
        return lifecycle.current

    def _open(self) -> Any:
        return self.lifecycle.open(can_ask=self.can_ask, progress=self.report_progress)

    @property
    def opened(self) -> Any:
        """The session if one is open, else None (`--help` starts no service)."""
        return self.lifecycle.current

    def settings(self) -> Settings:
        return self.lifecycle.settings()

    def start_session(self) -> None:
        """Begin opening the session in the background (what `%load_ext` does)."""
        self.lifecycle.start(can_ask=self.can_ask, progress=self.report_progress)

    def setting_changed(self, name: str, value: Any) -> None:
        """A setting trait changed; what follows is the one its declaration says
        (`Declared.applies`): one only the notebook reads applies at its next read; any
        other discards a session begun in the background (begun before it); an open
        session applies one that applies "at once", and says another applies to the next
        session."""
        from ..settings import Settings, rows

        applies = next(row for row in rows(Settings) if row.name == name).declared.applies
        if applies == "at next read":
            return
        if self.lifecycle.starting is not None:
            self.lifecycle.discard_started()
        elif self.lifecycle.current is not None and applies == "at once":
            from .views.trace import apply_live

            apply_live(self.lifecycle.current, self.settings())
        elif self.lifecycle.current is not None:
            print(f"DesignProjects.{name} applies to the next session: run "
                  "%reload_ext jupyter_design_projects to start one.")

    def close(self) -> None:
        """Close the session, cancelling a sign-in in progress first."""
        if self.sign_in is not None:
            self.sign_in.cancel()
            self.sign_in = None
        self.lifecycle.close()
        self._design_started = False

    # ------------------------------------------------------------ who can answer

    def can_ask(self) -> bool:
        """Whether a person can answer an approval card now (the DesignClient's can_ask)."""
        if self._answerable is not None:
            return self._answerable
        return self.live_can_ask()

    def live_can_ask(self) -> bool:
        """Whether a person can answer, read now from `approval_mode` and the frontend."""
        mode = self.options.approval_mode
        if mode == "widget":
            return True
        if mode == "deny":
            return False
        return self.stdin_allowed()

    def stdin_allowed(self) -> bool:
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
    def answering(self, value: bool) -> Iterator[None]:
        """Who can answer, fixed at `value` while the block runs (a call in progress)."""
        previous, self._answerable = self._answerable, value
        try:
            yield
        finally:
            self._answerable = previous

    def resume(self, pending: Any, approved: bool, durable: bool) -> Any:
        """A card's continuation: a person has just answered, so asking again is allowed."""
        session = self.session
        with self.answering(True):
            return session.run(session.design.resume(pending, approved=approved,
                                                     durable=durable))

    # ------------------------------------------------------------ progress

    def report_progress(self, label: str, done: int, total: int | None) -> None:
        """The pipelines' progress callback (may run on the session's loop thread)."""
        panel = self._panel
        if panel is not None:
            panel.report(label, done, total)

    @contextlib.contextmanager
    def progress(self, *, transient: bool = False) -> Iterator[Any]:
        """A hidden progress panel under the cell while the block runs (only in a kernel: a
        terminal has nowhere to draw it); blanked afterwards if it never had to show, or
        always when `transient`."""
        if getattr(self.shell, "kernel", None) is None:
            yield None
            return
        from IPython.display import display

        from .widgets.progress import ProgressPanel

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
    def first_handshake(self) -> Iterator[Any]:
        """The first Design command of a session also shakes hands: show that it is working."""
        if self._design_started:
            yield None
            return
        self._design_started = True
        with self.progress(transient=True) as panel:
            yield panel

    # ------------------------------------------------------------ the notebook's variables

    def namespace(self, local_ns: Any) -> ChainMap:
        """The variables a line's `$name` reads: the cell's locals, then the notebook's."""
        return ChainMap(local_ns or {}, self.shell.user_ns if self.shell else {})

    def user_namespace(self) -> Mapping[str, Any]:
        """The notebook's variables (a deck's `$name`)."""
        return dict(getattr(self.shell, "user_ns", None) or {})
