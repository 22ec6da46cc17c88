"""What every part of the reference service shares for one run: config, database, clock,
token authority, fault switches, the demo seed's ids and the MCP session manager, each a
typed field of `ServiceContext` set by the part named beside it."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .database import Database

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from ..core.design_operations import DesignOperation
    from .faults.state import FaultState

#: the one person of the reference service: the authorize page approves them, every token
#: the service issues belongs to them
DEMO_USER_ID = "5f0c2a9e-7d3b-4e61-9a8f-1c2d3e4f5a6b"
DEMO_USER_EMAIL = "demo@acme-research.example"
DEMO_USER_NAME = "Demo User"
#: the browser render_preview drives (Debian's chromium); None: the fallback drawing only
DEFAULT_PREVIEW_BROWSER = Path("/usr/bin/chromium")


class DesignTable(Mapping[str, "DesignOperation"]):
    """`core.design_operations.BY_NAME`, imported at its first read (a Design request):
    a service that answers only Projects calls never loads the Design table."""

    def _rows(self) -> Mapping[str, DesignOperation]:
        from ..core.design_operations import BY_NAME

        return BY_NAME

    def __getitem__(self, name: str) -> DesignOperation:
        return self._rows()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows())

    def __len__(self) -> int:
        return len(self._rows())


@dataclasses.dataclass(frozen=True)
class ServiceConfig:
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 0
    seed: str | None = None
    #: fault injection routes under /_faults (loopback only); off unless --faults
    faults: bool = False
    #: idle MCP sessions expire after this many seconds (SDK default 30 min)
    session_idle_timeout: float = 1800.0
    #: request bodies above this are refused with 413 before they are parsed
    max_body_bytes: int = 32 * 1024 * 1024
    #: the chromium render_preview drives; None draws the fallback picture only
    preview_browser: Path | None = DEFAULT_PREVIEW_BROWSER
    #: launch the preview browser in the background as the service starts (the command
    #: line does; apps built in-process for tests launch it on the first preview)
    warm_browser: bool = False


@dataclasses.dataclass(frozen=True)
class Principal:
    """Who a bearer token belongs to, and what it may do."""

    user_id: str
    scopes: frozenset[str]
    #: for the remote-session route: the org and project the session token binds
    org_uuid: str | None = None
    project_uuid: str | None = None


@dataclasses.dataclass
class ServiceContext:
    """Everything the parts of one service run share; `app.build_context` makes it."""

    config: ServiceConfig
    db: Database
    clock: Callable[[], float] = time.time
    #: set by server/oauth.py: request -> Principal | None
    authenticate: Callable[[Any], Principal | None] | None = None
    #: set by server/faults/switches.py when --faults is on (the state is faults/state.py)
    faults: FaultState | None = None
    #: set by server/design/mcp.py: forget every MCP session (as a restart does)
    drop_mcp_sessions: Callable[[], int] | None = None
    #: set by server/design/mcp.py: serve one more read-only operation from now on (name,
    #: description; the fault switch that lets a test grow the catalogue mid-session), or
    #: with description None stop serving it; True when the catalogue changed
    extra_design_operation: Callable[[str, str | None], bool] | None = None
    #: set by server/design/mcp.py: the SDK's session manager behind the MCP endpoint
    mcp_session_manager: StreamableHTTPSessionManager | None = None
    #: the Design operations the MCP endpoint serves and the gate reads
    #: (core.design_operations; a test may serve one more)
    design_operations: Mapping[str, DesignOperation] = dataclasses.field(
        default_factory=DesignTable)
    #: what runs them, one method per operation, made from this context (None:
    #: server/design/operations.DesignOperations)
    design_service: Callable[[ServiceContext], Any] | None = None
    #: set by app.build_context from the demo seed (None when the data dir has none)
    demo_org_uuid: str | None = None
    demo_project_uuid: str | None = None
    #: set by app.build_context: this run's owner secret and its checks (server/owner.py)
    owner: Any = None
