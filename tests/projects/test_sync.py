"""`%project sync` against the real reference service, as a user would run it: a folder
with nested dirs, ignore rules and a binary; a dry run (no write sent, by the service's
own counters), an approved run, a rerun that writes nothing, a local edit plus a remote
edit by another client (a second client, and a raw HTTP write) kept as a conflict, a
forced write, deletes, a pull into an empty folder, a failure mid-way and its rerun, and
every path changed between the plan and the write re-planned instead of overwritten."""

from __future__ import annotations

import os
import stat
import uuid
from pathlib import Path

import httpx
import pytest

from jupyter_design_projects.core import sync_plan as rules
from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.errors import (
    InvalidProjectsArgument,
    ProjectsApiError,
    SyncOverBudget,
    SyncRefused,
)
from jupyter_design_projects.projects.journal import Journal
from jupyter_design_projects.projects.sync import SyncRequest, apply_sync, plan_sync, run_sync
from jupyter_design_projects.projects.sync_state import SyncState
from jupyter_design_projects.transport.http import loopback_tls

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + b"\x00" * 64


@pytest.fixture
def prefix() -> str:
    return f"sync-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def state(tmp_path: Path) -> SyncState:
    return SyncState(tmp_path / "data" / "sync_state.sqlite3")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """notes/a.md, notes/deep/b.md, c.txt; a PNG, a .gitignore'd log and build dir, a
    .projectignore'd draft, a hidden file, and a symlink out of the folder."""
    root = tmp_path / "kb"
    (root / "notes" / "deep").mkdir(parents=True)
    (root / "build").mkdir()
    (root / "notes" / "a.md").write_text("# A\nalpha\n")
    (root / "notes" / "deep" / "b.md").write_text("# B\nbeta ü\n")
    (root / "c.txt").write_text("gamma\n")
    (root / "logo.png").write_bytes(PNG)
    (root / "debug.log").write_text("noise\n")
    (root / "build" / "out.md").write_text("generated\n")
    (root / "notes" / "draft.md").write_text("not yet\n")
    (root / ".env").write_text("SECRET=1\n")
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    (root / "notes" / ".projectignore").write_text("draft.md\n")
    outside = tmp_path / "outside.md"
    outside.write_text("not in the folder\n")
    os.symlink(outside, root / "escape.md")
    return root


def writes_counted(counts: dict[str, int]) -> int:
    return sum(n for key, n in counts.items()
               if key.startswith(("POST /api/", "PATCH /api/", "DELETE /api/"))
               and "/docs" in key)


def actions(plan) -> dict[str, str]:
    return {row.local: row.action for row in plan.rows}


async def docs_under(client, prefix: str) -> dict[str, str]:
    detail = await client.listing()
    out = {}
    for doc in detail.docs:
        if doc.path.startswith(prefix + "/"):
            out[doc.path] = (await client.doc_text(doc.uuid))["content"]
    return out


@pytest.mark.asyncio
async def test_the_plan_lists_every_path_with_its_action_and_why(
        service, open_projects, folder, state, prefix) -> None:
    async with open_projects(service) as client:
        plan = await plan_sync(client, state, SyncRequest(folder, to=prefix))
    got = {row.local: (row.action, row.why) for row in plan.rows}
    assert got["notes/a.md"] == (rules.NEW, "")
    assert got["notes/deep/b.md"] == (rules.NEW, "")
    assert got["c.txt"] == (rules.NEW, "")
    assert got["logo.png"] == (rules.SKIPPED, "binary or not UTF-8")
    assert got["debug.log"] == (rules.SKIPPED, "ignored by .gitignore")
    assert got["build/"] == (rules.SKIPPED, "ignored by .gitignore")
    assert got["notes/draft.md"] == (rules.SKIPPED, "ignored by .projectignore")
    assert got[".env"] == (rules.SKIPPED, "hidden")
    assert got["escape.md"] == (rules.SKIPPED, "a symlink that leaves the folder")
    a = next(r for r in plan.rows if r.local == "notes/a.md")
    assert a.path == f"{prefix}/notes/a.md" and a.bytes == 10 and a.tokens == 3
    assert plan.knowledge_after == plan.knowledge_before + sum(r.tokens for r in plan.writes)
    assert plan.writes[-1].knowledge_after == plan.knowledge_after
    table = plan.table()
    assert len(table) == len(plan.rows) and list(table[0])[:3] == ["path", "local", "action"]


