"""RFC 3339 timestamps as the reference service writes them on the wire."""

from __future__ import annotations

import datetime


def rfc3339(seconds: float) -> str:
    """UTC with milliseconds (`2026-12-02T17:29:09.123Z`), so two events in one second
    still order."""
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
