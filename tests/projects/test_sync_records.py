"""The sync's record of each path is what the next plan stands on, against the real
reference service: a path deleted by a sync, or gone from both sides, loses its record (so
the file brought back is pushed again, not taken for a doc "removed remotely"), and content
found equal on both sides is recorded (so a first local edit after it is a change, not a
conflict)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from jupyter_design_projects.core import sync_plan as rules
from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.projects.sync import SyncRequest, plan_sync, run_sync
from jupyter_design_projects.projects.sync_state import SyncState


@pytest.fixture(scope="module")
def service(module_reference_service: EmbeddedService) -> EmbeddedService:
    return module_reference_service


@pytest.fixture
def prefix() -> str:
    return f"records-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def state(tmp_path: Path) -> SyncState:
    return SyncState(tmp_path / "data" / "sync_state.sqlite3")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    root.mkdir()
    (root / "a.md").write_text("# A\nalpha\n")
    (root / "c.txt").write_text("gamma\n")
    return root


def action_of(plan, local: str) -> str:
    return next(row.action for row in plan.rows if row.local == local)


async def doc_content(client, path: str) -> str | None:
    detail = await client.listing()
    doc = next((d for d in detail.docs if d.path == path), None)
    return None if doc is None else (await client.doc_text(doc.uuid))["content"]


@pytest.mark.asyncio
async def test_a_file_deleted_by_a_sync_and_brought_back_is_pushed_again(
        service, open_projects, folder, state, prefix) -> None:
    async with open_projects(service) as client:
        await run_sync(client, state, SyncRequest(folder, to=prefix), approve=lambda p: True)
        (folder / "c.txt").unlink()
        deleted = await run_sync(client, state, SyncRequest(folder, to=prefix, delete=True),
                                 approve=lambda p: True)
        assert [r.local for r in deleted.report.written] == ["c.txt"]
        assert await doc_content(client, f"{prefix}/c.txt") is None
        assert f"{prefix}/c.txt" not in state.load(deleted.scope)  # its record dropped
        (folder / "c.txt").write_text("gamma\n")  # the same content, restored
        again = await run_sync(client, state, SyncRequest(folder, to=prefix),
                               approve=lambda p: True)
        assert action_of(again, "c.txt") == rules.NEW
        assert [r.local for r in again.report.written] == ["c.txt"]
        assert await doc_content(client, f"{prefix}/c.txt") == "gamma\n"


@pytest.mark.asyncio
async def test_a_path_gone_from_both_sides_loses_its_record_and_comes_back_as_new(
        service, open_projects, folder, state, prefix) -> None:
    async with open_projects(service) as client, open_projects(service) as other:
        await run_sync(client, state, SyncRequest(folder, to=prefix), approve=lambda p: True)
        (folder / "c.txt").unlink()
        await other.delete(f"{prefix}/c.txt")
        settled = await run_sync(client, state, SyncRequest(folder, to=prefix),
                                 approve=lambda p: pytest.fail("nothing to write"))
        assert action_of(settled, "c.txt") == rules.GONE
        assert f"{prefix}/c.txt" not in state.load(settled.scope)
        (folder / "c.txt").write_text("gamma\n")
        plan = await plan_sync(client, state, SyncRequest(folder, to=prefix))
        assert action_of(plan, "c.txt") == rules.NEW


@pytest.mark.asyncio
async def test_content_equal_on_both_sides_is_recorded_so_a_first_edit_is_no_conflict(
        service, open_projects, folder, state, prefix) -> None:
    async with open_projects(service) as client, open_projects(service) as other:
        # the Project already holds exactly what the folder holds, written by another
        await other.write(f"{prefix}/a.md", content="# A\nalpha\n")
        await other.write(f"{prefix}/c.txt", content="gamma\n")
        first = await run_sync(client, state, SyncRequest(folder, to=prefix),
                               approve=lambda p: pytest.fail("nothing to write"))
        assert {action_of(first, "a.md"), action_of(first, "c.txt")} == {rules.UNCHANGED}
        assert set(state.load(first.scope)) == {f"{prefix}/a.md", f"{prefix}/c.txt"}
        (folder / "a.md").write_text("# A\nalpha, edited here first\n")
        edited = await run_sync(client, state, SyncRequest(folder, to=prefix),
                                approve=lambda p: True)
        assert action_of(edited, "a.md") == rules.CHANGED
        assert [r.local for r in edited.report.written] == ["a.md"]
        assert await doc_content(client, f"{prefix}/a.md") == "# A\nalpha, edited here first\n"
