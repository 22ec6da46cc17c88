"""The call history without a service: records made as the clients call their hook
(`core.call_events`), a call waiting on its card settled by the card's answer, failures,
timing from an injected timer, the trace's exchange numbers, plan tokens hidden, the
ring's limit, and the diff. The real clients call the hook and keep their own methods."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from jupyter_design_projects.core import call_events
from jupyter_design_projects.core.cards import ApprovalRequest
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.call_history import (
    HIDDEN,
    CallHistory,
    diff,
    shown_arguments,
)
from jupyter_design_projects.errors import GateClosed, InvalidProjectsArgument
from tests.fakes.design import P1, client_for, write
from tests.fakes.design import FakeDesign as Service


class Ticks:
    """A timer that moves 5 ms at each reading, and a trace mark the test sets."""

    def __init__(self) -> None:
        self.now = 0.0
        self.mark: int | None = 0

    def timer(self) -> float:
        self.now += 0.005
        return self.now


class FakeDesign:
    """Calls its observers as `DesignClient.call` / `resume` do (`core.call_events`)."""

    def __init__(self, ticks: Ticks, history: CallHistory) -> None:
        self.ticks = ticks
        self.pending: Any = None
        self.observers = [history]

    async def call(self, operation: str, arguments: dict, **_: Any) -> Any:
        if operation == "list":  # the client answers its own `list` without the hook
            return DesignOutcome.of_data(operation, {})
        tokens = call_events.started(self.observers, "design", operation, arguments)
        self.ticks.mark = (self.ticks.mark or 0) + 2
        if operation == "write_files":
            self.pending = make_pending(operation)
            result: Any = self.pending
        else:
            result = DesignOutcome.of_data(operation, [1, 2, 3])
        call_events.ended(tokens, result)
        return result

    async def resume(self, pending: Any, **_: Any) -> Any:
        tokens = call_events.resumed(self.observers, pending)
        self.ticks.mark = (self.ticks.mark or 0) + 1
        result = DesignOutcome.of_data(pending.operation, {"written": ["a.html"]})
        call_events.ended(tokens, result)
        return result


def make_pending(operation: str) -> PendingApproval:
    request = ApprovalRequest(kind="grant", operation=operation, title="Write?")
    return PendingApproval(request=request, operation=operation, arguments={})


@pytest.fixture
def ticks() -> Ticks:
    return Ticks()


@pytest.fixture
def history(ticks: Ticks) -> CallHistory:
    return CallHistory(limit=3, clock=lambda: 0.0, timer=ticks.timer,
                       trace_mark=lambda: ticks.mark)


def test_shown_arguments_hide_every_plan_token_at_any_depth() -> None:
    shown = shown_arguments({"plan_token": "pt", "files": [{"plan_token": "x", "p": 1}]})
    assert shown == {"plan_token": HIDDEN, "files": [{"plan_token": HIDDEN, "p": 1}]}


def test_a_read_is_recorded_with_its_summary_time_and_exchanges(history, ticks) -> None:
    client = FakeDesign(ticks, history)
    asyncio.run(client.call("list_projects", {"limit": 3}))
    (row,) = history.rows()
    assert (row["operation"], row["state"], row["summary"]) == ("list_projects", "ok",
                                                                  "3 item(s)")
    assert row["elapsed_ms"] == 5.0
    assert row["exchanges"] == "1–2"
    assert history.get(1).result == [1, 2, 3]


def test_a_call_waits_on_its_card_and_its_answer_settles_it(history, ticks) -> None:
    client = FakeDesign(ticks, history)
    pending = asyncio.run(client.call("write_files", {"plan_token": "pt_1"}))
    assert history.rows()[0]["state"] == "awaiting approval"
    assert history.rows()[0]["arguments"] == '{"plan_token": "[plan token]"}'
    asyncio.run(client.resume(pending, approved=True))
    (row,) = history.rows()
    assert (row["state"], row["summary"]) == ("ok", "{written}")
    assert row["elapsed_ms"] == 10.0  # the call and the continuation, not the wait
    assert row["exchanges"] == "1–3"
    assert history.get(1).arguments == {"plan_token": "pt_1"}  # kept for a replay


def test_a_card_the_history_never_saw_is_continued_and_not_recorded(history, ticks) -> None:
    client = FakeDesign(ticks, history)
    result = asyncio.run(client.resume(make_pending("write_files"), approved=True))
    assert result.data == {"written": ["a.html"]}
    assert len(history) == 0


def test_with_the_trace_off_no_exchanges_are_named(ticks) -> None:
    history = CallHistory(timer=ticks.timer, trace_mark=lambda: None)
    span = history.started("design", "get_project", {})
    history.ended(span, DesignOutcome.of_data("get_project", {}))
    record = history.get(1)
    assert record.exchanges is None
    assert history.rows()[0]["exchanges"] == ""


def test_the_catalogue_is_not_a_call(history, ticks) -> None:
    client = FakeDesign(ticks, history)
    asyncio.run(client.call("list", {}))
    assert len(history) == 0


def test_a_projects_failure_is_recorded_and_raised(history) -> None:
    class FakeProjects:
        def __init__(self) -> None:
            self.observers = [history]

        @call_events.observed("project")
        async def read(self, path: str) -> dict:
            raise InvalidProjectsArgument("read", "path", "is empty")

        @call_events.observed("project")
        async def search(self, query: str, n: int = 5) -> dict:
            return {"hits": []}

        @call_events.observed("project", "write", kept=("path",))
        async def write_exact(self, path: str, content: str, *, guard: Any = None) -> dict:
            return {"path": path}

    client = FakeProjects()
    with pytest.raises(InvalidProjectsArgument):
        asyncio.run(client.read(""))
    asyncio.run(client.search("q"))
    asyncio.run(client.write_exact("a.md", "text", guard=object()))
    first, second, third = history.records()
    assert (first.status, first.error_kind, first.arguments) == ("error",
                                                                 "invalid_projects_argument",
                                                                 {"path": ""})
    assert (second.operation, second.arguments, second.summary) == ("search", {"query": "q"},
                                                                    "{hits}")
    assert (third.operation, third.arguments) == ("write", {"path": "a.md"})
    assert "observers" not in vars(type(client).read)  # a method of the class, not replaced


def test_a_client_with_no_observers_runs_its_method_as_it_is() -> None:
    class Quiet:
        observers: list = []

        @call_events.observed("project")
        async def info(self) -> dict:
            return {"ok": True}

    assert asyncio.run(Quiet().info()) == {"ok": True}


def test_the_design_client_tells_its_observers_and_keeps_its_own_methods(history) -> None:
    client = client_for(Service())
    client.observers.append(history)
    methods = (client.call, client.resume)

    async def run() -> None:
        await client.call("list", {})  # the client's own: not a call of the service
        pending = await client.call("write_files", write())
        assert history.rows()[-1]["state"] == "awaiting approval"
        await client.resume(pending, approved=True)

    asyncio.run(run())
    assert "call" not in vars(client) and "resume" not in vars(client)
    assert (client.call, client.resume) == methods
    assert [(r.operation, r.status) for r in history.records()] == [("write_files", "ok")]


def test_the_ring_keeps_the_last_calls_and_their_numbers(history) -> None:
    for name in ("a", "b", "c", "d"):
        history.succeeded(history.begin("design", name, {}), None)
    assert [r["n"] for r in history.rows()] == [2, 3, 4]
    with pytest.raises(KeyError):
        history.get(1)


def test_a_diff_shows_the_changed_lines_and_nothing_for_equal_results(history) -> None:
    first, second = (history.begin("design", "list_files", {}) for _ in range(2))
    history.succeeded(first, [{"path": "a"}])
    history.succeeded(second, [{"path": "a"}, {"path": "b"}])
    changed = diff(first, second).splitlines()
    assert '+    "path": "b"' in changed
    assert diff(first, first) == ""


def test_a_call_a_closed_gate_stopped_is_an_error_in_the_history(history) -> None:
    client = client_for(Service(), allow_design_sync=False)
    client.observers.append(history)
    with pytest.raises(GateClosed):
        asyncio.run(client.call("list_files", {"project_id": P1}))
    (record,) = history.records()
    assert (record.operation, record.status, record.error_kind) == (
        "list_files", "error", GateClosed.kind)
