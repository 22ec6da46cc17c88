"""The stores the session's background loop records into — the HTTP trace (and the secrets
it saw in the traffic), the call history, the notifications, the sign-in record — read
from another thread (the notebook's) while many calls record: no read ever fails
(`deque mutated during iteration`, `dictionary changed size during iteration`), and every
row read is whole. Bounded by a deadline; nothing here asserts a timing."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from jupyter_design_projects.core.notifications import NotificationStore
from jupyter_design_projects.design.call_history import CallHistory
from jupyter_design_projects.transport.http import make_client, send
from jupyter_design_projects.transport.loop import BackgroundLoop
from jupyter_design_projects.transport.sign_in_record import SignInRecord
from jupyter_design_projects.transport.trace import HttpTrace

#: the whole test gives up after this long (it normally takes a fraction of it)
DEADLINE_S = 60.0
CALLS = 400
AT_ONCE = 16


@pytest.fixture
def busy_switching() -> Iterator[None]:
    """Threads switch as often as CPython allows, so a reader lands mid-change often."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def read_until(done: threading.Event, read: Callable[[], None]) -> int:
    """Call `read` over and over until `done` is set (or the deadline passes): how many
    times it ran. Any exception it raises fails the test."""
    deadline = time.monotonic() + DEADLINE_S
    reads = 0
    while not done.is_set():
        assert time.monotonic() < deadline, "the recording calls never finished"
        read()
        reads += 1
    read()
    return reads + 1


def test_the_trace_can_be_read_while_many_calls_record(busy_switching):
    trace = HttpTrace(True, tuple, limit=5)

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"ok": True, "plan_token": f"pt-{request.url.path}-x"})

    loop = BackgroundLoop("trace-load")
    done = threading.Event()

    async def record() -> None:
        async with make_client(transport=httpx.MockTransport(answer),
                               event_hooks=trace.event_hooks()) as client:
            async def one(n: int) -> None:
                await send(client, "POST", f"https://api.example/call/{n}", action="load",
                           max_bytes=10_000, deadline_s=30, json={"n": n})

            for start in range(0, CALLS, AT_ONCE):
                await asyncio.gather(*(one(n) for n in range(start, start + AT_ONCE)))

    future = loop.submit(record())
    future.add_done_callback(lambda _: done.set())
    limits = iter([3, 7, 5] * 10_000)

    def read() -> None:
        for row in trace.records():
            assert row["n"] >= 1 and "_marks" not in row and "response_body" in row
        assert trace.dropped >= 0 and len(trace.seen_secrets()) <= 64
        if trace.dropped % 7 == 0:
            trace.resize(next(limits))

    try:
        reads = read_until(done, read)
        future.result(timeout=DEADLINE_S)
    finally:
        loop.close()
    rows = trace.records()
    assert reads > 1
    assert [row["n"] for row in rows] == sorted(row["n"] for row in rows)
    assert rows[-1]["n"] == CALLS and rows[-1]["status"] == 200
    assert trace.dropped == CALLS - len(rows)
    assert len(trace.seen_secrets()) == 64  # every plan token went by; the newest 64 kept


def test_the_call_history_can_be_read_while_many_calls_record(busy_switching):
    history = CallHistory(limit=7)
    done = threading.Event()

    def record() -> None:
        for n in range(CALLS * 5):
            call = history.begin("design", "get_file", {"path": f"f{n}"})
            history.succeeded(call, {"n": n})
        done.set()

    writer = threading.Thread(target=record)
    writer.start()

    def read() -> None:
        for row in history.rows():
            assert row["n"] >= 1
        held = history.records()
        if held:
            newest = held[-1].n
            try:
                assert history.get(newest).n == newest
            except KeyError:
                # the writer may drop it between the two reads: only then is it missing
                assert history.records()[0].n > newest

    try:
        read_until(done, read)
    finally:
        writer.join(DEADLINE_S)
    assert [r.n for r in history.records()] == list(range(CALLS * 5 - 6, CALLS * 5 + 1))


def test_notifications_and_sign_in_steps_can_be_read_while_recorded(busy_switching):
    # the notification stream hands its store a lock, as here
    store, steps = NotificationStore(kept=9, guard=threading.Lock()), SignInRecord(lambda: 0)
    done = threading.Event()

    def record() -> None:
        for n in range(CALLS * 5):
            store.add({"kind": "log", "data": n})
            steps.add("refresh", True, f"refresh {n}")
        done.set()

    writer = threading.Thread(target=record)
    writer.start()

    def read() -> None:
        assert all(r["n"] >= 1 for r in store.records())
        assert store.dropped >= 0 and len(store) <= 9
        assert all(step.kind == "refresh" for step in steps.steps())

    try:
        read_until(done, read)
    finally:
        writer.join(DEADLINE_S)
    assert [r["data"] for r in store.records()] == list(range(CALLS * 5 - 9, CALLS * 5))
    assert steps.steps()[-1].summary == f"refresh {CALLS * 5 - 1}"
