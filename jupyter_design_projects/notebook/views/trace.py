"""`%design trace`: the HTTP trace as a table, switched on or off, cleared, written as a
HAR file, or one exchange printed as a curl command.

    %design trace              the table, newest first (its `.to_har()` is the HAR)
    %design trace on | off     record from now on, or stop (at any time)
    %design trace --clear      forget the recorded exchanges and notifications
    %design trace --har PATH   write the trace as HAR 1.2 (core/har.py builds it)
    %design trace --curl [N]   exchange N (default: the last) as a curl command

The HAR and the curl command are built by pure functions in `core/`; this module reads
the session's trace, writes the file and words the outcome.

Beside the exchanges, the table shows the Design session's notifications and log messages
(a second table, `notifications`: `design.notification_stream`), and `on` or a look at the
table opens that event stream when a Design session exists (never starting one). The HAR
holds HTTP exchanges only: the stream's GET is one of them, the notifications it carried
are left out, and the file's comment and the outcome say how many.
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...core.curl import curl_command, curl_notes
from ...core.har import har_log
from ...errors import BadCommand, TraceUnavailable
from ...private_files import replace_private
from .outcome import Outcome

#: the name HAR files give as their creator (the distribution's name)
CREATOR = "jupyter-design-projects"
LIMIT_SETTING = "DesignProjects.trace_limit"


def package_version() -> str:
    """This distribution's version, from its installed metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(CREATOR)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


class TraceOutcome(Outcome):
    """The trace table; `.to_har()` is the same exchanges as a HAR document."""

    def __init__(self, records: Sequence[Mapping[str, Any]], *, dropped: int = 0,
                 notice: str | None = None,
                 notifications: Sequence[Mapping[str, Any]] = ()) -> None:
        rows = [dict(r) for r in reversed(records)]
        tables = {"trace": rows}
        if notifications:
            tables["notifications"] = [_note_row(n) for n in reversed(notifications)]
        super().__init__("design trace", rows, tables=tables, notice=notice)
        self._records = [dict(r) for r in records]
        self.dropped = dropped
        #: the notifications shown beside the exchanges (oldest first), not in the HAR
        self.notifications = [dict(n) for n in notifications]

    def to_har(self) -> dict[str, Any]:
        """The exchanges as HAR 1.2 (`{"log": …}`), oldest first, redacted as the table.
        The notifications are not HTTP exchanges: the log's comment counts them."""
        document = har_log(self._records, creator=CREATOR, version=package_version(),
                           dropped=self.dropped)
        if self.notifications:
            document["log"]["comment"] += (
                f" {len(self.notifications)} notification(s) the Design session's event "
                "stream carried are not entries (its GET is); "
                "session.design_notifications() has them.")
        return document


def _note_row(record: Mapping[str, Any]) -> dict[str, Any]:
    """A notification as a table row: its data as compact JSON text."""
    data = record.get("data")
    return {"n": record.get("n"), "time": record.get("time"), "kind": record.get("kind"),
            "method": record.get("method"), "level": record.get("level"),
            "logger": record.get("logger"),
            "data": data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)}


def notifications_of(session: Any, *, listen: bool) -> Any:
    """The session's notification stream (opened first when `listen`, on a Design session
    that exists), or None for a session that has none."""
    if session is None or not hasattr(session, "notifications"):
        return None
    if listen:
        session.notifications.listen(open_session=False)
    return session.notifications.stream


class CurlOutcome(Outcome):
    """One exchange as a curl command, shown whole (never shortened) so it can be copied."""

    def __init__(self, n: int, command: str, notes: list[str]) -> None:
        super().__init__(f"design trace --curl {n}", {"n": n, "command": command,
                                                       "notes": notes})
        self.command = command

    def _text(self) -> str:
        return "\n".join([*(f"# {note}" for note in self.data["notes"]), self.command])

    def _html(self) -> str:
        notes = "".join(f"<div>{html.escape(n)}</div>" for n in self.data["notes"])
        return (f'<div class="jdp-outcome">{notes}<pre style="white-space:pre-wrap">'
                f"{html.escape(self.command)}</pre></div>")


def trace_command(trace: Any, args: Mapping[str, Any], session: Any = None) -> Outcome:
    """Run one `%design trace` line on the session's trace (`transport.trace.HttpTrace`);
    `session` gives the notifications (`notifications_of`)."""
    chosen = [name for name in ("switch", "clear", "har", "curl")
              if args.get(name) not in (None, False)]
    if len(chosen) > 1:
        raise BadCommand("design trace", "give one of on, off, --clear, --har, --curl")
    if args.get("switch") is not None:
        on = args["switch"] == "on"
        stream = notifications_of(session, listen=on)
        return _switch(trace, on, stream)
    if args.get("clear"):
        return _clear(trace, notifications_of(session, listen=False))
    if args.get("har") is not None:
        return write_har(trace, args["har"], notifications_of(session, listen=False))
    if args.get("curl") is not None:
        return curl_outcome(trace, args["curl"])
    return table(trace, notifications_of(session, listen=True))


