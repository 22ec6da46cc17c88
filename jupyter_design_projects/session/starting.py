"""A session begun in the background (`Session.start` / `Session.begin`, what `%load_ext`
does): opened, then warmed — the work a first call would otherwise pay for — and the
Design pipeline warmed a little later, so a first `%project` call has the CPU to itself."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

from .shape import SessionShape

#: the session begun: a `Session`, seen by this module as its shape
S = TypeVar("S", bound=SessionShape)


def begin(open_session: Callable[[], S], started: Future[S],
          design_delay_s: Callable[[], float]) -> None:
    """`open_session()` and `warm` into `started`, on the calling thread; the future holds
    the warmed session (or the error opening raised). The Design pipeline is warmed
    `design_delay_s()` later, unless the session is closed first. Warming failures are
    left for the first call to meet."""
    try:
        session = open_session()
    except BaseException as exc:
        started.set_exception(exc)
        return
    warm(session)
    started.set_result(session)
    if not session.closing.wait(design_delay_s()):
        warm_design(session)


def warm(session: SessionShape) -> None:
    """Do ahead what a first call pays for: the httpx client (its TLS context), the
    Projects pipeline, the stored credential, the modules of a first connection.
    Nothing is sent; a failure here is left for the first call to meet and report."""
    try:
        session.projects  # noqa: B018 - imports the pipeline, builds the client
        session.run(session.auth.credentials.load_stored(), timeout=10)
        # what httpx loads at its first connection (about 40 ms); nothing is sent
        import anyio._backends._asyncio  # noqa: F401
    except Exception:  # the first call meets the same failure and reports it
        pass


def warm_design(session: SessionShape) -> None:
    """The Design pipeline's imports and client (after `warm`: a first `%project` call
    need not wait for them); nothing once the session is closing."""
    if session.closing.is_set():
        return
    try:
        session.design  # noqa: B018
    except Exception:
        pass


def start(begin: Callable[[Future[S]], None], started: Future[S]) -> Future[S]:
    """`begin(started)` on a daemon thread of its own; returns `started`."""
    threading.Thread(target=begin, args=(started,), name="jdp-session-start",
                     daemon=True).start()
    return started