@pytest.mark.asyncio
async def test_a_dry_run_sends_no_write(service, open_projects, folder, state, prefix,
                                        switches) -> None:
    async with open_projects(service) as client:
        await client.listing()  # the sign-in's scope expansion happens first
        before = writes_counted(switches.counts())
        plan = await run_sync(client, state, SyncRequest(folder, to=prefix), dry_run=True,
                              approve=lambda _plan: True)
        assert plan.report is None
        assert writes_counted(switches.counts()) == before
        assert await docs_under(client, prefix) == {}
    assert state.load(plan.scope) == {}


@pytest.mark.asyncio
async def test_approve_writes_each_doc_once_journaled_and_a_rerun_writes_nothing(
        service, open_projects, folder, state, prefix, switches, tmp_path) -> None:
    journal = Journal(tmp_path / "journal.db")
    async with open_projects(service, journal=journal) as client:
        asked = []
        plan = await run_sync(client, state, SyncRequest(folder, to=prefix),
                              approve=lambda p: asked.append(p) or True)
        assert len(asked) == 1 and plan.report is not None and plan.report.error is None
        assert [r.local for r in plan.report.written] == ["c.txt", "notes/a.md",
                                                          "notes/deep/b.md"]
        assert await docs_under(client, prefix) == {
            f"{prefix}/c.txt": "gamma\n", f"{prefix}/notes/a.md": "# A\nalpha\n",
            f"{prefix}/notes/deep/b.md": "# B\nbeta ü\n"}
        entries = journal.entries(client.project_uuid, 10)
        assert {e["path"] for e in entries[:3]} == {r.path for r in plan.report.written}
        assert len(plan.report.journal_ids) == 3
        before = writes_counted(switches.counts())
        again = await run_sync(client, state, SyncRequest(folder, to=prefix),
                               approve=lambda p: pytest.fail("a rerun asked again"))
        assert again.writes == [] and writes_counted(switches.counts()) == before
        assert {r.action for r in again.rows if r.action != rules.SKIPPED} == {
            rules.UNCHANGED}


async def raw_patch(service: EmbeddedService, client, path: str, content: str) -> None:
    """A write as another tool would make it: plain HTTP with the same sign-in."""
    detail = await client.listing()
    doc = detail.doc(path)
    token = client.expander.auth.token.reveal()
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=service.base_url, headers=headers,
                                 verify=loopback_tls()) as http:
        orgs = (await http.get("/api/organizations")).json()
        answer = await http.patch(
            f"/api/organizations/{orgs[0]['uuid']}/projects/{client.project_uuid}"
            f"/docs/{doc.uuid}", json={"content": content})
        answer.raise_for_status()


