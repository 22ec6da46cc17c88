"""The notebook's one session, from begun to closed: begun in the background at `%load_ext`,
opened on first use (taking the begun one if it is there), closed on unload and at exit.

`SessionLifecycle` is a part the notebook host composes (`host.NotebookHost.lifecycle`); it
reads the setting traits through the callable it is given, when it needs them.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ..settings import Settings



def _resolved(traits: Mapping[str, Any]) -> Settings:
    """The settings: the environment, with the setting traits' values as overrides."""
    from ..settings import Settings, trait_overrides

    return Settings.resolve(os.environ, trait_overrides(traits))

# ------------------------------------------------------------ the lifecycle

#: the pipelines' progress callback: a label, how much is done, of how much (None: unknown)
Progress = Callable[[str, int, int | None], None]


def _settles(started: Any, timeout: float) -> bool:
    """Whether the background start finishes (well or not) within `timeout` seconds."""
    from concurrent.futures import wait

    return started in wait([started], timeout=timeout).done


class SessionLifecycle:
    """Opening, holding and closing the one session of a notebook.

    `setting_values` gives the setting traits' current values; `warm` runs first on the
    background start's thread, to load what the first call will need. Whoever opens the
    session hands it `can_ask` (who can answer a card now) and `progress` (where a long
    call reports)."""

    def __init__(self, setting_values: Callable[[], dict[str, Any]], *,
                 warm: Callable[[], None] = lambda: None) -> None:
        self._setting_values = setting_values
        self._warm = warm
        #: the open session, once opened (or adopted); None before and after
        self.current: Any = None
        #: the session `%load_ext` began opening in the background, until first use
        self.starting: Future[Any] | None = None
        self._finalizer: weakref.finalize | None = None

    def settings(self) -> Settings:
        return _resolved(self._setting_values())

    def start(self, *, can_ask: Callable[[], bool], progress: Progress) -> None:
        """Begin opening the session on a background thread (what `%load_ext` does). Only
        the setting traits are read here: that thread imports the session's modules and
        resolves the settings (a bad setting is reported by the first call), so
        `%load_ext` costs little more than registering the magics."""
        if self.current is not None or self.starting is not None:
            return
        from concurrent.futures import Future

        started: Future[Any] = Future()
        threading.Thread(target=self._begin,
                         args=(started, self._setting_values(), can_ask, progress),
                         name="jdp-session-start", daemon=True).start()
        self.starting = started

    def _begin(self, started: Future[Any], traits: dict[str, Any],
               can_ask: Callable[[], bool], progress: Progress) -> None:
        """The background start's thread: `warm` loads the first call's path, then
        `Session.begin` resolves, opens and warms."""
        try:
            from ..session import Session

            self._warm()
        except BaseException as exc:  # never leave the first call waiting on it
            started.set_exception(exc)
            return
        Session.begin(started, lambda: _resolved(traits), can_ask=can_ask, progress=progress)

    def ready_within(self, seconds: float) -> bool:
        """Whether a session begun in the background is (or within `seconds` becomes)
        ready, well or not: then opening needs no "connecting" bar."""
        return self.starting is not None and _settles(self.starting, seconds)

    def discard_started(self) -> None:
        """Drop the session begun in the background (a setting changed before any call):
        it is closed once its start ends."""
        starting, self.starting = self.starting, None
        if starting is None:
            return

        def close(done: Any) -> None:
            if not done.cancelled() and done.exception() is None:
                done.result().close()

        starting.add_done_callback(close)

    def open(self, *, can_ask: Callable[[], bool], progress: Progress) -> Any:
        """The session begun in the background (waiting for it), else one opened now
        (starting the reference service if needed); `adopt` keeps it."""
        from ..session import Session

        starting, self.starting = self.starting, None
        if starting is not None:
            return starting.result()
        return Session.open(self.settings(), can_ask=can_ask, progress=progress)

    def adopt(self, session: Any) -> None:
        """Keep `session` as the notebook's session: closed by `close` or at exit."""
        self.current = session
        self._finalizer = weakref.finalize(self, session.close)

    def close(self) -> None:
        """Close the session: the temp dir goes, and anything it started stops."""
        self.discard_started()
        if self._finalizer is not None:
            self._finalizer()
        self.current = None
        self._finalizer = None
