"""The session's one history of calls, Design and Projects alike, whichever way they were
made (a magic, the inspector, Python): each call's arguments, its outcome in brief, its
full result (for a diff), its timing, and the HTTP trace's exchange numbers it made.

A `CallHistory` is an observer of both clients (`core.call_events.CallObserver`): the
session puts it in each client's `observers` as it builds them, and the clients tell it
when a call starts and ends, as httpx tells its event hooks about each request; nothing
is replaced on a client. A Design call that waits on a person stays "awaiting approval"
until its card is answered, and its time counts only the client's own work, never the
person's. The history lives in memory, the last `HISTORY_LIMIT` calls; plan tokens are
never shown (`shown_arguments`). It is the call history (`%design calls`), not the
journal of writes (`%project history`, `design.write_journal`). Calls are recorded on
the session's loop while the notebook's thread reads the history (`%design calls`): the
ring is changed and read under one lock, and readers take a copy.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import difflib
import json
import logging
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from typing import Any

log = logging.getLogger(__name__)

#: the calls the history keeps (the oldest go first)
HISTORY_LIMIT = 500
#: what a row's summary shows at most
SUMMARY_CHARS = 120
#: argument names whose values are capabilities, shown only as this mark
HIDDEN_ARGUMENTS = frozenset({"plan_token"})
HIDDEN = "[plan token]"
AWAITING, OK, FAILED = "awaiting approval", "ok", "error"


@dataclasses.dataclass
class CallRecord:
    n: int
    #: "design" or "project"
    tool: str
    operation: str
    arguments: dict[str, Any]
    started: str
    status: str = AWAITING
    summary: str = ""
    #: the client's own time in milliseconds (the call and each card's continuation)
    elapsed_ms: float = 0.0
    #: the result's data (a failure: the error's fields)
    result: Any = None
    error_kind: str | None = None
    #: the trace's exchanges this call made (numbers, first and last; None: none traced)
    exchanges: tuple[int, int] | None = None

    def row(self) -> dict[str, Any]:
        """The table's row: arguments as JSON with plan tokens hidden."""
        return {"n": self.n, "tool": self.tool, "operation": self.operation,
                "arguments": json.dumps(shown_arguments(self.arguments), ensure_ascii=False),
                "state": self.status, "summary": self.summary,
                "elapsed_ms": round(self.elapsed_ms, 1), "started": self.started,
                "exchanges": "" if self.exchanges is None else
                "{}–{}".format(*self.exchanges)}


def shown_arguments(arguments: Any) -> Any:
    """Arguments as they may be shown: every plan token replaced by its mark."""
    if isinstance(arguments, Mapping):
        return {k: HIDDEN if k in HIDDEN_ARGUMENTS else shown_arguments(v)
                for k, v in arguments.items()}
    if isinstance(arguments, list):
        return [shown_arguments(v) for v in arguments]
    return arguments


@dataclasses.dataclass(frozen=True)
class _Span:
    """One stretch of a client's own work on a call: its record, the trace's last
    exchange number and the timer when it began."""

    record: CallRecord
    mark: int | None
    began: float