@pytest.mark.asyncio
async def test_an_edit_on_both_sides_is_kept_as_a_conflict(service, open_projects, folder,
                                                            state, prefix) -> None:
    async with open_projects(service) as client, open_projects(service) as other:
        await run_sync(client, state, SyncRequest(folder, to=prefix), approve=lambda p: True)
        (folder / "notes" / "a.md").write_text("# A\nmine\n")
        (folder / "c.txt").write_text("gamma, mine\n")
        (folder / "notes" / "deep" / "b.md").write_text("# B\nonly here\n")
        await other.write(f"{prefix}/notes/a.md", content="# A\ntheirs, longer\n")
        await raw_patch(service, client, f"{prefix}/c.txt", "gamma, by another tool\n")
        plan = await run_sync(client, state, SyncRequest(folder, to=prefix),
                              approve=lambda p: True)
        got = actions(plan)
        assert got["notes/a.md"] == rules.CONFLICT
        assert got["c.txt"] == rules.CONFLICT
        assert got["notes/deep/b.md"] == rules.CHANGED
        assert [r.local for r in plan.report.written] == ["notes/deep/b.md"]
        docs = await docs_under(client, prefix)
        assert docs[f"{prefix}/notes/a.md"] == "# A\ntheirs, longer\n"
        assert docs[f"{prefix}/c.txt"] == "gamma, by another tool\n"
        # --force PATH writes that one conflict, and only it
        forced = await run_sync(client, state, SyncRequest(folder, to=prefix, force=["notes/a.md"]),
                                approve=lambda p: True)
        assert [r.local for r in forced.report.written] == ["notes/a.md"]
        docs = await docs_under(client, prefix)
        assert docs[f"{prefix}/notes/a.md"] == "# A\nmine\n"
        assert docs[f"{prefix}/c.txt"] == "gamma, by another tool\n"


@pytest.mark.asyncio
async def test_a_same_size_remote_edit_between_plan_and_write_is_replanned(
        service, open_projects, folder, state, prefix) -> None:
    """The listing cannot see an edit of the same size; the check before the write can."""
    async with open_projects(service) as client, open_projects(service) as other:
        await run_sync(client, state, SyncRequest(folder, to=prefix), approve=lambda p: True)
        (folder / "c.txt").write_text("GAMMA!\n")
        plan = await plan_sync(client, state, SyncRequest(folder, to=prefix))
        assert actions(plan)["c.txt"] == rules.CHANGED
        await other.write(f"{prefix}/c.txt", content="gamma?\n")  # same size as before
        report = await apply_sync(client, state, plan)
        assert report.written == [] and [r.local for r in report.replanned] == ["c.txt"]
        assert report.replanned[0].action == rules.CONFLICT
        assert (await docs_under(client, prefix))[f"{prefix}/c.txt"] == "gamma?\n"


@pytest.mark.asyncio
async def test_a_doc_created_remotely_after_the_plan_is_not_clobbered(
        service, open_projects, folder, state, prefix) -> None:
    async with open_projects(service) as client, open_projects(service) as other:
        plan = await plan_sync(client, state, SyncRequest(folder, to=prefix))
        await other.write(f"{prefix}/c.txt", content="theirs\n")
        report = await apply_sync(client, state, plan)
        assert [r.local for r in report.replanned] == ["c.txt"]
        assert (await docs_under(client, prefix))[f"{prefix}/c.txt"] == "theirs\n"


@pytest.mark.asyncio
async def test_deletes_only_with_delete_and_a_remote_edit_keeps_its_doc(
        service, open_projects, folder, state, prefix, tmp_path) -> None:
    journal = Journal(tmp_path / "journal.db")
    async with open_projects(service, journal=journal) as client, \
            open_projects(service) as other:
        await run_sync(client, state, SyncRequest(folder, to=prefix), approve=lambda p: True)
        (folder / "c.txt").unlink()
        (folder / "notes" / "a.md").unlink()
        await other.write(f"{prefix}/notes/a.md", content="# A\nstill needed here\n")
        kept = await run_sync(client, state, SyncRequest(folder, to=prefix),
                              approve=lambda p: True)
        assert actions(kept)["c.txt"] == rules.REMOVED_LOCALLY and kept.writes == []
        plan = await run_sync(client, state, SyncRequest(folder, to=prefix, delete=True),
                              approve=lambda p: True)
        assert actions(plan)["c.txt"] == rules.DELETE
        assert actions(plan)["notes/a.md"] == rules.CONFLICT
        docs = await docs_under(client, prefix)
        assert f"{prefix}/c.txt" not in docs and f"{prefix}/notes/a.md" in docs
        # the delete is journaled with the content it removed: restore brings it back
        entry = journal.entries(client.project_uuid, 1)[0]
        assert (entry["action"], entry["path"]) == ("delete", f"{prefix}/c.txt")
        await client.restore(entry["id"])
        assert (await docs_under(client, prefix))[f"{prefix}/c.txt"] == "gamma\n"