def _clear(trace: Any, stream: Any = None) -> Outcome:
    """Forget the recorded exchanges, and the notifications kept beside them (the stream
    goes on listening)."""
    count = trace.held
    trace.clear()
    if stream is None:
        return Outcome("design trace --clear", {"cleared": count},
                       body=f"Cleared {count} exchange(s) from the HTTP trace.")
    heard = len(stream.store)
    stream.store.clear()
    return Outcome("design trace --clear", {"cleared": count, "notifications": heard},
                   body=f"Cleared {count} exchange(s) from the HTTP trace and {heard} "
                        "notification(s).")


def _ring(trace: Any) -> str:
    """How much the trace keeps, and how much it let go."""
    words = f"It keeps the last {trace.limit:,} exchanges ({LIMIT_SETTING})"
    return words + (f"; {trace.dropped:,} older one(s) dropped." if trace.dropped else ".")


def table(trace: Any, stream: Any = None) -> TraceOutcome:
    """The trace as a table, newest first, with a notice when it is off or dropped some;
    and the notifications `stream` kept, with what it is doing."""
    records = trace.records()
    on = getattr(trace, "enabled", True)
    dropped = getattr(trace, "dropped", 0)
    notes = []
    if not records:
        notes.append("No HTTP exchange recorded yet." if on else
                     "No HTTP trace recorded: tracing is off. Run %design trace on, then the "
                     "calls to look at.")
    elif not on:
        notes.append("Tracing is off (%design trace on to record again).")
    if dropped:
        notes.append(_ring(trace))
    notifications = stream.records() if stream is not None else []
    if stream is not None:
        notes.append(_stream_words(stream, len(notifications)))
    return TraceOutcome(records, dropped=dropped, notice=" ".join(notes) or None,
                        notifications=notifications)


def _stream_words(stream: Any, count: int) -> str:
    """What the notification stream is doing, and how much it kept and dropped."""
    dropped = stream.store.dropped
    return (f"Notifications: {count} kept ({stream.status})"
            + (f"; {dropped:,} older one(s) dropped ({stream.store.dropped_words()})"
               if dropped else "") + ".")


def _switch(trace: Any, on: bool, stream: Any = None) -> Outcome:
    trace.enabled = on
    words = (f"on: every exchange from now on is recorded, redacted. {_ring(trace)}" if on
             else "off: nothing more is recorded (what was recorded stays).")
    if on and stream is not None:
        words += f" {_stream_words(stream, len(stream.store))}"
    return Outcome(f"design trace {'on' if on else 'off'}", {"enabled": on},
                   body=f"HTTP trace {words}")


def _records_or_refuse(trace: Any, what: str) -> list[dict[str, Any]]:
    records = trace.records()
    if records:
        return records
    if not getattr(trace, "enabled", True):
        raise TraceUnavailable("trace_off", f" to {what}")
    raise TraceUnavailable("no_exchanges", f" to {what}")


def write_har(trace: Any, path: str, stream: Any = None) -> Outcome:
    """Write the trace as HAR 1.2 at `path`: a new 0600 file, or the one there replaced
    whole and atomically, never written through a symlink (`private_files`). The
    notifications of `stream` are not entries: the file's comment and the line count them."""
    records = _records_or_refuse(trace, "write")
    target = Path(os.path.expanduser(path))
    if not target.parent.is_dir():
        raise TraceUnavailable("no_folder", str(target))
    notifications = stream.records() if stream is not None else []
    document = TraceOutcome(records, dropped=getattr(trace, "dropped", 0),
                            notifications=notifications).to_har()
    try:  # only its owner reads it: redacted, but it holds the project's traffic
        replace_private(target, json.dumps(document, ensure_ascii=False, indent=1))
    except OSError as exc:
        raise TraceUnavailable("not_writable", f"{target} ({exc.strerror})") from None
    count = len(document["log"]["entries"])
    return Outcome("design trace --har", {"path": str(target), "entries": count},
                   body=f"Wrote {count} exchange(s) to {target} (HAR 1.2; credentials "
                        "redacted). Open it in a browser's DevTools Network panel (Import "
                        "HAR), mitmproxy, Charles or Insomnia."
                        + (f" The {len(notifications)} notification(s) of the Design "
                           "session are not in it (HAR holds HTTP exchanges)."
                           if notifications else ""))


def curl_outcome(trace: Any, n: int | str) -> CurlOutcome:
    """Exchange `n` ("last": the last one) as a curl command."""
    records = _records_or_refuse(trace, "show")
    numbered = {int(r.get("n", i + 1)): r for i, r in enumerate(records)}
    n = max(numbered) if n == "last" else int(n)
    record = numbered.get(n)
    if record is None:
        held = f"{min(numbered)}–{max(numbered)}" if len(numbered) > 1 else str(min(numbered))
        raise TraceUnavailable("out_of_range", f"{n}: the trace holds exchanges {held}")
    return CurlOutcome(n, curl_command(record), curl_notes(record))


def apply_live(session: Any, settings: Any) -> None:
    """The trace's settings that apply at once (`http_trace`, `trace_limit`), applied to an
    open session where they changed: its trace follows them (a `%design trace on|off` in
    between stands until the setting itself changes)."""
    before = session.settings
    if settings.http_trace != before.http_trace:
        session.trace.enabled = settings.http_trace
    if settings.trace_limit != before.trace_limit:
        session.trace.resize(settings.trace_limit)
    session.settings = dataclasses.replace(before, http_trace=settings.http_trace,
                                           trace_limit=settings.trace_limit)
