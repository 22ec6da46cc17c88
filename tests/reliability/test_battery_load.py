"""Load: 16 clients (each its own Session: its own event loop, httpx client, journal and
temp dir, one shared credential file, as kernels of one person share it) doing searches,
reads, Design listings and writes against one reference service for a bounded time.
Afterwards: 0 errors, every acknowledged write present with its content, and a journal
entry for each. Threats: lost writes under contention, journal entries dropped, a shared
credential file corrupted by concurrent refreshes. The bounded run takes a few seconds;
the full one (`JDP_RELIABILITY_FULL=1`) runs for a minute."""

from __future__ import annotations

import secrets
import threading
import time
import uuid

import pytest

from jupyter_design_projects.session import Session
from tests.reliability.battery import Live, settings_for, signed_in_file

CLIENTS = 16
DEMO_NAMESPACE = uuid.UUID("0f4b6c1e-5d0a-4c58-9b7e-2a1d3c4e5f60")
DECK = str(uuid.uuid5(DEMO_NAMESPACE, "project:Quarterly Review Deck"))


def run_load(service, tmp_path, seconds: float, caplog, capsys) -> None:
    credentials = signed_in_file(service, tmp_path / "shared")
    sessions = [Session(settings_for(service, credentials), data_dir=tmp_path / f"client{i}")
                for i in range(CLIENTS)]
    sessions[0].run(sessions[0].design.consent())
    acknowledged: list[list[tuple[str, str, str]]] = [[] for _ in range(CLIENTS)]
    errors: list[tuple[int, BaseException]] = []
    operations = [0] * CLIENTS
    start = threading.Barrier(CLIENTS)
    stop_at: list[float] = []

    def client(index: int) -> None:
        session = sessions[index]
        projects = session.projects
        try:
            start.wait(60)
            round_ = 0
            while time.monotonic() < stop_at[0]:
                round_ += 1
                step = (index + round_) % 4
                if step == 0:
                    hits = session.run(projects.search("retention policy", n=3), timeout=60)
                    assert hits["hits"]
                elif step == 1:
                    doc = session.run(projects.read("data-retention-policy.md"), timeout=60)
                    assert doc["content"]
                elif step == 2:
                    listing = session.run(session.design.call(
                        "list_files", {"project_id": DECK}), timeout=60)
                    assert not listing.is_error, listing.error
                else:
                    name = f"load/c{index}-r{round_}-{secrets.token_hex(3)}.md"
                    content = f"client {index} round {round_}\n" * 3
                    result = session.run(projects.write(name, content=content), timeout=60)
                    acknowledged[index].append((result["path"], content, result["doc_uuid"]))
                operations[index] += 1
        except BaseException as exc:  # every kind counts as an error here
            errors.append((index, exc))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    stop_at.append(time.monotonic() + seconds + 30)  # provisional, reset after the barrier
    for thread in threads:
        thread.start()
    stop_at[0] = time.monotonic() + seconds
    for thread in threads:
        thread.join(seconds + 180)
    try:
        assert not any(t.is_alive() for t in threads)
        assert errors == []
        assert all(count > 0 for count in operations), operations
        live = Live(service, sessions[0], credentials, caplog, capsys)
        live.sessions.extend(sessions[1:])
        docs = live.docs()
        for index, writes in enumerate(acknowledged):
            for path, content, _ in writes:
                assert docs.get(path) == content, (index, path)
            journaled = {e["doc_uuid"] for e in sessions[index].projects.history(10_000)
                         if e["action"] == "create"}
            assert {doc_uuid for _, _, doc_uuid in writes} <= journaled
        assert sum(map(len, acknowledged)) > 0
        live.check()
        print(f"load: {sum(operations)} operations, {sum(map(len, acknowledged))} writes, "
              f"{CLIENTS} clients, {seconds:g} s")
    finally:
        for session in sessions:
            session.close()


def test_sixteen_clients_bounded__threat_lost_writes(module_reference_service, tmp_path,
                                                     caplog, capsys):
    run_load(module_reference_service, tmp_path, 6.0, caplog, capsys)


@pytest.mark.slow
def test_sixteen_clients_for_a_minute__threat_lost_writes(module_reference_service, tmp_path,
                                                          caplog, capsys):
    run_load(module_reference_service, tmp_path, 60.0, caplog, capsys)
