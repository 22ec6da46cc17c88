"""Design file storage: etags, all-or-nothing writes, listing and the demo seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_design_projects.server.context import ServiceConfig, ServiceContext
from jupyter_design_projects.server.database import Database
from jupyter_design_projects.server.design import store as design_store
from jupyter_design_projects.server.design.demo import DECK_ID, PARTNER_ID
from jupyter_design_projects.server.design.errors import NotFound, WriteConflict
from jupyter_design_projects.server.design.files import (
    CONFLICT_CONTENT_BYTES,
    FileStore,
    FileWrite,
)


@pytest.fixture
def ctx(tmp_path: Path) -> ServiceContext:
    ctx = ServiceContext(config=ServiceConfig(data_dir=tmp_path),
                         db=Database(tmp_path / "files.sqlite3"), clock=lambda: 1_700_000_000.0)
    ctx.db.migrate(design_store.SCHEMA)
    design_store.seed_demo(ctx)
    return ctx


@pytest.fixture
def files(ctx: ServiceContext) -> FileStore:
    return FileStore(ctx.db, ctx.clock)


def contents(files: FileStore, project_id: str) -> dict[str, bytes]:
    rows = files.db.read().execute("SELECT path, content FROM design_files WHERE project_id = ?",
                                   (project_id,)).fetchall()
    return {row["path"]: bytes(row["content"]) for row in rows}


def test_every_write_mints_a_new_etag(files: FileStore) -> None:
    first = files.write(DECK_ID, [FileWrite("a.txt", b"same")])["a.txt"]
    second = files.write(DECK_ID, [FileWrite("a.txt", b"same")])["a.txt"]
    assert first != second


def test_if_match_zero_creates_a_missing_file(files: FileStore) -> None:
    files.write(DECK_ID, [FileWrite("new.txt", b"x", if_match="0")])
    assert contents(files, DECK_ID)["new.txt"] == b"x"


def test_matching_etag_replaces_the_file(files: FileStore) -> None:
    etag = files.read(DECK_ID, "index.html")["etag"]
    files.write(DECK_ID, [FileWrite("index.html", b"v2", if_match=etag)])
    assert contents(files, DECK_ID)["index.html"] == b"v2"


def test_conflict_writes_nothing_at_all(files: FileStore) -> None:
    before = contents(files, DECK_ID)
    with pytest.raises(WriteConflict) as conflict:
        files.write(DECK_ID, [FileWrite("fresh.txt", b"x"),
                              FileWrite("index.html", b"y", if_match="stale"),
                              FileWrite("support.js", b"z", if_match="0")])
    assert contents(files, DECK_ID) == before
    reported = {c["path"]: c for c in conflict.value.conflicts}
    assert set(reported) == {"index.html", "support.js"}
    assert reported["index.html"]["etag"] == files.read(DECK_ID, "index.html")["etag"]
    assert reported["index.html"]["current_content"] == before["index.html"].decode()


def test_conflict_on_a_missing_file_has_no_etag(files: FileStore) -> None:
    with pytest.raises(WriteConflict) as conflict:
        files.write(DECK_ID, [FileWrite("missing.txt", b"x", if_match="e123")])
    assert conflict.value.conflicts == [{"path": "missing.txt", "etag": None,
                                         "current_content": None}]


def test_conflict_text_is_the_protocol_json(files: FileStore) -> None:
    with pytest.raises(WriteConflict) as conflict:
        files.write(DECK_ID, [FileWrite("index.html", b"y", if_match="stale")])
    body = json.loads(conflict.value.text())
    assert body["status"] == "conflict" and body["message"].endswith("Nothing was written.")


@pytest.mark.parametrize(("size", "truncated"), [
    (CONFLICT_CONTENT_BYTES, False), (CONFLICT_CONTENT_BYTES + 1, True)])
def test_conflict_content_is_capped(files: FileStore, size: int, truncated: bool) -> None:
    files.write(DECK_ID, [FileWrite("big.txt", b"x" * size)])
    with pytest.raises(WriteConflict) as conflict:
        files.write(DECK_ID, [FileWrite("big.txt", b"y", if_match="stale")])
    (entry,) = conflict.value.conflicts
    assert len(entry["current_content"]) == min(size, CONFLICT_CONTENT_BYTES)
    assert entry.get("current_content_truncated", False) is truncated


def test_delete_of_a_missing_path_deletes_nothing(files: FileStore) -> None:
    before = contents(files, DECK_ID)
    with pytest.raises(NotFound):
        files.delete(DECK_ID, ["index.html", "nope.html"])
    assert contents(files, DECK_ID) == before


def test_copy_with_a_missing_source_copies_nothing(files: FileStore) -> None:
    before = contents(files, DECK_ID)
    with pytest.raises(NotFound):
        files.copy(DECK_ID, [(PARTNER_ID, "index.html", "partner.html"),
                             (PARTNER_ID, "nope.html", "nope.html")])
    assert contents(files, DECK_ID) == before


@pytest.mark.parametrize(("under", "depth", "paths"), [
    ("", 1, ["index.html", "slides", "support.js"]),
    ("", None, ["index.html", "slides", "slides/01-title.html", "slides/02-agenda.html",
                "slides/03-metrics.html", "support.js"]),
    ("slides", 1, ["slides/01-title.html", "slides/02-agenda.html", "slides/03-metrics.html"]),
    ("slides/02-agenda.html", None, ["slides/02-agenda.html"]),
])
def test_listing_follows_path_and_depth(files: FileStore, under: str, depth: int | None,
                                        paths: list[str]) -> None:
    assert [e["path"] for e in files.listing(DECK_ID, under, depth)] == paths


def test_listing_a_missing_directory_is_not_found(files: FileStore) -> None:
    with pytest.raises(NotFound):
        files.listing(DECK_ID, "nope", None)


def test_directories_report_their_total_size(files: FileStore) -> None:
    entries = {e["path"]: e for e in files.listing(DECK_ID, "", None)}
    slides = [e["size"] for p, e in entries.items() if p.startswith("slides/")]
    assert entries["slides"] == {"path": "slides", "type": "directory", "size": sum(slides),
                                 "etag": None}


def test_seeding_twice_keeps_the_users_changes(ctx: ServiceContext, files: FileStore) -> None:
    files.write(DECK_ID, [FileWrite("index.html", b"mine")])
    files.delete(DECK_ID, ["support.js"])
    design_store.seed_demo(ctx)
    now = contents(files, DECK_ID)
    assert now["index.html"] == b"mine" and "support.js" not in now


def test_seed_has_one_grant_eligible_and_one_shared_project(ctx: ServiceContext) -> None:
    store = design_store.DesignStore(ctx.db, ctx.clock)
    assert store.project(DECK_ID)["grant_eligible"] == 1
    assert store.project(PARTNER_ID)["grant_eligible"] == 0
    systems = store.design_systems()
    assert [bool(s["is_default"]) for s in systems] == [True, False]
    assert systems[0]["name"] == "Acme Default"
    assert not store.consent("anyone")
