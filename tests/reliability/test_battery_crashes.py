"""Crashes: the reference service killed in the middle of a write and restarted on the same
data dir; a kernel killed in the middle of an upload and of a scope expansion. After each:
the database opens cleanly, a doc is whole or absent, the credential file is whole, the
lock is free, and nothing half-written is left. Threats: torn writes, a stale lock that
blocks every later kernel, a credential file cut in half."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import filelock
import pytest

from jupyter_design_projects.core.scopes import PROJECT_SCOPES
from jupyter_design_projects.embedded import start_embedded
from jupyter_design_projects.errors import (
    JdpError,
    ProjectsAuthFailed,
    ProjectsTransportFailed,
    ScopeExpansionFailed,
)
from jupyter_design_projects.projects.journal import Journal
from jupyter_design_projects.session import Session
from jupyter_design_projects.transport.credentials import Credential
from tests.faults_client import faults
from tests.reliability.battery import Live, ServiceState, settings_for, signed_in_file
from tests.reliability.kernels import Kernel, wait_until
from tests.worker_processes import copied_credentials

DOC_BYTES = 3 * 1024 * 1024


def whole_credential(path: Path) -> Credential:
    return Credential.from_json(json.loads(path.read_text()))


def lock_is_free(path: Path) -> bool:
    lock = filelock.FileLock(str(path))
    try:
        lock.acquire(blocking=False)
    except filelock.Timeout:
        return False
    lock.release()
    return True


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def docs_posted(service) -> int:
    key = (f"POST /api/organizations/{service.org_uuid}/projects/{service.project_uuid}"
           "/docs")
    return faults(service).counts().get(key, 0)


@pytest.mark.parametrize("moment", ["request_in_flight", "while_committing"])
def test_service_killed_during_a_write_restarts_whole__threat_torn_write(tmp_path, moment):
    """`request_in_flight`: the write has reached the service and waits (a latency fault)
    when the service dies: the client gets a clear error and journals the unknown outcome,
    and after a restart the doc is absent. `while_committing`: the service dies as soon as
    a 6 MB doc (thousands of index rows) arrives: after a restart it is whole or absent."""
    data_dir = tmp_path / "service"
    service = start_embedded(data_dir, faults=True)
    first = ("steady words\n" * 1000)
    second = " ".join(f"word{i % 977}" for i in range(700_000))  # ~6 MB, ~7,500 chunks
    errors: list[BaseException] = []
    done: list[dict] = []
    try:
        path = signed_in_file(service, tmp_path / "client")
        session = Session(settings_for(service, path), data_dir=tmp_path / "client")
        session.run(session.projects.write("crash/first.md", content=first))
        if moment == "request_in_flight":
            faults(service).latency(f"/api/organizations/{service.org_uuid}/projects/"
                                    f"{service.project_uuid}/docs", ms=60_000)

        def writer() -> None:
            try:
                done.append(session.run(session.projects.write("crash/second.md",
                                                               content=second), timeout=120))
            except JdpError as exc:
                errors.append(exc)

        thread = threading.Thread(target=writer)
        thread.start()
        wait_until(lambda: docs_posted(service) >= 2, 60, "the second write")
        service.process.kill()
        service.process.wait(30)
        thread.join(150)
        assert not thread.is_alive()
        session.close()
    finally:
        service.stop()
    if moment == "request_in_flight":
        assert done == [] and len(errors) == 1 and isinstance(errors[0], ProjectsTransportFailed)
    restarted = start_embedded(data_dir, faults=True)
    try:
        state = ServiceState(restarted)
        assert state.integrity() == "ok"
        docs = state.docs(restarted.project_uuid)
        assert docs["crash/first.md"] == first
        if moment == "request_in_flight" or errors:
            assert docs.get("crash/second.md") in (None, second)
        else:
            assert docs["crash/second.md"] == second
        if moment == "request_in_flight":
            assert "crash/second.md" not in docs
        with Session(settings_for(restarted, path), data_dir=tmp_path / "after") as after:
            assert after.run(after.projects.read("crash/first.md"))["bytes"] == len(first)
    finally:
        restarted.stop()
    journal = sqlite3.connect(tmp_path / "client" / "journal.sqlite3")
    try:
        assert journal.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        actions = [row[0] for row in journal.execute("SELECT action FROM entries ORDER BY id")]
    finally:
        journal.close()
    # nothing lost: the acknowledged write, and the second as done or as unknown
    assert actions == ["create", "create_unknown" if errors else "create"]


@pytest.fixture
def narrow(reference_service, tmp_path):
    """The service's first credential (no project scopes), copied for one kernel."""
    return copied_credentials(reference_service, tmp_path / "creds")


def job(service, credentials: Path, tmp_path: Path, **extra) -> dict:
    return {"data_dir": str(tmp_path / "kernel-data"), "settings": {
        "api_base_url": service.base_url, "org_uuid": service.org_uuid,
        "project_uuid": service.project_uuid, "credentials_file": str(credentials)}, **extra}