@pytest.mark.asyncio
async def test_a_pull_into_an_empty_folder_then_never_over_a_local_edit(
        service, open_projects, folder, state, prefix, tmp_path) -> None:
    async with open_projects(service) as client, open_projects(service) as other:
        await run_sync(client, state, SyncRequest(folder, to=prefix), approve=lambda p: True)
        empty = tmp_path / "copy"
        empty.mkdir()
        pulled = await run_sync(client, state, SyncRequest(empty, to=prefix, pull=True),
                                approve=lambda p: True)
        assert {r.local for r in pulled.report.written} == {"c.txt", "notes/a.md",
                                                            "notes/deep/b.md"}
        assert (empty / "notes" / "deep" / "b.md").read_text() == "# B\nbeta ü\n"
        # a remote edit comes down; a local edit of another file stays
        await other.write(f"{prefix}/c.txt", content="gamma, edited in the Project\n")
        (empty / "notes" / "a.md").write_text("# A\nedited here\n")
        await other.write(f"{prefix}/notes/a.md", content="# A\nand there, longer\n")
        again = await run_sync(client, state, SyncRequest(empty, to=prefix, pull=True),
                               approve=lambda p: True)
        assert actions(again)["c.txt"] == rules.CHANGED
        assert actions(again)["notes/a.md"] == rules.CONFLICT
        assert (empty / "c.txt").read_text() == "gamma, edited in the Project\n"
        assert (empty / "notes" / "a.md").read_text() == "# A\nedited here\n"


@pytest.mark.asyncio
async def test_a_pull_never_writes_a_hidden_path(
        service, open_projects, state, prefix, tmp_path) -> None:
    """(The reference service already refuses `..` in a doc path; the same rule in the
    client refuses it, and hidden parts such as `.git/`, from any service.)"""
    async with open_projects(service) as client:
        await client.write(f"{prefix}/.git/hooks/post-checkout", content="x")
        await client.write(f"{prefix}/ok.md", content="fine\n")
        target = tmp_path / "pulled"
        target.mkdir()
        plan = await run_sync(client, state, SyncRequest(target, to=prefix, pull=True),
                              approve=lambda p: True)
        assert actions(plan)[".git/hooks/post-checkout"] == rules.SKIPPED
        assert sorted(os.listdir(target)) == ["ok.md"]


@pytest.mark.asyncio
async def test_a_failure_mid_way_stops_says_what_was_written_and_a_rerun_finishes(
        service, open_projects, folder, state, prefix, switches) -> None:
    async with open_projects(service) as client:
        await run_sync(client, state, SyncRequest(folder, to=prefix), approve=lambda p: True)
        (folder / "c.txt").write_text("gamma, changed\n")  # a replace: sent first
        (folder / "d.md").write_text("delta\n")  # two creates after it
        (folder / "e.md").write_text("epsilon\n")
        switches.fail("/api/*", method="POST", status=400, count=1,
                      body={"type": "error", "error": {"type": "invalid_request_error",
                                                       "message": "refused once"}})
        plan = await plan_sync(client, state, SyncRequest(folder, to=prefix))
        report = await apply_sync(client, state, plan)
        assert isinstance(report.error, ProjectsApiError)
        assert [r.local for r in report.written] == ["c.txt"]
        assert [r.local for r in report.not_written] == ["d.md", "e.md"]
        assert "run the same sync again" in report.summary
        before = writes_counted(switches.counts())
        rerun = await run_sync(client, state, SyncRequest(folder, to=prefix),
                               approve=lambda p: True)
        assert [r.local for r in rerun.report.written] == ["d.md", "e.md"]
        assert writes_counted(switches.counts()) - before == 2


