"""A deck push's writes (`Deck.write_plans`) against the real reference service: one
`write_files` a plan with every file of it, every call journaled ahead in one commit
before the first is sent and settled in one after; progress counted as answers come back;
`stop()` asked before each call; and, with no service, how an entry a killed kernel left
`unknown` is settled by a listing (`write_journal.landed`) and what the journal's batch
methods keep."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_design_projects.core.batch_progress import BatchProgress
from jupyter_design_projects.core.plans import MAX_PLAN_PATHS
from jupyter_design_projects.design.approval import PendingApproval
from jupyter_design_projects.design.deck import Deck
from jupyter_design_projects.design.write_journal import (
    DONE,
    UNKNOWN,
    DesignJournal,
    landed,
    may_have_written,
    with_digests,
)
from jupyter_design_projects.errors import DesignRpcError, NeedsConsent, TransportError
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
from tests.faults_client import faults
from tests.worker_processes import copied_credentials

SLIDES = 50
WRITES = "mcp:tools/call:write_files"


@pytest.fixture
def session(reference_service, tmp_path) -> Iterator[Session]:
    service = reference_service
    settings = Settings.resolve({}, {
        "api_base_url": service.base_url, "org_uuid": service.org_uuid,
        "project_uuid": service.project_uuid,
        "credentials_file": str(copied_credentials(service, tmp_path / "creds"))})
    with Session(settings, data_dir=tmp_path / "data", can_ask=lambda: True) as opened:
        opened.run(opened.design.consent())
        yield opened


def big_deck(session: Session, slides: int = SLIDES) -> Deck:
    made = session.run(session.design.call("create_project", {"name": "Big deck"}))
    made = session.run(session.design.resume(made, approved=True))
    deck = Deck(session.design, records=session.deck_records)
    session.run(deck.bind(made.data["project_id"], "Big deck"))
    for i in range(slides):
        deck.add_markdown(f"big/{i:02}.html", f"# Slide {i}\n\n- point {i}\n")
    return deck


def approved_plans(session: Session, deck: Deck) -> list[tuple[tuple[str, ...], str]]:
    session.run(deck.refresh())
    plans = []
    for batch in deck.batches():
        card = session.run(deck.ask_plan(batch))
        assert isinstance(card, PendingApproval)  # a plan is shown to a person every time
        plan = session.run(session.design.resume(card, approved=True))
        plans.append((batch, plan.data["plan_token"]))
    return plans


def test_fifty_slides_are_three_plans_of_the_spec_and_one_write_each(session,
                                                                      reference_service):
    deck = big_deck(session)
    plans = approved_plans(session, deck)
    assert [len(batch) for batch, _ in plans] == [MAX_PLAN_PATHS, MAX_PLAN_PATHS, 10]
    before = faults(reference_service).counts().get(WRITES, 0)
    report = session.run(deck.write_plans(plans))
    assert report.failure is None and not report.stopped
    assert sorted(report.written) == sorted(f.path for f in deck.stage.files)
    assert faults(reference_service).counts().get(WRITES, 0) - before == 3
    assert deck.missing() == []  # remembered: a second push writes nothing


def test_every_write_is_journaled_ahead_before_the_first_is_sent(session, reference_service):
    deck = big_deck(session)
    plans = approved_plans(session, deck)
    journal = session.design.journal
    switches = faults(reference_service)
    before = switches.counts().get(WRITES, 0)
    seen = []

    def stop() -> bool:  # asked before each write: what the journal and service hold then
        seen.append(([e["outcome"] for e in journal.entries(3)],
                     switches.counts().get(WRITES, 0) - before))
        return False

    session.run(deck.write_plans(plans, stop=stop))
    assert seen[0] == ([UNKNOWN] * 3, 0)  # all three entries, and nothing sent yet
    assert [sent for _, sent in seen] == [0, 1, 2]
    entries = journal.entries(3)
    assert [e["outcome"] for e in entries] == [DONE] * 3
    assert sorted(c["path"] for e in entries for c in e["changes"]) == sorted(
        f.path for f in deck.stage.files)
    assert all(e["authority"] == "plan" and "plan_token" not in str(e) for e in entries)


def test_progress_counts_files_and_bytes_as_each_write_is_answered(session):
    deck = big_deck(session)
    plans = approved_plans(session, deck)
    heard: list[BatchProgress] = []
    report = session.run(deck.write_plans(plans, on_progress=heard.append))
    total = sum(len(f.data) for f in deck.stage.files)
    assert [p.items_done for p in heard] == [0, 20, 40, 50]
    assert heard[0].items_total == SLIDES and heard[0].bytes_total == total
    assert heard[-1].bytes_done == total and heard[-1].items_left == 0
    assert heard[-1].seconds_left == 0.0 and report.progress == heard[-1]


def test_a_stop_sends_no_further_write_and_says_what_was_not_written(session,
                                                                   reference_service):
    deck = big_deck(session)
    plans = approved_plans(session, deck)
    asked = []

    def stop_after_one() -> bool:
        asked.append(1)
        return len(asked) > 1

    report = session.run(deck.write_plans(plans, stop=stop_after_one))
    assert report.stopped and report.failure is None
    assert report.written == list(plans[0][0])
    assert report.not_written == list(plans[1][0]) + list(plans[2][0])
    assert report.progress.items_done == MAX_PLAN_PATHS
    entries = session.design.journal.entries(10)
    assert [(e["operation"], e["outcome"]) for e in entries[:1]] == [("write_files", DONE)]
    assert sum(e["operation"] == "write_files" for e in entries) == 1  # the rest withdrawn
    stored = {f["path"] for f in session.run(deck.client.call(
        "list_files", {"project_id": deck.project_id})).data}
    assert set(plans[0][0]) <= stored and not set(plans[1][0]) & stored


def test_a_refused_write_is_withdrawn_and_stops_the_push(session, reference_service):
    deck = big_deck(session, slides=25)
    plans = approved_plans(session, deck)
    faults(reference_service).fail("/v1/design/mcp", status=200, tool="write_files", body={
        "jsonrpc": "2.0", "id": 1, "result": {
            "isError": True, "content": [{"type": "text", "text": "refused"}]}})
    report = session.run(deck.write_plans(plans))
    assert report.failure is not None and report.written == [] and report.unknown == []
    assert report.not_written == list(plans[1][0])
    assert [e for e in session.design.journal.entries(10)
            if e["operation"] == "write_files"] == []  # refused and unsent: both withdrawn


# ---------------------------------------------------------------- settling by a listing


def change(path: str, if_match: str, size: int = 3) -> dict:
    return {"path": path, "change": "created" if if_match == "0" else "replaced",
            "bytes": size, "sha256": "0" * 64, "if_match": if_match}


@pytest.mark.parametrize(("changes", "etags", "sizes", "verdict"), [
    # every file holds a new etag of the size written: the call landed
    ([change("a", "0"), change("b", "e1")], {"a": "n1", "b": "n2"}, {"a": 3, "b": 3}, True),
    # nothing changed since it was sent: absent where created, the old etag where replaced
    ([change("a", "0"), change("b", "e1")], {"b": "e1"}, {"b": 9}, False),
    # some changed and some not: written over since, the listing cannot tell
    ([change("a", "0"), change("b", "e1")], {"a": "n1", "b": "e1"}, {"a": 3, "b": 9}, None),
    # a new etag of another size is someone else's write
    ([change("a", "0")], {"a": "n1"}, {"a": 4}, None),
    # an entry without digests (not written by a push) is left alone
    ([{"path": "a", "change": "created", "bytes": 3}], {}, {}, None),
    ([], {}, {}, None),
])
def test_a_pending_write_is_settled_by_what_the_listing_shows(changes, etags, sizes, verdict):
    assert landed(changes, etags, sizes) is verdict


def test_a_file_holding_an_etag_another_write_was_answered_with_is_not_that_call():
    changes = [change("a", "0")]
    assert landed(changes, {"a": "n1"}, {"a": 3}, answered={"a": "n1"}) is None
    assert landed(changes, {"a": "n1"}, {"a": 3}, answered={"a": "n0"}) is True


def written_by(journal: DesignJournal, writer: str, at: str | None = None) -> dict:
    [entry_id] = journal.ahead_many([{"operation": "write_files", "project_id": "p",
                                      "authority": "plan", "detail": "",
                                      "changes": [change("a", "0")]}]) or [None]
    with sqlite3.connect(journal.path) as db:
        db.execute("UPDATE writes SET writer = ?, at = coalesce(?, at) WHERE id = ?",
                   (writer, at, entry_id))
    journal._open.discard(entry_id)  # written by someone else, as far as this one knows
    return next(e for e in journal.pending("p", "write_files") if e["id"] == entry_id)


def test_a_call_may_still_land_while_its_writer_runs_and_not_once_it_is_gone(tmp_path):
    import os
    import socket
    import subprocess
    import sys

    journal = DesignJournal(tmp_path / "j.sqlite3")
    host = socket.gethostname()
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert not journal.may_still_land(written_by(journal, f"{host}:{gone.pid}"))
    assert journal.may_still_land(written_by(journal, f"{host}:{os.getppid()}"))  # running
    assert journal.may_still_land(written_by(journal, f"{host}:{os.getpid()}"))  # this one
    assert journal.may_still_land(written_by(journal, "another-machine:1"))  # only time tells
    old = "2020-01-01T00:00:00Z"
    assert not journal.may_still_land(written_by(journal, "another-machine:1", old))
    assert not journal.may_still_land(written_by(journal, f"{host}:{os.getpid()}", old))


def test_an_entry_this_journal_wrote_and_did_not_settle_may_still_land(tmp_path):
    journal = DesignJournal(tmp_path / "j.sqlite3")
    [left, answered] = journal.ahead_many([{
        "operation": "write_files", "project_id": "p", "authority": "plan", "detail": "",
        "changes": [change("a", "0")]}] * 2) or []
    journal.settle_many([answered], [])
    [pending] = journal.pending("p", "write_files")
    assert pending["id"] == left and journal.may_still_land(pending)


def test_digests_are_of_the_decoded_bytes_with_the_if_match_sent():
    files = [{"path": "a.html", "data": "héllo", "if_match": "0"},
             {"path": "b.png", "data": "AAEC", "encoding": "base64", "if_match": "e7"}]
    got = with_digests([{"path": "a.html"}, {"path": "b.png"}], files)
    assert got == [
        {"path": "a.html", "sha256": hashlib.sha256("héllo".encode()).hexdigest(),
         "if_match": "0"},
        {"path": "b.png", "sha256": hashlib.sha256(b"\0\1\2").hexdigest(), "if_match": "e7"}]


@pytest.mark.parametrize(("error", "maybe"), [
    (TransportError("design tools/call", "timeout"), True),
    (TransportError("design tools/call", "http_status", status=502), True),
    (NeedsConsent(), False), (DesignRpcError("write_files", -32602, "bad"), False),
    (None, False)])
def test_only_a_write_with_no_usable_answer_may_have_landed(error, maybe):
    assert may_have_written(error) is maybe


def test_the_journal_writes_a_batch_ahead_and_settles_it_in_one_commit_each(tmp_path: Path):
    journal = DesignJournal(tmp_path / "j.sqlite3")
    entry = {"operation": "write_files", "project_id": "p", "authority": "plan",
             "detail": "a plan", "changes": [change("a", "0")]}
    ids = journal.ahead_many([entry, {**entry, "project_id": "q"}, entry])
    assert ids is not None and len(ids) == 3
    assert [e["id"] for e in journal.pending("p", "write_files")] == [ids[0], ids[2]]
    assert journal.pending("p", "delete_files") == []
    journal.settle_many([ids[0]], [ids[2]])
    assert journal.pending("p", "write_files") == []
    assert [(e["id"], e["outcome"]) for e in journal.entries()] == [
        (ids[1], UNKNOWN), (ids[0], DONE)]


def test_a_journal_that_cannot_be_written_says_why_and_returns_no_ids(tmp_path, monkeypatch):
    journal = DesignJournal(tmp_path / "j.sqlite3")

    def broken(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr("jupyter_design_projects.design.write_journal.private_database",
                        broken)
    assert journal.ahead_many([{"operation": "write_files", "project_id": "p",
                                "authority": "plan", "detail": "", "changes": []}]) is None
    assert journal.pending("p", "write_files") == []
    assert "could not be" in (journal.problem or "")