def test_kernel_killed_during_an_upload_leaves_nothing_half_written__threat_torn_write(
        reference_service, narrow, tmp_path):
    service = reference_service
    work = tmp_path / "kernel"
    work.mkdir()
    content = ("upload line\n" * (DOC_BYTES // 12))
    (work / "big.txt").write_text(content)
    faults(service).latency(f"/api/organizations/{service.org_uuid}/projects/"
                            f"{service.project_uuid}/docs", ms=1500)
    kernel = Kernel(job(service, narrow, tmp_path, action="upload", path="crash/upload.md",
                        local_path="big.txt"), work)
    try:
        temp_dir = Path(kernel.line(120)["temp_dir"])
        wait_until(lambda: docs_posted(service) >= 1, 60, "the upload to reach the service")
        kernel.kill()
    finally:
        kernel.close()
    whole_credential(narrow)
    assert lock_is_free(Path(str(narrow) + ".lock"))
    assert leftovers(narrow.parent) == []
    assert not temp_dir.exists() or list(temp_dir.iterdir()) == []
    # the whole body had reached the service, which finishes the request without the
    # kernel: the doc appears whole, and the journal, written ahead, says a create of it
    # may have happened (no remote change without an entry)
    state = ServiceState(service)
    stored = wait_until(lambda: state.docs(service.project_uuid).get("crash/upload.md"), 30,
                        "the service to finish the orphaned write")
    assert stored == content
    assert state.integrity() == "ok"
    journal = Journal(tmp_path / "kernel-data" / "journal.sqlite3")
    entries = journal.entries(service.project_uuid)
    assert [(e["action"], e["path"], e["bytes"]) for e in entries] == [
        ("create_unknown", "crash/upload.md", len(content.encode()))]


SYNC_FILES = 150


def test_kernel_killed_during_a_grouped_sync_loses_and_duplicates_nothing__threat_torn_write(
        reference_service, narrow, tmp_path):
    """A sync sends its writes in groups journaled ahead in one commit (`write_groups`):
    killed in its second group, every doc the service stored has a journal entry, and the
    next sync writes exactly the files not stored, each once, and settles the rest."""
    service = reference_service
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(SYNC_FILES):
        (folder / f"note-{i:03}.md").write_text(f"# Note {i}\n\nbody of note {i}\n")
    docs_path = (f"/api/organizations/{service.org_uuid}/projects/{service.project_uuid}"
                 "/docs")
    faults(service).latency(docs_path, ms=30, count=10_000)
    kernel = Kernel(job(service, narrow, tmp_path, action="sync", folder=str(folder),
                        prefix="crash-sync"), tmp_path / "kernel")
    state = ServiceState(service)

    def stored() -> dict[str, str]:
        return {path: text for path, text in state.docs(service.project_uuid).items()
                if path.startswith("crash-sync/")}

    try:
        assert kernel.line(120)["step"] == "opened"
        wait_until(lambda: docs_posted(service) >= 80, 120, "the second group's writes")
        kernel.kill()
    finally:
        kernel.close()
    # the request in flight at the kill is finished by the service without the kernel
    wait_until(lambda: len(stored()) == docs_posted(service), 30, "the orphaned write")
    faults(service).reset()
    first = stored()
    assert 80 <= len(first) < SYNC_FILES
    journal = Journal(tmp_path / "kernel-data" / "journal.sqlite3")
    entries = journal.entries(service.project_uuid, limit=1000)
    journaled = {e["path"] for e in entries if e["action"] in ("create", "create_unknown")}
    assert set(first) <= journaled  # no remote change without an entry
    with Session(settings_for(service, narrow), data_dir=tmp_path / "kernel-data") as session:
        from jupyter_design_projects.projects.sync import SyncRequest, run_sync

        plan = session.run(run_sync(session.projects, session.sync_state,
                                    SyncRequest(folder, to="crash-sync"),
                                    approve=lambda plan: True), timeout=300)
    assert plan.report is not None and plan.report.error is None
    assert sorted(r.path for r in plan.report.written) == sorted(
        f"crash-sync/note-{i:03}.md" for i in range(SYNC_FILES)
        if f"crash-sync/note-{i:03}.md" not in first)
    assert docs_posted(service) == SYNC_FILES - len(first)  # nothing written twice
    final = stored()
    assert final == {f"crash-sync/note-{i:03}.md": f"# Note {i}\n\nbody of note {i}\n"
                     for i in range(SYNC_FILES)}
    settled = {e["path"] for e in journal.entries(service.project_uuid, limit=1000)
               if e["action"] == "create"}
    assert set(final) - set(first) <= settled
    assert state.integrity() == "ok"


DECK_SLIDES = 50


def deck_slides() -> dict[str, str]:
    return {f"big/{i:02}.html": f"# Slide {i}\n\n- point {i}\n" for i in range(DECK_SLIDES)}


def test_kernel_killed_during_a_deck_push_is_finished_by_the_next_push__threat_torn_write(
        reference_service, narrow, tmp_path):
    """A 50-slide push sends one `write_files` per plan, journaled ahead in one commit:
    killed while its second write is at the service, every file the service stored has a
    journal entry; the next push settles those entries against the listing, asks a card
    naming only the files not stored, writes each of them once and none of the others."""
    from jupyter_design_projects.design.approval import PendingApproval
    from jupyter_design_projects.design.deck import Deck
    from jupyter_design_projects.design.write_journal import FILE_NAME, DesignJournal

    service = reference_service
    settings = settings_for(service, narrow)
    with Session(settings, data_dir=tmp_path / "parent", can_ask=lambda: True) as parent:
        parent.run(parent.design.consent())
        made = parent.run(parent.design.call("create_project", {"name": "Big deck"}))
        made = parent.run(parent.design.resume(made, approved=True))
    project_id = made.data["project_id"]
    slides = deck_slides()
    kernel = Kernel(job(service, narrow, tmp_path, action="deck_push", project_id=project_id,
                        slides=slides), tmp_path / "kernel")
    state = ServiceState(service)
    switches = faults(service)
    try:
        assert kernel.line(120)["step"] == "opened"
        approved = kernel.line(120)
        assert approved["step"] == "approved"
        assert [len(p) for p in approved["plans"]] == [20, 20, 10]  # the spec's 20 a plan
        switches.reset()
        switches.latency("/v1/design/mcp", ms=400, count=100)  # each write takes a moment
        kernel.go()
        wait_until(lambda: switches.counts().get("mcp:tools/call:write_files", 0) >= 2, 60,
                   "the second plan's write to reach the service")
        kernel.kill()
    finally:
        kernel.close()
    # the write in flight at the kill is finished by the service without the kernel
    wait_until(lambda: len(state.design_files(project_id)) >= 40, 30, "the orphaned write")
    switches.reset()
    first = state.design_files(project_id)
    assert set(first) == set(approved["plans"][0]) | set(approved["plans"][1])
    journal = DesignJournal(tmp_path / "kernel-data" / FILE_NAME)
    entries = journal.entries(100)
    assert [e["outcome"] for e in entries] == ["unknown"] * 3  # all three written ahead
    journaled = {c["path"] for e in entries for c in e["changes"]}
    assert set(first) <= journaled  # no remote change without an entry

    with Session(settings, data_dir=tmp_path / "kernel-data", can_ask=lambda: True) as again:
        deck = Deck(again.design, records=again.deck_records)
        again.run(deck.bind(project_id))
        for path, markdown in slides.items():
            deck.add_markdown(path, markdown)
        etags = dict(again.run(deck.refresh()))
        left = deck.batches()
        assert left == [tuple(sorted(approved["plans"][2]))]
        cards = [again.run(deck.ask_plan(batch)) for batch in left]
        assert all(isinstance(card, PendingApproval) for card in cards)
        assert [card.request.writes for card in cards] == left  # the card names what is left
        plans = [(batch, again.run(again.design.resume(card, approved=True)).data["plan_token"])
                 for batch, card in zip(left, cards, strict=True)]
        report = again.run(deck.write_plans(plans))
        assert report.failure is None and report.written == list(left[0])
        final = again.run(deck.refresh())
    assert switches.counts().get("mcp:tools/call:write_files", 0) == 1
    assert all(final[path] == etags[path] for path in first)  # nothing written twice
    stored = state.design_files(project_id)
    assert {path: data.decode() for path, data in stored.items()} == {
        path: f.data.decode() for path, f in ((f.path, f) for f in deck.stage.files)}
    settled = journal.entries(100)
    assert all(e["outcome"] == "done" for e in settled)  # the unsent one withdrawn
    paths = [c["path"] for e in settled for c in e["changes"]]
    assert sorted(paths) == sorted(slides)  # each file journaled once, as done
    assert state.integrity() == "ok"


def test_kernel_killed_during_a_scope_expansion_leaves_the_credential_whole__spec_s11(
        reference_service, narrow, tmp_path, caplog, capsys):
    service = reference_service
    faults(service).latency("/v1/oauth/token", ms=3000)
    kernel = Kernel(job(service, narrow, tmp_path, action="expand"), tmp_path / "kernel")
    try:
        assert kernel.line(120)["step"] == "opened"
        assert kernel.line(60)["step"] == "loaded"
        wait_until(lambda: faults(service).counts().get("POST /v1/oauth/token"), 60,
                   "the expansion's token request")
        assert not lock_is_free(Path(str(narrow) + ".lock"))  # held while it refreshes
        kernel.kill()
    finally:
        kernel.close()
    before = whole_credential(narrow)
    assert not set(PROJECT_SCOPES) <= set(before.scopes)  # never half-updated
    assert lock_is_free(Path(str(narrow) + ".lock"))
    assert leftovers(narrow.parent) == []
    faults(service).reset()
    # the next kernel either expands or says clearly what to do; it never hangs on the lock
    with Session(settings_for(service, narrow), data_dir=tmp_path / "next") as session:
        try:
            info = session.run(session.projects.info(), timeout=60)
        except ProjectsAuthFailed as exc:  # spec §12: wrapped, the scope error underneath
            assert isinstance(exc.__cause__, ScopeExpansionFailed)
            assert exc.reason == "refresh_refused"  # the service rotated the token it was sent
            Live(service, session, narrow, caplog, capsys).check(error=exc)
        else:
            assert info["docs"]
    whole_credential(narrow)
