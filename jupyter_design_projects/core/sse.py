"""Server-sent events read from bytes (the WHATWG event-stream format the MCP Streamable
HTTP transport uses on its GET stream): lines end in CRLF, LF or CR, a blank line
dispatches the event, `:` starts a comment (a keep-alive ping), fields are `event`, `data`
(several join with a newline), `id` (one holding NUL is ignored) and `retry` (digits only).
An event that names no data is not dispatched. A leading UTF-8 byte order mark is skipped.

Fed any split of the bytes (chunk boundaries anywhere, a CR and its LF in two chunks, a
character's bytes split) it yields the same events. The bytes one event may hold are
capped: past the cap `feed` raises ResponseTooLarge and the stream is not to be read on."""

from __future__ import annotations

import dataclasses

from ..errors import ResponseTooLarge

#: what one event (its lines and their fields) may hold, in bytes
MAX_EVENT_BYTES = 262_144
_BOM = b"\xef\xbb\xbf"


@dataclasses.dataclass(frozen=True)
class SseEvent:
    data: str
    event: str = "message"
    id: str | None = None
    #: the reconnection time the server asked for, in milliseconds
    retry_ms: int | None = None


class SseParser:
    """Bytes in, whole events out; `last_id` is the last event id seen (for Last-Event-ID)."""

    def __init__(self, action: str = "event stream",
                 max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._action = action
        self._cap = max_event_bytes
        self._pending = bytearray()  # the current line, not yet ended
        self._held = 0  # bytes of the current event's lines so far
        self._started = False
        self._after_cr = False
        self._data: list[str] = []
        self._event = ""
        self._retry: int | None = None
        self.last_id: str | None = None

    def feed(self, chunk: bytes) -> list[SseEvent]:
        events: list[SseEvent] = []
        if not self._started:
            self._pending += chunk
            if len(self._pending) < len(_BOM) and _BOM.startswith(bytes(self._pending)):
                return events
            self._started = True
            chunk = bytes(self._pending)
            self._pending.clear()
            if chunk.startswith(_BOM):
                chunk = chunk[len(_BOM):]
        if self._after_cr and chunk[:1] == b"\n":
            chunk = chunk[1:]  # the LF of a CRLF whose CR ended the last chunk
        self._after_cr = False
        start = 0
        size = len(chunk)
        next_cr, next_lf = -1, -1  # each found once per pass over the chunk, not per line
        while start < size:
            if next_cr < start:
                next_cr = chunk.find(b"\r", start)
                next_cr = size if next_cr < 0 else next_cr
            if next_lf < start:
                next_lf = chunk.find(b"\n", start)
                next_lf = size if next_lf < 0 else next_lf
            at = min(next_cr, next_lf)
            if at == size:
                break
            self._pending += chunk[start:at]
            self._check()
            self._line(bytes(self._pending), events)
            self._pending.clear()
            start = at + 1
            if chunk[at] == 0x0D:
                if start == size:
                    self._after_cr = True
                elif chunk[start] == 0x0A:
                    start += 1
        if start < size:
            self._pending += chunk[start:]
            self._check()
        return events

    def _check(self) -> None:
        if self._held + len(self._pending) > self._cap:
            raise ResponseTooLarge(self._action, self._cap)

    def _line(self, raw: bytes, events: list[SseEvent]) -> None:
        if not raw:
            self._dispatch(events)
            return
        self._held += len(raw) + 1
        line = raw.decode("utf-8", "replace")
        if line.startswith(":"):
            return
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self.last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)

    def _dispatch(self, events: list[SseEvent]) -> None:
        if self._data:
            events.append(SseEvent("\n".join(self._data), self._event or "message",
                                   self.last_id, self._retry))
        self._data, self._event, self._held = [], "", 0
