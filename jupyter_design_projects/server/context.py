"""What every part of the reference service shares for one run: config, database, clock,
token authority, fault switches, and the hooks the parts give each other."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .database import Database

#: the one person of the reference service: the authorize page approves them, every token
#: the service issues belongs to them
DEMO_USER_ID = "5f0c2a9e-7d3b-4e61-9a8f-1c2d3e4f5a6b"
DEMO_USER_EMAIL = "demo@acme-research.example"
DEMO_USER_NAME = "Demo User"


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
    config: ServiceConfig
    db: Database
    clock: Callable[[], float] = time.time
    #: set by server/oauth.py: request -> Principal | None
    authenticate: Callable[[Any], Principal | None] | None = None
    #: set by server/faults.py when --faults is on
    faults: Any = None
    #: set by server/design_mcp.py: forget every MCP session (as a restart does)
    drop_mcp_sessions: Callable[[], int] | None = None
    #: free-form hooks between parts, named in the module that sets them
    hooks: dict[str, Any] = dataclasses.field(default_factory=dict)
