"""The session as its parts' builders (`building`) and the background start (`starting`)
see it: the public members they read. `Session` is one; they name this shape rather than
the class, whose module imports them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    import httpx

    from ..core.redaction import Secret
    from ..design.call_history import CallHistory
    from ..design.client import DesignClient
    from ..design.deck.records import PushRecords
    from ..design.write_journal import DesignJournal
    from ..embedded import EmbeddedService
    from ..projects.client import ProjectsClient
    from ..projects.journal import Journal
    from ..projects.sync_state import SyncState
    from ..settings import Settings
    from ..transport.loop import BackgroundLoop
    from ..transport.trace import HttpTrace
    from .auth import Auth

_T = TypeVar("_T")


class SessionShape(Protocol):
    settings: Settings
    data_dir: Path
    temp_dir: Path
    embedded: EmbeddedService | None
    loop: BackgroundLoop
    can_ask: Callable[[], bool]
    progress: Callable[[str, int, int | None], None] | None
    closing: threading.Event

    def run(self, coro: Coroutine[Any, Any, _T], timeout: float | None = None) -> _T: ...

    def secrets(self) -> list[Secret]: ...

    @property
    def trace(self) -> HttpTrace: ...

    @property
    def http(self) -> httpx.AsyncClient: ...

    @property
    def auth(self) -> Auth: ...

    @property
    def design(self) -> DesignClient: ...

    @property
    def projects(self) -> ProjectsClient: ...

    @property
    def history(self) -> CallHistory: ...

    @property
    def journal(self) -> Journal: ...

    @property
    def design_journal(self) -> DesignJournal: ...

    @property
    def deck_records(self) -> PushRecords: ...

    @property
    def sync_state(self) -> SyncState: ...