@pytest.mark.asyncio
async def test_a_plan_over_the_budget_fails_before_any_card(
        service, open_projects, folder, state, prefix, switches) -> None:
    async with open_projects(service) as client:
        detail = await client.listing()
        size = detail.knowledge_size  # the folder's three docs: 2 + 3 + 3 estimated tokens
        switches.knowledge(client.project_uuid, max_knowledge_size=size + 7)
        with pytest.raises(SyncOverBudget) as caught:
            await run_sync(client, state, SyncRequest(folder, to=prefix),
                           approve=lambda p: pytest.fail("asked"))
        assert (caught.value.knowledge_after, caught.value.over) == (size + 8, 1)
        switches.knowledge(client.project_uuid, max_knowledge_size=size + 8)
        plan = await run_sync(client, state, SyncRequest(folder, to=prefix),
                              approve=lambda p: True)
        assert plan.over == 0 and len(plan.report.written) == 3


@pytest.mark.parametrize("spare", [0, -1], ids=["exactly_fits", "one_token_over"])
@pytest.mark.asyncio
async def test_a_plan_that_fits_with_replaces_counted_net_runs_to_its_end(
        service, open_projects, state, prefix, switches, tmp_path, spare) -> None:
    """The plan counts a replace net (the old doc's tokens freed), and so does each write of
    the run: a plan that exactly fits writes every path, one token less is refused before
    anything is sent, never stopped mid-run."""
    root = tmp_path / "net"
    root.mkdir()
    (root / "big.md").write_text("x" * 400)  # 100 estimated tokens
    async with open_projects(service) as client:
        first = await run_sync(client, state, SyncRequest(root, to=prefix),
                               approve=lambda p: True)
        assert [r.local for r in first.report.written] == ["big.md"]
        (root / "big.md").write_text("y" * 404)  # a replace: 101 tokens, net +1
        (root / "new.md").write_text("z" * 40)  # a create: +10
        size = (await client.listing()).knowledge_size
        switches.knowledge(client.project_uuid, max_knowledge_size=size + 11 + spare)
        before = writes_counted(switches.counts())
        if spare < 0:
            with pytest.raises(SyncOverBudget) as caught:
                await run_sync(client, state, SyncRequest(root, to=prefix),
                               approve=lambda p: pytest.fail("asked"))
            assert (caught.value.knowledge_after, caught.value.over) == (size + 11, 1)
            assert writes_counted(switches.counts()) == before
            return
        plan = await run_sync(client, state, SyncRequest(root, to=prefix), approve=lambda p: True)
        assert [(r.local, r.action) for r in plan.writes] == [
            ("big.md", rules.CHANGED), ("new.md", rules.NEW)]
        assert plan.knowledge_after == plan.knowledge_peak == size + 11
        assert plan.report.error is None and len(plan.report.written) == 2
        assert await docs_under(client, prefix) == {f"{prefix}/big.md": "y" * 404,
                                                     f"{prefix}/new.md": "z" * 40}


@pytest.mark.asyncio
async def test_bad_input_gets_a_clear_error(service, open_projects, state, tmp_path) -> None:
    async with open_projects(service) as client:
        with pytest.raises(SyncRefused) as missing:
            await plan_sync(client, state, SyncRequest(tmp_path / "nope"))
        assert missing.value.rule == "missing"
        (tmp_path / "file.md").write_text("x")
        with pytest.raises(SyncRefused) as not_dir:
            await plan_sync(client, state, SyncRequest(tmp_path / "file.md"))
        assert not_dir.value.rule == "not_a_directory"
        with pytest.raises(InvalidProjectsArgument):
            await plan_sync(client, state, SyncRequest(tmp_path, to="../up"))
        with pytest.raises(InvalidProjectsArgument):
            await plan_sync(client, state, SyncRequest(tmp_path, pull=True, delete=True))


