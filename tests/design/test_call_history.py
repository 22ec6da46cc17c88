"""The call history without a service: records made as the clients call their hook
(`core.call_events`), a call waiting on its card settled by the card's answer, failures,
timing from an injected timer, the trace's exchange numbers, plan tokens hidden, the
ring's limit, and the diff. The real clients call the hook and keep their own methods."""

from __future__ import annotations

import asyncio

import pytest

from jupyter_design_projects.core import call_events
from jupyter_design_projects.design.approval import DesignOutcome
from jupyter_design_projects.design.call_history import (
    HIDDEN,
    CallHistory,
    diff,
    shown_arguments,
)
from jupyter_design_projects.errors import GateClosed, InvalidProjectsArgument
from tests.fakes.design import P1, FakeDesign, client_for, write
from tests.fakes.session import DesignStandIn, ProjectsStandIn, outcome, pending


class Ticks:
    """A timer that moves 5 ms at each reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def timer(self) -> float:
        self.now += 0.005
        return self.now


@pytest.fixture
def ticks() -> Ticks:
    return Ticks()


@pytest.fixture
def client() -> DesignStandIn:
    """The Design client's stand-in: a read answers three items, a write waits on its
    card, and the card's answer writes one file."""
    stand_in = DesignStandIn()
    stand_in.script = [outcome("list_projects", [1, 2, 3])]
    stand_in.after = [outcome("write_files", {"written": ["a.html"]})]
    return stand_in


@pytest.fixture
def history(ticks: Ticks, client: DesignStandIn) -> CallHistory:
    """The history the stand-in tells, its exchanges numbered as the trace would."""
    history = CallHistory(limit=3, clock=lambda: 0.0, timer=ticks.timer,
                          trace_mark=lambda: client.exchanges)
    client.observers.append(history)
    return history


def test_shown_arguments_hide_every_plan_token_at_any_depth() -> None:
    shown = shown_arguments({"plan_token": "pt", "files": [{"plan_token": "x", "p": 1}]})
    assert shown == {"plan_token": HIDDEN, "files": [{"plan_token": HIDDEN, "p": 1}]}


def test_a_read_is_recorded_with_its_summary_time_and_exchanges(history, client) -> None:
    asyncio.run(client.call("list_projects", {"limit": 3}))
    (row,) = history.rows()
    assert (row["operation"], row["state"], row["summary"]) == ("list_projects", "ok",
                                                                  "3 item(s)")
    assert row["elapsed_ms"] == 5.0
    assert row["exchanges"] == "1–2"
    assert history.get(1).result == [1, 2, 3]


def test_a_call_waits_on_its_card_and_its_answer_settles_it(history, client) -> None:
    client.script = [pending("grant")]
    pending_call = asyncio.run(client.call("write_files", {"plan_token": "pt_1"}))
    assert history.rows()[0]["state"] == "awaiting approval"
    assert history.rows()[0]["arguments"] == '{"plan_token": "[plan token]"}'
    asyncio.run(client.resume(pending_call, approved=True))
    (row,) = history.rows()
    assert (row["state"], row["summary"]) == ("ok", "{written}")
    assert row["elapsed_ms"] == 10.0  # the call and the continuation, not the wait
    assert row["exchanges"] == "1–3"
    assert history.get(1).arguments == {"plan_token": "pt_1"}  # kept for a replay


def test_a_card_the_history_never_saw_is_continued_and_not_recorded(history, client) -> None:
    result = asyncio.run(client.resume(pending("grant"), approved=True))
    assert result.data == {"written": ["a.html"]}
    assert len(history) == 0


def test_with_the_trace_off_no_exchanges_are_named(ticks) -> None:
    history = CallHistory(timer=ticks.timer, trace_mark=lambda: None)
    span = history.started("design", "get_project", {})
    history.ended(span, DesignOutcome.of_data("get_project", {}))
    record = history.get(1)
    assert record.exchanges is None
    assert history.rows()[0]["exchanges"] == ""


def test_the_catalogue_is_not_a_call(history, client) -> None:
    asyncio.run(client.call("list", {}))
    assert len(history) == 0


def test_a_projects_failure_is_recorded_and_raised(history) -> None:
    client = ProjectsStandIn(observers=[history])
    client.answers.update({"read": InvalidProjectsArgument("read", "path", "is empty"),
                           "search": {"hits": []}, "write": {"path": "a.md"}})
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
    client = client_for(FakeDesign())
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
    client = client_for(FakeDesign(), allow_design_sync=False)
    client.observers.append(history)
    with pytest.raises(GateClosed):
        asyncio.run(client.call("list_files", {"project_id": P1}))
    (record,) = history.records()
    assert (record.operation, record.status, record.error_kind) == (
        "list_files", "error", GateClosed.kind)
