"""The call history without a service: records made at the clients' entry points, a call
waiting on its card settled by the card's answer, failures, timing from an injected timer,
the trace's exchange numbers, plan tokens hidden, the ring's limit, and the diff."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from jupyter_design_projects.core.cards import ApprovalRequest
from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from jupyter_design_projects.design.call_history import (
    HIDDEN,
    CallHistory,
    diff,
    record_design,
    record_projects,
    shown_arguments,
)
from jupyter_design_projects.errors import InvalidProjectsArgument


class Ticks:
    """A timer that moves 5 ms at each reading, and a trace mark the test sets."""

    def __init__(self) -> None:
        self.now = 0.0
        self.mark: int | None = 0

    def timer(self) -> float:
        self.now += 0.005
        return self.now


class FakeDesign:
    def __init__(self, ticks: Ticks) -> None:
        self.ticks = ticks
        self.pending: Any = None

    async def call(self, operation: str, arguments: dict, **_: Any) -> Any:
        self.ticks.mark = (self.ticks.mark or 0) + 2
        if operation == "write_files":
            self.pending = make_pending(operation)
            return self.pending
        return DesignOutcome.of_data(operation, [1, 2, 3])

    async def resume(self, pending: Any, **_: Any) -> Any:
        self.ticks.mark = (self.ticks.mark or 0) + 1
        return DesignOutcome.of_data(pending.operation, {"written": ["a.html"]})


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
    client = FakeDesign(ticks)
    record_design(client, history)
    asyncio.run(client.call("list_projects", {"limit": 3}))
    (row,) = history.rows()
    assert (row["operation"], row["state"], row["summary"]) == ("list_projects", "ok",
                                                                  "3 item(s)")
    assert row["elapsed_ms"] == 5.0
    assert row["exchanges"] == "1–2"
    assert history.get(1).result == [1, 2, 3]


def test_a_call_waits_on_its_card_and_its_answer_settles_it(history, ticks) -> None:
    client = FakeDesign(ticks)
    record_design(client, history)
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
    client = FakeDesign(ticks)
    record_design(client, history)
    result = asyncio.run(client.resume(make_pending("write_files"), approved=True))
    assert result.data == {"written": ["a.html"]}
    assert len(history) == 0


def test_with_the_trace_off_no_exchanges_are_named(ticks) -> None:
    history = CallHistory(timer=ticks.timer, trace_mark=lambda: None)
    record = history.begin("design", "get_project", {})
    asyncio.run(history.timed(record, asyncio.sleep(0)))
    assert record.exchanges is None
    assert history.rows()[0]["exchanges"] == ""


def test_the_catalogue_is_not_a_call(history, ticks) -> None:
    client = FakeDesign(ticks)
    record_design(client, history)
    asyncio.run(client.call("list", {}))
    assert len(history) == 0


def test_a_projects_failure_is_recorded_and_raised(history) -> None:
    class FakeProjects:
        async def read(self, path: str) -> dict:
            raise InvalidProjectsArgument("read", "path", "is empty")

        async def search(self, query: str, n: int = 5) -> dict:
            return {"hits": []}

    client = FakeProjects()
    record_projects(client, history, methods=("read", "search"))
    with pytest.raises(InvalidProjectsArgument):
        asyncio.run(client.read(""))
    asyncio.run(client.search("q"))
    first, second = history.records()
    assert (first.status, first.error_kind, first.arguments) == ("error",
                                                                 "invalid_projects_argument",
                                                                 {"path": ""})
    assert (second.operation, second.arguments, second.summary) == ("search", {"query": "q"},
                                                                    "{hits}")


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
