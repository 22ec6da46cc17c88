"""What the Design endpoint tells its MCP sessions unasked (MCP 2025-03-26 logging and
`notifications/tools/list_changed`): the sessions it may tell, each one's
`logging/setLevel` level, the log events of the operations that change a project, and the
catalogue-changed notice. Everything goes out on the session's standalone channel: the GET
event stream a client opens on the endpoint (in JSON-answer mode a POST answer carries
nothing else), and is dropped by the SDK when no stream is open, since the service keeps no
event store.

A log message says what changed (operation, project, counts, paths, an expiry) and never
carries a token: no plan token, no bearer, no argument that is not listed here."""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import Mapping
from typing import Any

from mcp.server import ServerRequestContext
from mcp_types import (
    LoggingLevel,
    LoggingMessageNotification,
    LoggingMessageNotificationParams,
    ToolListChangedNotification,
)

#: RFC 5424 severities in MCP's spelling, least severe first (MCP 2025-03-26 logging)
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
#: what a session is sent before it asks for a level (the spec names no default)
DEFAULT_LEVEL = "info"
#: the `logger` name of every log message of the Design operations
LOGGER = "design.operations"
#: the protocol revision from which logging is per request only (its standalone log
#: messages are forbidden): nothing is sent to a session that negotiated it or later
LOGGING_PER_REQUEST_FROM = "2026-07-28"
#: sessions remembered at most (the oldest forgotten first); an ended session is
#: forgotten when the endpoint sees it end (DELETE, 404)
KEPT_SESSIONS = 1024
#: paths a log message names at most (the counts are always whole)
PATHS_NAMED = 20


def session_id_of(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """The `Mcp-Session-Id` the request carried (None on initialize)."""
    headers = getattr(ctx.request, "headers", None)
    value = headers.get("mcp-session-id") if headers is not None else None
    return value if isinstance(value, str) and value else None


def log_event(name: str, arguments: Mapping[str, Any],
              value: Any) -> tuple[LoggingLevel, dict] | None:
    """(level, data) of the log message a successful call of `name` earns, or None."""
    if not isinstance(value, dict):
        return None
    project = arguments.get("project_id")
    if name == "write_files":
        paths = [f["path"] for f in arguments.get("files", ()) if isinstance(f, dict)]
        return "info", {"event": "files_written", "project_id": project,
                        "count": value.get("written"), "paths": paths[:PATHS_NAMED],
                        "message": f"wrote {value.get('written')} file(s)"}
    if name == "create_support_js":
        return "info", {"event": "files_written", "project_id": project, "count": 1,
                        "paths": [value.get("path")], "message": "wrote support.js"}
    if name == "copy_files":
        dests = [f.get("dest") for f in arguments.get("files", ()) if isinstance(f, dict)]
        return "info", {"event": "files_copied", "project_id": project,
                        "count": value.get("copied"), "paths": dests[:PATHS_NAMED],
                        "message": f"copied {value.get('copied')} file(s)"}
    if name == "delete_files":
        paths = list(arguments.get("paths", ()))
        return "notice", {"event": "files_deleted", "project_id": project,
                          "count": value.get("deleted"), "paths": paths[:PATHS_NAMED],
                          "message": f"deleted {value.get('deleted')} file(s)"}
    if name == "finalize_plan":  # the plan's shape, never its token
        writes, deletes = value.get("writes") or [], value.get("deletes") or []
        return "info", {"event": "plan_finalized", "project_id": project,
                        "writes": len(writes), "deletes": len(deletes),
                        "expires_at": value.get("expires_at"),
                        "message": f"plan finalized: {len(writes)} write(s), "
                                   f"{len(deletes)} delete(s)"}
    if name == "create_project":
        return "info", {"event": "project_created", "project_id": value.get("project_id"),
                        "message": "project created"}
    return None


def failure_event(name: str) -> tuple[LoggingLevel, dict]:
    """The log message of a call that answered `isError` (its text is the result's)."""
    return "warning", {"event": "call_failed", "operation": name,
                       "message": f"{name} answered an error (see its result)"}


class Listeners:
    """The sessions the endpoint may notify, by session id, with the level each asked for.
    Each entry holds the SDK's `ServerSession` of the session's latest request, whose
    standalone channel outlives the request."""

    def __init__(self, kept: int = KEPT_SESSIONS) -> None:
        self._sessions: collections.OrderedDict[str, Any] = collections.OrderedDict()
        self._levels: dict[str, str] = {}
        self._kept = kept
        self._lock = threading.Lock()  # forget() runs from the session book's wrapper
        self._tasks: set[asyncio.Task[int]] = set()

    def __len__(self) -> int:
        return len(self._sessions)

    def seen(self, ctx: ServerRequestContext[Any, Any]) -> None:
        """Note the session of a request (server middleware: every request passes)."""
        session_id = session_id_of(ctx)
        if session_id is None:
            return
        with self._lock:
            self._sessions[session_id] = ctx.session
            self._sessions.move_to_end(session_id)
            while len(self._sessions) > self._kept:
                gone, _ = self._sessions.popitem(last=False)
                self._levels.pop(gone, None)

    def set_level(self, session_id: str | None, level: str) -> None:
        if session_id is not None:
            with self._lock:
                self._levels[session_id] = level

    def level(self, session_id: str) -> str:
        return self._levels.get(session_id, DEFAULT_LEVEL)

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._sessions.pop(session_id, None)
            self._levels.pop(session_id, None)

    async def log(self, ctx: ServerRequestContext[Any, Any], level: LoggingLevel,
                  data: dict) -> None:
        """Send one log message to the request's session, if its level lets it through."""
        session_id = session_id_of(ctx)
        if session_id is None or LEVELS.index(level) < LEVELS.index(self.level(session_id)):
            return
        if ctx.session.protocol_version >= LOGGING_PER_REQUEST_FROM:
            return
        await ctx.session.send_notification(LoggingMessageNotification(
            params=LoggingMessageNotificationParams(level=level, logger=LOGGER, data=data)))

    async def tools_changed(self) -> int:
        """Tell every known session the catalogue changed; how many were told."""
        with self._lock:
            sessions = list(self._sessions.values())
        for session in sessions:
            await session.send_notification(ToolListChangedNotification())
        return len(sessions)

    def tools_changed_soon(self) -> None:
        """`tools_changed` from synchronous code running on the service's event loop (the
        fault routes); from any other thread nobody is told."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self.tools_changed())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
