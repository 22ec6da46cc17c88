"""The session's notifications (`session.notifications`): the Design session's event
stream (`design.notification_stream`), built when first asked for and opened only by
`listen`, and what it kept."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.notifications import NotificationStore
    from ..design.client import DesignClient
    from ..design.notification_stream import NotificationStream
    from ..settings import Settings
    from ..transport.loop import BackgroundLoop


class Notifications:
    """Listen to the Design session's event stream and read what it kept. `design` builds
    (or returns) the session's Design client; `make_stream` builds the stream on its MCP
    session."""

    def __init__(self, design: Callable[[], DesignClient], settings: Settings,
                 loop: BackgroundLoop,
                 make_stream: Callable[[DesignClient], NotificationStream]) -> None:
        self._design = design
        self._settings = settings
        self._loop = loop
        self._make_stream = make_stream

    @cached_property
    def stream(self) -> NotificationStream:
        """The stream itself (built now if not yet; not opened)."""
        return self._make_stream(self._design())

    @property
    def status(self) -> str:
        """What the stream is doing, in words ("not listening …", "listening since …")."""
        return self.stream.status

    @property
    def store(self) -> NotificationStore:
        """What the stream kept (`.dropped`: how many older ones were let go)."""
        return self.stream.store

    def listen(self, *, open_session: bool = True) -> str:
        """Open the Design session's event stream (idempotent) and say what it is doing.
        With `open_session` False it opens only on a Design session that already exists
        (so looking at the trace never starts one); starting one passes the Design gates
        first, as a call does (GateClosed)."""
        stream = self.stream
        if self._design().session.state.has_session_id:
            self._loop.run(_start(stream), timeout=10)
        elif open_session:
            from ..errors import GateClosed

            for gate, open_ in self._settings.design_gates():  # as a Design call checks
                if not open_:
                    raise GateClosed("Design", gate)
            self._loop.run(_start(stream), timeout=10)
        return stream.status

    def records(self, *, listen: bool = True) -> list[dict[str, Any]]:
        """Every notification and log message the Design session received and kept, oldest
        first, redacted: `n`, `time`, `kind`, `method`, `level`, `logger`, `data`. `listen`
        opens the stream first (messages sent while it is not open are not kept by the
        service)."""
        if listen:
            self.listen()
        return self.stream.records()


async def _start(stream: NotificationStream) -> None:
    stream.start()
