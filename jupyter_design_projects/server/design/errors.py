"""The Design half's business failures: each becomes an `isError` tool result whose text
is the failure's message (or, for a write conflict, the JSON PROTOCOL §3 pins).

The server never imports the client's `errors.py` (see docs/architecture.md), so the
reference service keeps its own small tree:

    DesignFailure(message)
    ├── PathRefused(path, rule)             a path broke a path rule
    ├── TooManyTargets(field, count)        more than 256 entries in one call
    ├── NotFound(what, key)                 no such project, file, member, design system
    ├── PlanRefused(reason)                 missing, unknown, spent, expired, other project,
    │                                       not covering, or naming paths for a membership change
    ├── GrantMissing(project_id)            tokenless write without a durable grant
    ├── ConsentMissing()                    consent not given (the gate answers first)
    ├── InvalidValue(field, reason)         an argument the schema let through but is wrong
    └── WriteConflict(conflicts)            an if_match did not hold; nothing was written
"""

from __future__ import annotations

import json
from typing import Any


class DesignFailure(Exception):
    """A business failure: answered as a tool result with isError true."""

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields
        for name, value in fields.items():
            setattr(self, name, value)

    def text(self) -> str:
        """The text the tool result carries."""
        return self.message


class PathRefused(DesignFailure):
    def __init__(self, path: str, rule: str) -> None:
        shown = path if len(path) <= 120 else path[:117] + "..."
        super().__init__(f"Path refused ({rule}): {shown!r}", path=path, rule=rule)


class TooManyTargets(DesignFailure):
    def __init__(self, field: str, count: int, limit: int) -> None:
        super().__init__(f"{field} has {count} entries; at most {limit} are allowed per call",
                         field=field, count=count, limit=limit)


class NotFound(DesignFailure):
    def __init__(self, what: str, key: str) -> None:
        super().__init__(f"No such {what}: {key!r}", what=what, key=key)


class PlanRefused(DesignFailure):
    def __init__(self, reason: str, detail: str = "",
                 remedy: str = "Call finalize_plan for these paths first.") -> None:
        message = f"Plan token refused ({reason})" + (f": {detail}" if detail else "")
        super().__init__(f"{message}. {remedy}", reason=reason)


class GrantMissing(DesignFailure):
    def __init__(self, project_id: str) -> None:
        super().__init__(f"needs_project_grant: project {project_id!r} has no durable grant; "
                         "pass a plan_token or ask for a grant", project_id=project_id)


class ConsentMissing(DesignFailure):
    def __init__(self) -> None:
        super().__init__("needs_consent: agent_design_projects consent has not been given")


class InvalidValue(DesignFailure):
    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"Invalid {field}: {reason}", field=field, reason=reason)


class WriteConflict(DesignFailure):
    def __init__(self, conflicts: list[dict[str, Any]]) -> None:
        super().__init__(f"{len(conflicts)} path(s) changed since you read them. "
                         "Nothing was written.", conflicts=conflicts)

    def text(self) -> str:
        return json.dumps({"status": "conflict", "conflicts": self.fields["conflicts"],
                           "message": self.message})
