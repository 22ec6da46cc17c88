"""A sync run's progress and its interruption, against the real reference service: the
progress callback hears each write when its answer came back (items and bytes of the
plan's writes, re-planned paths dropped from what is left), and an interrupt of the
waiting thread (KeyboardInterrupt, as the kernel's interrupt raises) stops the run after
the write in flight — written, not written and the journal say exactly that, and a rerun
finishes the rest."""

from __future__ import annotations

import signal
import threading
import uuid
from pathlib import Path

import pytest

from jupyter_design_projects.core.batch_progress import BatchProgress
from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.projects.journal import Journal
from jupyter_design_projects.projects.stoppable import run_stoppable
from jupyter_design_projects.projects.sync import (
    SyncRequest,
    apply_sync,
    plan_sync,
    run_sync,
)
from jupyter_design_projects.projects.sync_run import GROUP_WRITES
from jupyter_design_projects.projects.sync_state import SyncState
from jupyter_design_projects.transport.loop import BackgroundLoop


@pytest.fixture(scope="module")
def service(module_reference_service: EmbeddedService) -> EmbeddedService:
    return module_reference_service


@pytest.fixture
def prefix() -> str:
    return f"progress-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def state(tmp_path: Path) -> SyncState:
    return SyncState(tmp_path / "data" / "sync_state.sqlite3")


@pytest.fixture
def loop():
    background = BackgroundLoop()
    yield background
    background.close()


def notes(root: Path, n: int) -> dict[str, int]:
    root.mkdir()
    sizes = {}
    for i in range(n):
        text = f"note {i}\n" + "x" * i
        (root / f"n{i:03}.md").write_text(text)
        sizes[f"n{i:03}.md"] = len(text.encode())
    return sizes


@pytest.mark.asyncio
async def test_progress_counts_each_write_when_done_with_its_bytes(
        service, open_projects, state, prefix, tmp_path) -> None:
    sizes = notes(tmp_path / "kb", 5)
    heard: list[BatchProgress] = []
    async with open_projects(service) as client, open_projects(service) as other:
        plan = await plan_sync(client, state, SyncRequest(tmp_path / "kb", to=prefix))
        await other.write(f"{prefix}/n002.md", content="theirs\n")  # re-planned, not sent
        report = await apply_sync(client, state, plan, on_progress=heard.append)
    assert [r.local for r in report.written] == ["n000.md", "n001.md", "n003.md", "n004.md"]
    total = sum(sizes.values())
    assert heard[0].items_total == 5 and heard[0].bytes_total == total
    done = [p for p in heard if p.current]
    assert [p.items_done for p in done] == [1, 2, 3, 4]
    assert [p.current for p in done] == [f"{prefix}/{n}" for n in
                                         ("n000.md", "n001.md", "n003.md", "n004.md")]
    assert done[-1].bytes_done == total - sizes["n002.md"]
    last = heard[-1]
    assert (last.items_skipped, last.items_left, last.fraction) == (1, 0, 1.0)
    assert last.seconds_left == 0.0


def test_an_interrupt_stops_after_the_write_in_flight_and_says_what_was_not_written(
        service, open_projects, state, prefix, tmp_path, loop, kernel_interrupts) -> None:
    sizes = notes(tmp_path / "kb", GROUP_WRITES + 6)  # two groups: the stop lands in one
    journal = Journal(tmp_path / "journal.db")
    stop = threading.Event()

    def interrupt_after_three(progress: BatchProgress) -> None:
        if progress.items_done == 3:
            # the kernel's interrupt: SIGINT, a KeyboardInterrupt in the waiting thread
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
            assert stop.wait(30)  # the waiter turned it into a stop before the next write

    async def batch(stop_asked):
        async with open_projects(service, journal=journal) as client:
            return await run_sync(client, state, SyncRequest(tmp_path / "kb", to=prefix),
                                  approve=lambda plan: True,
                                  on_progress=interrupt_after_three, stop=stop_asked)

    plan = run_stoppable(loop.run, batch, stop=stop)
    report = plan.report
    assert report is not None and report.interrupted and report.error is None
    assert [r.local for r in report.written] == ["n000.md", "n001.md", "n002.md"]
    assert [r.local for r in report.not_written] == sorted(sizes)[3:]
    assert "interrupted" in report.summary and "not written" in report.summary
    entries = journal.entries(service.project_uuid, 1000)
    assert sorted((e["action"], e["path"]) for e in entries) == [
        ("create", f"{prefix}/n00{i}.md") for i in range(3)]  # the unsent ones withdrawn

    async def rerun():
        async with open_projects(service, journal=journal) as client:
            return await run_sync(client, state, SyncRequest(tmp_path / "kb", to=prefix),
                                  approve=lambda plan: True)

    again = loop.run(rerun())
    assert [r.local for r in again.report.written] == sorted(sizes)[3:]

