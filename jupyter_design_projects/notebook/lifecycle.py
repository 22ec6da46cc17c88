"""The magics' session lifecycle: the session begun in the background at `%load_ext`, opened
on first use and closed on unload; who can answer an approval card right now; and the
progress panel a long call shows under its cell.

`SessionLifecycle` is a base of the `DesignProjects` magics class, which declares the
traits it reads (`approval_mode` and the settings traits).
"""

from __future__ import annotations

import contextlib
import os
import threading
import weakref
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .setting_traits import SETTING_TRAITS

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ..settings import Settings

#: how long a first call waits for the session begun at `%load_ext` before it shows a
#: "connecting" bar (building one imports ipywidgets, which costs more than a short wait)
QUIET_WAIT_S = 0.5


def _resolved(traits: Mapping[str, Any]) -> Settings:
    """The settings: the environment, with the setting traits' values as overrides."""
    from ..settings import Settings, trait_overrides

    return Settings.resolve(os.environ, trait_overrides(traits))


def _settles(started: Any, timeout: float) -> bool:
    """Whether the background start finishes (well or not) within `timeout` seconds."""
    from concurrent.futures import wait

    return started in wait([started], timeout=timeout).done


class SessionLifecycle:
    """Opening, using and closing the one session of a magics instance."""

    # declared by the magics class (traits and IPython's Magics)
    shell: Any
    approval_mode: Any

    _session: Any
    _starting: Any
    _finalizer: weakref.finalize | None
    _panel: Any
    _design_started: bool
    _answerable: bool | None

    def _init_lifecycle(self) -> None:
        self._session = None
        #: the session `%load_ext` began opening in the background, until first use
        self._starting = None
        self._finalizer = None
        self._panel = None
        self._design_started = False
        #: who can answer right now, fixed on the main thread for the call in progress
        self._answerable = None

    # ------------------------------------------------------------ session

    def settings(self) -> Settings:
        return _resolved(self._setting_values())

    def _setting_values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in SETTING_TRAITS}

    def start_session(self) -> None:
        """Begin opening the session on a background thread (what `%load_ext` does). Only
        the setting traits are read here: that thread imports the session's modules and
        resolves the settings (a bad setting is reported by the first call), so
        `%load_ext` costs little more than registering the magics."""
        if self._session is not None or self._starting is not None:
            return
        from concurrent.futures import Future

        started: Future[Any] = Future()
        threading.Thread(target=self._begin, args=(started, self._setting_values()),
                         name="jdp-session-start", daemon=True).start()
        self._starting = started

    def _begin(self, started: Future[Any], traits: dict[str, Any]) -> None:
        """The background start's thread: it loads the magics' call path (`dispatch`: the
        grammar, views and errors) for the first call, then `Session.begin` resolves,
        opens and warms."""
        try:
            from ..session import Session
            from . import dispatch  # noqa: F401 - loaded here, not in the first call
        except BaseException as exc:  # never leave the first call waiting on it
            started.set_exception(exc)
            return
        Session.begin(started, lambda: _resolved(traits), can_ask=self.can_ask,
                      progress=self.report_progress)

    def _discard_started(self) -> None:
        starting, self._starting = self._starting, None

        def close(done: Any) -> None:
            if not done.cancelled() and done.exception() is None:
                done.result().close()

        starting.add_done_callback(close)

    def _open_session(self) -> Any:
        from ..session import Session

        starting, self._starting = self._starting, None
        if starting is not None:
            return starting.result()
        return Session.open(self.settings(), can_ask=self.can_ask,
                            progress=self.report_progress)

    @property
    def session(self) -> Any:
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
        if self._starting is not None:
            self._discard_started()
        if self._finalizer is not None:
            self._finalizer()
        self._session = None
        self._finalizer = None
        self._design_started = False

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
    def _answering(self, value: bool) -> Iterator[None]:
        previous, self._answerable = self._answerable, value
        try:
            yield
        finally:
            self._answerable = previous

    def resume(self, pending: Any, approved: bool, durable: bool) -> Any:
        """A card's continuation: a person has just answered, so asking again is allowed."""
        session = self.session
        with self._answering(True):
            return session.run(session.design.resume(pending, approved=approved,
                                                     durable=durable))

    # ------------------------------------------------------------ progress

    def report_progress(self, label: str, done: int, total: int | None) -> None:
        """The pipelines' progress callback (may run on the session's loop thread)."""
        panel = self._panel
        if panel is not None:
            panel.report(label, done, total)

    @contextlib.contextmanager
    def _progress(self, *, transient: bool = False) -> Iterator[Any]:
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
    def _first_handshake(self) -> Iterator[Any]:
        """The first Design command of a session also shakes hands: show that it is working."""
        if self._design_started:
            yield None
            return
        self._design_started = True
        with self._progress(transient=True) as panel:
            yield panel
