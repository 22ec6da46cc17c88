"""The session's one history of calls, Design and Projects alike, whichever way they were
made (a magic, the inspector, Python): each call's arguments, its outcome in brief, its
full result (for a diff), its timing, and the HTTP trace's exchange numbers it made.

`record_design` / `record_projects` put a client's entry points on the record (the
session applies them as it builds each client); a Design call that waits on a person
stays "awaiting approval" until its card is answered, and its time counts only the
client's own work, never the person's. The history lives in memory, the last
`HISTORY_LIMIT` calls; plan tokens are never shown (`shown_arguments`).
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import difflib
import inspect
import json
import logging
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


class CallHistory:
    """The calls of one session, numbered from 1, newest last."""

    def __init__(self, *, limit: int = HISTORY_LIMIT,
                 clock: Callable[[], float] = time.time,
                 timer: Callable[[], float] = time.perf_counter,
                 trace_mark: Callable[[], int | None] = lambda: None) -> None:
        self._calls: collections.deque[CallRecord] = collections.deque(maxlen=limit)
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
        return len(self._calls)

    def records(self) -> list[CallRecord]:
        return list(self._calls)

    def rows(self) -> list[dict[str, Any]]:
        return [call.row() for call in self._calls]

    def get(self, n: int) -> CallRecord:
        """Call `n`; KeyError when the history does not hold it (never was, or dropped)."""
        for call in self._calls:
            if call.n == n:
                return call
        raise KeyError(n)

    # ------------------------------------------------------------ recording

    def begin(self, tool: str, operation: str, arguments: Any) -> CallRecord:
        self._numbered += 1
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self._clock()))
        record = CallRecord(self._numbered, tool, str(operation),
                            copy.deepcopy(arguments) if isinstance(arguments, dict) else {},
                            started)
        self._calls.append(record)
        self._changed()
        return record

    async def timed(self, record: CallRecord, work: Any) -> Any:
        """Await `work`, adding its time to the record's, and note the exchanges made."""
        mark, began = self._trace_mark(), self._timer()
        try:
            return await work
        finally:
            record.elapsed_ms += (self._timer() - began) * 1000
            after = self._trace_mark()
            if after is not None and after != (mark or 0):
                first = (mark or 0) + 1
                record.exchanges = (record.exchanges[0] if record.exchanges else first, after)

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


# ---------------------------------------------------------------- the clients on record


def record_design(client: Any, history: CallHistory) -> None:
    """Put a DesignClient's `call` and `resume` on the record (on this instance)."""
    call, resume = client.call, client.resume

    async def recorded_call(operation: str, arguments: dict, **options: Any) -> Any:
        if operation == "list":  # the catalogue, not an operation of the service
            return await call(operation, arguments, **options)
        record = history.begin("design", operation, arguments)
        result = await history.timed(record, call(operation, arguments, **options))
        history.settle_design(record, result)
        return result

    async def recorded_resume(pending: Any, **options: Any) -> Any:
        record = history.waiting(pending)
        if record is None:
            return await resume(pending, **options)
        result = await history.timed(record, resume(pending, **options))
        history.settle_design(record, result)
        return result

    client.call, client.resume = recorded_call, recorded_resume


def record_projects(client: Any, history: CallHistory,
                    methods: tuple[str, ...] = ("info", "read", "search", "write",
                                                "delete")) -> None:
    """Put a ProjectsClient's five methods on the record (on this instance): its `call`
    dispatcher, the magics and the `session.project` facade all reach them. A change a
    card approved is sent by `write_exact` / `delete_exact` (`projects.change.perform`):
    it is recorded as the write or delete it is, with the arguments a person gave."""
    for name in methods:
        _record_method(client, name, history)
    if hasattr(client, "write_exact"):  # a ProjectsClient (test doubles may have only five)
        _record_method(client, "write_exact", history, as_name="write",
                       kept=("path", "content"))
        _record_method(client, "delete_exact", history, as_name="delete", kept=("path",))


def _record_method(client: Any, name: str, history: CallHistory, *, as_name: str = "",
                   kept: tuple[str, ...] = ()) -> None:
    method = getattr(client, name)
    signature = inspect.signature(method)

    async def recorded(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs).arguments
        except TypeError:
            bound = dict(kwargs)
        shown = {k: v for k, v in bound.items() if v is not None and (not kept or k in kept)}
        record = history.begin("project", as_name or name, shown)
        try:
            data = await history.timed(record, method(*args, **kwargs))
        except Exception as error:
            history.failed(record, error)
            raise
        history.succeeded(record, data)
        return data

    setattr(client, name, recorded)
