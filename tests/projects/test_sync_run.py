"""A sync run's own checks against the real reference service, after its one listing: a
doc created at a path between the run's listing and its create is refused by the service
(never overwritten) and the run stops there saying so; a doc edited between the listing
and its replace is caught by reading that doc itself (no second listing); and the run
sends one listing and one request a write, nothing more."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from jupyter_design_projects.core import sync_plan as rules
from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.errors import ProjectsApiError
from jupyter_design_projects.projects.sync import SyncRequest, apply_sync, plan_sync, run_sync
from jupyter_design_projects.projects.sync_state import SyncState


@pytest.fixture(scope="module")
def service(module_reference_service: EmbeddedService) -> EmbeddedService:
    return module_reference_service


@pytest.fixture
def prefix() -> str:
    return f"run-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def state(tmp_path: Path) -> SyncState:
    return SyncState(tmp_path / "data" / "sync_state.sqlite3")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    root.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (root / name).write_text(f"# {name}\n")
    return root


def after_the_listing(client, action):
    """The client's listing, then `action` (another writer) before the run goes on."""
    real = client.listing

    async def listing():
        detail = await real()
        await action()
        return detail

    client.listing = listing


@pytest.mark.asyncio
async def test_a_doc_created_after_the_runs_listing_is_refused_not_overwritten(
        service, open_projects, folder, state, prefix) -> None:
    async with open_projects(service) as client, open_projects(service) as other:
        plan = await plan_sync(client, state, SyncRequest(folder, to=prefix))
        after_the_listing(client, lambda: other.write(f"{prefix}/b.md", content="theirs\n"))
        report = await apply_sync(client, state, plan)
        assert isinstance(report.error, ProjectsApiError) and report.error.status == 400
        assert [r.local for r in report.written] == ["a.md"]
        assert [r.local for r in report.not_written] == ["b.md", "c.md"]
        doc = (await client.listing()).doc(f"{prefix}/b.md")
        assert doc is not None
        assert (await client.doc_text(doc.uuid))["content"] == "theirs\n"


@pytest.mark.asyncio
async def test_an_edit_after_the_runs_listing_is_caught_by_the_doc_itself(
        service, open_projects, folder, state, prefix, switches) -> None:
    async with open_projects(service) as client, open_projects(service) as other:
        await run_sync(client, state, SyncRequest(folder, to=prefix), approve=lambda p: True)
        for name in ("a.md", "b.md"):
            (folder / name).write_text(f"# {name}, edited here\n")
        plan = await plan_sync(client, state, SyncRequest(folder, to=prefix))
        after_the_listing(client, lambda: other.write(f"{prefix}/b.md", content="# b.md?\n"))
        before = switches.counts()
        report = await apply_sync(client, state, plan)
        after = switches.counts()
        assert [r.local for r in report.written] == ["a.md"]
        assert [(r.local, r.action) for r in report.replanned] == [("b.md", rules.CONFLICT)]
        doc = (await client.listing()).doc(f"{prefix}/b.md")
        assert doc is not None
        assert (await client.doc_text(doc.uuid))["content"] == "# b.md?\n"
    sent = {k: after.get(k, 0) - before.get(k, 0) for k in after
            if after.get(k, 0) != before.get(k, 0)}
    detail = [n for k, n in sent.items() if k.startswith("GET ") and k.endswith("/detail")]
    patches = [n for k, n in sent.items() if k.startswith("PATCH ")]
    reads = [n for k, n in sent.items() if k.startswith("GET ") and "/docs/" in k]
    # the run: one listing, a read of each doc it replaces (a.md, b.md), one PATCH (a.md);
    # the other writer: its own listing, a read of what it replaces, its PATCH of b.md
    assert (sum(detail), sum(reads), sum(patches)) == (1 + 1, 2 + 1, 1 + 1), sent


@pytest.mark.asyncio
async def test_every_write_of_a_grouped_run_is_journaled_with_how_it_was_approved(
        service, open_projects, folder, state, prefix, tmp_path) -> None:
    from jupyter_design_projects.projects.journal import (
        APPROVED_BY_CALLBACK,
        APPROVED_ON_CARD,
        Journal,
    )

    journal = Journal(tmp_path / "data" / "journal.sqlite3")
    async with open_projects(service, journal=journal) as client:
        first = await run_sync(client, state, SyncRequest(folder, to=prefix),
                               approve=lambda p: True)
        (folder / "a.md").write_text("# a.md, edited here\n")
        (folder / "c.md").unlink()
        plan = await plan_sync(client, state, SyncRequest(folder, to=prefix, delete=True))
        report = await apply_sync(client, state, plan)  # the card's Approve
    assert first.report is not None and len(first.report.journal_ids) == 3
    assert sorted(report.journal_ids) == report.journal_ids and len(report.journal_ids) == 2
    by_id = {e["id"]: e for e in journal.entries(service.project_uuid, 100)}
    assert [(by_id[i]["action"], by_id[i]["approved_by"]) for i in first.report.journal_ids] \
        == [("create", APPROVED_BY_CALLBACK)] * 3
    assert sorted((by_id[i]["action"], by_id[i]["path"], by_id[i]["approved_by"])
                  for i in report.journal_ids) == [
        ("delete", f"{prefix}/c.md", APPROVED_ON_CARD),
        ("replace", f"{prefix}/a.md", APPROVED_ON_CARD)]