@pytest.mark.asyncio
async def test_names_the_path_rules_refuse_are_skipped_with_why(
        service, open_projects, state, prefix, tmp_path) -> None:
    root = tmp_path / "odd"
    root.mkdir()
    (root / "ok.md").write_text("fine\n")
    (root / "bell\x07.md").write_text("control character\n")
    (root / ("x" * 250 + ".md")).write_text("too long with the prefix\n")
    async with open_projects(service) as client:
        plan = await plan_sync(client, state, SyncRequest(root, to=prefix))
    got = {r.local: r for r in plan.rows}
    assert got["ok.md"].action == rules.NEW
    assert got["bell\x07.md"].action == rules.SKIPPED
    assert "control" in got["bell\x07.md"].why
    assert got["x" * 250 + ".md"].action == rules.SKIPPED
    assert "255" in got["x" * 250 + ".md"].why


def test_the_state_file_and_its_side_files_are_private(state: SyncState) -> None:
    state.record("scope", "a.md", rules.Base("0" * 64, "rev"))
    files = [p for p in state.path.parent.iterdir() if p.name.startswith(state.path.name)]
    assert state.path in files
    for path in files:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path.name
    assert stat.S_IMODE(os.stat(state.path.parent).st_mode) == 0o700


@pytest.mark.asyncio
async def test_a_file_swapped_for_a_symlink_after_the_plan_is_not_sent(
        service, open_projects, folder, state, prefix, tmp_path) -> None:
    """The same TOCTOU care as --from: the write re-reads through the guard, and a file
    that now points out of the folder is re-planned, never read."""
    secret = tmp_path / "secret.md"
    secret.write_text("outside the folder\n")
    async with open_projects(service) as client:
        plan = await plan_sync(client, state, SyncRequest(folder, to=prefix))
        target = folder / "notes" / "a.md"
        target.unlink()
        os.symlink(secret, target)
        report = await apply_sync(client, state, plan)
        assert [r.local for r in report.replanned] == ["notes/a.md"]
        assert "changed since the plan" in report.replanned[0].why
        docs = await docs_under(client, prefix)
        assert f"{prefix}/notes/a.md" not in docs
        assert "outside the folder\n" not in docs.values()
        assert len(report.written) == 2


@pytest.mark.asyncio
async def test_a_symlink_inside_the_folder_is_followed_and_a_folder_link_is_not(
        service, open_projects, folder, state, prefix) -> None:
    os.symlink(folder / "c.txt", folder / "alias.txt")
    os.symlink(folder / "notes", folder / "notes-link")
    async with open_projects(service) as client:
        plan = await plan_sync(client, state, SyncRequest(folder, to=prefix))
    got = {r.local: (r.action, r.why) for r in plan.rows}
    assert got["alias.txt"] == (rules.NEW, "")
    assert got["notes-link/"] == (rules.SKIPPED, "a symlinked folder (not followed)")


@pytest.mark.asyncio
async def test_a_nested_ignore_file_applies_below_its_folder_only(
        service, open_projects, state, prefix, tmp_path) -> None:
    root = tmp_path / "nested"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    (root / "a" / ".gitignore").write_text("*.md\n!keep.md\n")
    for name in ("a/x.md", "a/keep.md", "b/x.md"):
        (root / name).write_text(name + "\n")
    async with open_projects(service) as client:
        plan = await plan_sync(client, state, SyncRequest(root, to=prefix))
    assert actions(plan) == {"a/x.md": rules.SKIPPED, "a/keep.md": rules.NEW,
                             "b/x.md": rules.NEW}


