"""What the Design session keeps of the messages its service sends unasked (MCP 2025-03-26:
log messages, `notifications/tools/list_changed`, any other notification, a request): one
record each — when it came, its kind, method, level, logger and data — redacted before it
is kept, in a bounded ring that counts what it let go.

A record's `data` is the message's `params.data` (a log message) or its `params` (others),
with credential-named fields blanked and every known secret redacted by value in every
string (keys too); a record is never bigger than `DATA_CHARS` characters of JSON: a bigger
`data` is kept as its first characters, cut after redaction, and marked `data_cut`."""

from __future__ import annotations

import collections
import contextlib
import json
from collections.abc import Iterator
from typing import Any

from .redaction import Redactor, redact_fields

#: how many notifications the store keeps by default (the oldest go first, counted)
KEPT = 500
#: the most characters of a record's data kept (as JSON text), after redaction
DATA_CHARS = 4_000
#: the levels of MCP logging, least severe first
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
#: what a text field of a record may hold (a method, a logger, a level)
NAME_CHARS = 200

LOG_METHOD = "notifications/message"
TOOLS_CHANGED = "notifications/tools/list_changed"


def _clean(value: Any, redact: Redactor, depth: int = 0) -> Any:
    if depth > 64:
        return "…"
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(k)): _clean(v, redact, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v, redact, depth + 1) for v in value]
    return value


def _name(value: Any, redact: Redactor) -> str | None:
    if not isinstance(value, str):
        return None
    visible = "".join(c for c in value if c.isprintable())
    return redact(visible)[:NAME_CHARS]


def record_of(message: Any, received: str, redact: Redactor) -> dict[str, Any]:
    """One message off the stream (decoded JSON), received at `received` (an ISO 8601
    time), as the record kept of it."""
    if not isinstance(message, dict):
        message = {"method": None, "params": message}
    method = _name(message.get("method"), redact)
    params = message.get("params")
    is_request = "id" in message and method is not None
    if method == LOG_METHOD and isinstance(params, dict):
        kind = "log"
        level = _name(params.get("level"), redact)
        logger = _name(params.get("logger"), redact)
        data = params.get("data")
    else:
        kind = ("request" if is_request else "list_changed" if method == TOOLS_CHANGED
                else "notification" if method is not None else "malformed")
        level, logger, data = None, None, params
    data = _clean(redact_fields(data), redact)
    text = json.dumps(data, ensure_ascii=False, default=str)
    cut = len(text) > DATA_CHARS
    if cut:
        data = text[:DATA_CHARS]
    return {"time": received, "kind": kind, "method": method, "level": level,
            "logger": logger, "data": data, "data_cut": cut}


class NotificationStore:
    """The kept records, oldest first; `dropped` counts those the ring let go. Added to on
    the session's loop and read from the notebook's thread: the stream hands it a lock
    (`guard`, held while the ring changes and while a reader copies it)."""

    def __init__(self, kept: int = KEPT,
                 guard: contextlib.AbstractContextManager[Any] | None = None) -> None:
        if kept < 1:
            raise ValueError("the store keeps at least one notification")
        self._rows: collections.deque[dict[str, Any]] = collections.deque(maxlen=kept)
        self._added = 0  # since the last clear (for `dropped`)
        self._numbered = 0  # since the store began (a record's `n` is never reused)
        self._lock = guard if guard is not None else contextlib.nullcontext()

    @property
    def kept(self) -> int:
        return self._rows.maxlen or KEPT

    @property
    def dropped(self) -> int:
        with self._lock:
            return self._added - len(self._rows)

    def add(self, record: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._added += 1
            self._numbered += 1
            numbered = {"n": self._numbered, **record}
            self._rows.append(numbered)
        return numbered

    def records(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = list(self._rows)
        return [dict(r) for r in rows]

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()
            self._added = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.records())

    def dropped_words(self) -> str:
        """How much the store keeps, and how much it let go (never silently)."""
        words = f"The store keeps the last {self.kept:,} notifications"
        return words + (f"; {self.dropped:,} older one(s) dropped." if self.dropped else ".")