class CallHistory:
    """The calls of one session, numbered from 1, newest last; an observer of both
    clients (`started`, `resumed`, `ended`)."""

    def __init__(self, *, limit: int = HISTORY_LIMIT,
                 clock: Callable[[], float] = time.time,
                 timer: Callable[[], float] = time.perf_counter,
                 trace_mark: Callable[[], int | None] = lambda: None) -> None:
        self._calls: collections.deque[CallRecord] = collections.deque(maxlen=limit)
        #: held while the ring changes and while a reader copies it
        self._lock = threading.Lock()
        self._numbered = 0
        self._clock = clock
        self._timer = timer
        #: the trace's last exchange number now (None: the trace is off)
        self._trace_mark = trace_mark
        #: the record a waiting card belongs to, by the pending object's id
        self._waiting: dict[int, tuple[Any, CallRecord]] = {}
        #: what is told of each change (`watch`): bound methods, held weakly
        self._watchers: list[weakref.WeakMethod] = []

    def watch(self, callback: Callable[[], Any]) -> None:
        """Call `callback()` after each change (a call begun, answered, settled), from
        whichever thread made it: a view that lists the calls stays current. A bound
        method, held weakly: a view that is gone stops being told."""
        self._watchers.append(weakref.WeakMethod(callback))  # type: ignore[arg-type]

    def _changed(self) -> None:
        live = []
        for ref in list(self._watchers):
            callback = ref()
            if callback is None:
                continue
            live.append(ref)
            try:
                callback()
            except Exception:  # a view's failure never fails the call it watches
                log.exception("a call history watcher failed")
        self._watchers = live

    def __len__(self) -> int:
        with self._lock:
            return len(self._calls)

    def records(self) -> list[CallRecord]:
        with self._lock:
            return list(self._calls)

    def rows(self) -> list[dict[str, Any]]:
        return [call.row() for call in self.records()]

    def get(self, n: int) -> CallRecord:
        """Call `n`; KeyError when the history does not hold it (never was, or dropped)."""
        for call in self.records():
            if call.n == n:
                return call
        raise KeyError(n)

    # ------------------------------------------------------------ recording

    def begin(self, tool: str, operation: str, arguments: Any) -> CallRecord:
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self._clock()))
        kept = copy.deepcopy(arguments) if isinstance(arguments, dict) else {}
        with self._lock:
            self._numbered += 1
            record = CallRecord(self._numbered, tool, str(operation), kept, started)
            self._calls.append(record)
        self._changed()
        return record

    # ------------------------------------------------------------ the clients' hook

    def started(self, tool: str, operation: str, arguments: Any) -> _Span:
        """A client began a call: a new record, its clock and trace mark started."""
        return self._span(self.begin(tool, operation, arguments))

    def resumed(self, pending: Any) -> _Span | None:
        """A card's answer continues a call: its record's clock runs again (None: a card
        this history never saw wait)."""
        record = self.waiting(pending)
        return None if record is None else self._span(record)

    def ended(self, span: _Span, result: Any = None, error: BaseException | None = None) -> None:
        """A client's call ended: its time and exchanges added, its result or error kept
        (a Design card waiting keeps the record awaiting its answer)."""
        record = span.record
        record.elapsed_ms += (self._timer() - span.began) * 1000
        after = self._trace_mark()
        if after is not None and after != (span.mark or 0):
            first = (span.mark or 0) + 1
            record.exchanges = (record.exchanges[0] if record.exchanges else first, after)
        if error is not None:
            self.failed(record, error)
        elif record.tool == "design":
            self.settle_design(record, result)
        else:
            self.succeeded(record, result)

    def _span(self, record: CallRecord) -> _Span:
        return _Span(record, self._trace_mark(), self._timer())

    def settle_design(self, record: CallRecord, result: Any) -> None:
        """A Design result: a card waiting (kept until answered) or the outcome."""
        from .approval import PendingApproval

        if isinstance(result, PendingApproval):
            record.status = AWAITING
            record.summary = f"awaiting the {getattr(result.request, 'kind', '')} card"
            self._waiting[id(result)] = (result, record)
            self._changed()
            return
        error = getattr(result, "error", None)
        if getattr(result, "is_error", False) or error is not None:
            self.failed(record, error, getattr(result, "data", None))
        else:
            self.succeeded(record, getattr(result, "data", None))

    def waiting(self, pending: Any) -> CallRecord | None:
        """The record a card answer continues (and forget the card)."""
        found = self._waiting.pop(id(pending), None)
        return found[1] if found is not None and found[0] is pending else None

    def succeeded(self, record: CallRecord, data: Any) -> None:
        record.status, record.result, record.error_kind = OK, data, None
        record.summary = summary_of(data)
        self._changed()

    def failed(self, record: CallRecord, error: Any, data: Any = None) -> None:
        record.status = FAILED
        record.error_kind = getattr(error, "kind", None) or "tool_error"
        fields = error.to_dict() if hasattr(error, "to_dict") else data
        record.result = fields
        record.summary = _cut(f"{record.error_kind}: {error}" if error is not None
                              else f"tool error: {summary_of(data)}")
        self._changed()


def summary_of(data: Any) -> str:
    """A result in a few words: how many items, its keys, or the start of its text."""
    if isinstance(data, list):
        return f"{len(data)} item(s)"
    if isinstance(data, Mapping):
        return _cut("{" + ", ".join(map(str, data)) + "}")
    if isinstance(data, str):
        return _cut(" ".join(data.split()))
    return _cut(repr(data))


def _cut(text: str) -> str:
    return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS - 1] + "…"


def diff(first: CallRecord, second: CallRecord) -> str:
    """A unified diff of two calls' results as indented JSON (plan tokens hidden)."""
    def lines(call: CallRecord) -> list[str]:
        text = json.dumps(shown_arguments(call.result), indent=2, sort_keys=True,
                          ensure_ascii=False, default=str)
        return text.splitlines()

    return "\n".join(difflib.unified_diff(lines(first), lines(second),
                                          f"#{first.n} {first.operation}",
                                          f"#{second.n} {second.operation}", lineterm=""))
