"""Errors of the session and notebook layer: settings, gates, the session's lifetime,
the embedded service, and magic lines that do not parse."""

from __future__ import annotations

from typing import ClassVar

from .base import JdpError


class ConfigError(JdpError):
    kind: ClassVar[str] = "config_error"
    setting: str
    reason: str

    def __init__(self, setting: str, reason: str) -> None:
        super().__init__(setting=setting, reason=reason)


class GateClosed(JdpError):
    kind: ClassVar[str] = "gate_closed"
    tool: str
    gate: str

    def __init__(self, tool: str, gate: str) -> None:
        super().__init__(tool=tool, gate=gate)


class SessionClosed(JdpError):
    kind: ClassVar[str] = "session_closed"
    what: str

    def __init__(self, what: str) -> None:
        super().__init__(what=what)


class ServiceStartFailed(JdpError):
    """The embedded reference service did not start. `reason`: exited | timeout | bad_line."""

    kind: ClassVar[str] = "service_start_failed"
    reason: str
    log_tail: str

    def __init__(self, reason: str, log_tail: str = "") -> None:
        super().__init__(reason=reason, log_tail=log_tail)


class BadCommand(JdpError):
    """A `%design` / `%project` line that does not parse, or cannot run yet; `command` is
    the subcommand, `step` the one thing to do next (None: its --help)."""

    kind: ClassVar[str] = "bad_command"
    command: str
    reason: str
    step: str | None

    def __init__(self, command: str, reason: str, step: str | None = None) -> None:
        super().__init__(command=command, reason=reason, step=step)


class TraceUnavailable(JdpError):
    """`%design trace` could not do what was asked. `reason`: trace_off | no_exchanges |
    no_folder | not_writable | out_of_range; `detail`: the path, or the exchange asked for
    and the numbers the trace holds."""

    kind: ClassVar[str] = "trace_unavailable"
    reason: str
    detail: str

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason=reason, detail=detail)