@pytest.mark.asyncio
async def test_the_remote_session_route_syncs_and_keeps_conflicts_too(
        service, open_projects, folder, state, prefix) -> None:
    """There a replace is a delete and a create (a new doc id): the revision follows it."""
    async with open_projects(service, "remote-session") as client, \
            open_projects(service) as other:
        first = await run_sync(client, state, SyncRequest(folder, to=prefix),
                               approve=lambda p: True)
        assert len(first.report.written) == 3
        (folder / "c.txt").write_text("gamma, replaced\n")
        second = await run_sync(client, state, SyncRequest(folder, to=prefix),
                                approve=lambda p: True)
        assert [r.local for r in second.report.written] == ["c.txt"]
        again = await plan_sync(client, state, SyncRequest(folder, to=prefix))
        assert actions(again)["c.txt"] == rules.UNCHANGED
        (folder / "c.txt").write_text("gamma, mine\n")
        await other.write(f"{prefix}/c.txt", content="gamma, theirs and longer\n")
        third = await run_sync(client, state, SyncRequest(folder, to=prefix),
                               approve=lambda p: True)
        assert actions(third)["c.txt"] == rules.CONFLICT and third.writes == []
        (folder / "notes" / "a.md").write_text("# A\nmine!\n")
        await other.write(f"{prefix}/notes/a.md", content="# A\ntheirs\n")  # same size
        fourth = await plan_sync(client, state, SyncRequest(folder, to=prefix))
        assert actions(fourth)["notes/a.md"] == rules.CONFLICT
        assert (await docs_under(client, prefix))[f"{prefix}/c.txt"] == (
            "gamma, theirs and longer\n")


@pytest.mark.asyncio
async def test_a_forced_pull_overwrites_the_local_edit_it_names(
        service, open_projects, folder, state, prefix, tmp_path) -> None:
    async with open_projects(service) as client, open_projects(service) as other:
        await run_sync(client, state, SyncRequest(folder, to=prefix), approve=lambda p: True)
        (folder / "c.txt").write_text("local edit\n")
        await other.write(f"{prefix}/c.txt", content="remote edit\n")
        plan = await run_sync(client, state,
                              SyncRequest(folder, to=prefix, pull=True, force=["c.txt"]),
                              approve=lambda p: True)
        assert [r.local for r in plan.report.written] == ["c.txt"]
        assert (folder / "c.txt").read_text() == "remote edit\n"
        settled = await plan_sync(client, state, SyncRequest(folder, to=prefix))
        assert actions(settled)["c.txt"] == rules.UNCHANGED


@pytest.mark.asyncio
async def test_a_pull_that_cannot_write_a_file_stops_and_says_so(
        service, open_projects, folder, state, prefix, tmp_path, monkeypatch) -> None:
    async with open_projects(service) as client:
        await run_sync(client, state, SyncRequest(folder, to=prefix), approve=lambda p: True)
        target = tmp_path / "full-disk"
        target.mkdir()

        def no_space(*_args):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "replace", no_space)
        plan = await run_sync(client, state, SyncRequest(target, to=prefix, pull=True),
                              approve=lambda p: True)
        assert isinstance(plan.report.error, SyncRefused)
        assert plan.report.error.rule == "unwritable"
        assert plan.report.written == [] and len(plan.report.not_written) == 3
        assert [p.name for p in target.iterdir()] == []  # no temp file left behind


@pytest.mark.asyncio
async def test_a_closed_gate_refuses_before_any_file_is_read(
        service, open_projects, state, tmp_path, monkeypatch) -> None:
    from jupyter_design_projects.errors import GateClosed
    from jupyter_design_projects.projects import sync_walk
    from tests.projects.projects_harness import settings_for

    monkeypatch.setattr(sync_walk, "read_local_text",
                        lambda *a, **k: pytest.fail("a file was read"))
    (tmp_path / "a.md").write_text("x\n")
    closed = settings_for(service, "org", allow_projects_tool=False)
    async with open_projects(service, settings=closed) as client:
        with pytest.raises(GateClosed):
            await plan_sync(client, state, SyncRequest(tmp_path))
