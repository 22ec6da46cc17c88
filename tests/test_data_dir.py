"""A loose existing data dir is tightened (issue 22 item 10): each way a data dir is given —
`JDP_DATA_DIR` (a session), the server extension (which reads the same variable, else the
platform's per-user dir), `tasks.py lab --data-dir` (its helper) and the reference
service's `--data-dir` — takes a pre-existing 0755 directory and leaves it 0700; one
another user owns is refused with a sentence, not tightened and not used. Each run uses
umask 022, the common default that leaves new directories 0755."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_design_projects import data_dir
from jupyter_design_projects.data_dir import DATA_DIR_ENV, private_data_dir
from jupyter_design_projects.errors import ConfigError
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
#: a service that is configured (so no embedded one starts) and never called
REMOTE = {"JDP_API_BASE_URL": "http://127.0.0.1:9"}


@pytest.fixture(autouse=True)
def loose_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def loose(path: Path) -> Path:
    path.mkdir(parents=True)
    path.chmod(0o755)
    assert mode(path) == 0o755
    return path


@pytest.fixture
def someone_else(monkeypatch) -> None:
    """This process runs as another user than the one owning the test's files."""
    other = os.geteuid() + 4242
    monkeypatch.setattr(os, "geteuid", lambda: other)


# ---------------------------------------------------------------- the rule


def test_a_new_data_dir_and_the_parents_it_makes_are_0700(tmp_path) -> None:
    made = private_data_dir(tmp_path / "a" / "b")
    assert (mode(tmp_path / "a"), mode(made)) == (0o700, 0o700)


def test_a_loose_existing_data_dir_is_tightened_and_its_parent_left_alone(tmp_path) -> None:
    parent = loose(tmp_path / "home")
    folder = loose(parent / "jdp")
    assert private_data_dir(folder) == folder
    assert (mode(parent), mode(folder)) == (0o755, 0o700)


def test_loose_files_directly_in_it_are_tightened_links_and_folders_left(tmp_path) -> None:
    folder = loose(tmp_path / "jdp")
    for name in ("journal.sqlite3", "journal.sqlite3-wal", "sync_state.sqlite3"):
        (folder / name).write_text("x")
        (folder / name).chmod(0o644)
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("x")
    elsewhere.chmod(0o644)
    (folder / "link").symlink_to(elsewhere)
    inner = loose(folder / "reference-service")
    private_data_dir(folder)
    assert {p.name: mode(p) for p in folder.iterdir() if not p.is_symlink()} == {
        "journal.sqlite3": 0o600, "journal.sqlite3-wal": 0o600, "sync_state.sqlite3": 0o600,
        "reference-service": 0o755}  # (the service tightens its own dir as it starts)
    assert mode(elsewhere) == 0o644 and mode(inner) == 0o755


def test_a_symlink_is_followed_to_a_directory_of_ours(tmp_path) -> None:
    target = loose(tmp_path / "disk" / "jdp")
    (tmp_path / "link").symlink_to(target)
    private_data_dir(tmp_path / "link")
    assert mode(target) == 0o700


def test_a_data_dir_of_another_user_is_refused_and_left_as_it_is(tmp_path,
                                                                someone_else) -> None:
    folder = loose(tmp_path / "theirs")
    with pytest.raises(ConfigError) as refused:
        private_data_dir(folder)
    assert refused.value.setting == DATA_DIR_ENV
    assert "belongs to another user" in refused.value.reason
    assert mode(folder) == 0o755


def test_a_data_dir_that_is_a_file_is_refused(tmp_path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError) as refused:
        private_data_dir(tmp_path / "file")
    assert refused.value.reason.endswith("is not a directory")


# ---------------------------------------------------------------- the client's SQLite stores


def test_a_store_is_0600_in_a_0700_folder_side_files_too(tmp_path) -> None:
    store = tmp_path / "a" / "b" / "records.sqlite3"  # neither folder exists yet
    with data_dir.private_database(store, schema="CREATE TABLE IF NOT EXISTS t (x)") as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("INSERT INTO t VALUES (1)")
        assert {mode(store.with_name(store.name + side)) for side in ("-wal", "-shm")} \
            == {0o600}
    assert mode(store) == 0o600
    assert mode(tmp_path / "a" / "b") == 0o700 and mode(tmp_path / "a") == 0o700


@pytest.mark.parametrize("umask", [0o000, 0o277], ids=["umask-000", "umask-277"])
def test_a_store_makes_its_folders_0700_and_itself_0600_whatever_the_umask(
        tmp_path, umask) -> None:
    """A permissive umask gives no more than asked; a tight one (0o277) would leave the
    folders 0500 and the file 0400 without the explicit chmod."""
    store = tmp_path / "a" / "b" / "records.sqlite3"
    previous = os.umask(umask)
    try:
        with data_dir.private_database(store, schema="CREATE TABLE IF NOT EXISTS t (x)") as db:
            db.execute("INSERT INTO t VALUES (1)")
    finally:
        os.umask(previous)
    assert mode(tmp_path / "a") == 0o700 and mode(tmp_path / "a" / "b") == 0o700
    assert mode(store) == 0o600


def test_a_store_block_commits_on_success_and_rolls_back_on_an_error(tmp_path) -> None:
    store = tmp_path / "s.sqlite3"
    schema = "CREATE TABLE IF NOT EXISTS t (x)"
    with data_dir.private_database(store, schema=schema) as db:
        db.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(RuntimeError), data_dir.private_database(store) as db:
        db.execute("INSERT INTO t VALUES (2)")
        raise RuntimeError("stop")
    with data_dir.private_database(store, rows=True) as db:
        found = [dict(row) for row in db.execute("SELECT x FROM t")]
    assert found == [{"x": 1}]


# ---------------------------------------------------------------- JDP_DATA_DIR


def test_jdp_data_dir_loose_and_existing_is_tightened_when_a_session_opens(
        tmp_path, monkeypatch) -> None:
    folder = loose(tmp_path / "jdp")
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    with Session.open(Settings.resolve(REMOTE)) as session:
        assert session.data_dir == folder
        assert mode(folder) == 0o700


def test_jdp_data_dir_of_another_user_stops_the_session_before_it_opens(
        tmp_path, monkeypatch, someone_else) -> None:
    folder = loose(tmp_path / "jdp")
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    with pytest.raises(ConfigError) as refused:
        Session.open(Settings.resolve(REMOTE))
    assert refused.value.setting == DATA_DIR_ENV
    assert mode(folder) == 0o755 and list(folder.iterdir()) == []


# ---------------------------------------------------------------- the server extension


class FakeServerApp:
    """Just enough of a jupyter_server ServerApp for the extension to refuse early."""

    def __init__(self) -> None:
        self.log = logging.getLogger("test-data-dir-extension")


def test_the_server_extension_refuses_a_data_dir_of_another_user(
        tmp_path, monkeypatch, someone_else, caplog) -> None:
    from jupyter_design_projects.labserver import _load_jupyter_server_extension

    folder = loose(tmp_path / "jdp")
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    with caplog.at_level(logging.ERROR, logger="test-data-dir-extension"):
        _load_jupyter_server_extension(FakeServerApp())  # no service, no panel
    assert "belongs to another user" in caplog.text
    assert mode(folder) == 0o755 and list(folder.iterdir()) == []


def test_the_server_extension_reads_the_data_dir_through_the_shared_rule(
        tmp_path, monkeypatch) -> None:
    """The extension's dir is `user_data_dir()` made private (the labserver test
    `test_the_server_extension_tightens_a_loose_data_dir` starts a real server)."""
    folder = loose(tmp_path / "jdp")
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    assert data_dir.private_data_dir(data_dir.user_data_dir()) == folder
    assert mode(folder) == 0o700


# ---------------------------------------------------------------- tasks.py lab --data-dir


@pytest.fixture(scope="module")
def tasks():
    spec = importlib.util.spec_from_file_location("tasks_for_data_dir", ROOT / "tasks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tasks_lab_data_dir_tightens_a_loose_existing_one(tasks, tmp_path) -> None:
    folder = loose(tmp_path / "demo")
    named, rest = tasks.lab_data_dir(["--data-dir", str(folder), "--no-browser"])
    assert (named, rest) == (folder.resolve(), ["--no-browser"])
    assert mode(folder) == 0o700


def test_tasks_lab_data_dir_refuses_one_of_another_user(tasks, tmp_path, someone_else) -> None:
    folder = loose(tmp_path / "demo")
    with pytest.raises(SystemExit) as stopped:
        tasks.lab_data_dir(["--data-dir", str(folder)])
    assert "is not a directory you own" in str(stopped.value.code)
    assert mode(folder) == 0o755


# ---------------------------------------------------------------- the service's --data-dir


def test_the_services_data_dir_of_another_user_is_refused(tmp_path, someone_else) -> None:
    """`python -m jupyter_design_projects.server --data-dir DIR` makes DIR private through
    `server/private_files.private_dir` (a loose existing one tightened:
    tests/server/test_private_data.py runs the CLI); one of another user stops it with a
    sentence before anything is written."""
    from jupyter_design_projects.server.cli import config_from, parse_args, serve

    folder = loose(tmp_path / "service")
    args = parse_args(["--data-dir", str(folder), "--port", "0", "--preview-browser", "none"])
    with pytest.raises(SystemExit) as stopped:
        asyncio.run(serve(config_from(args)))
    assert stopped.value.code == (f"jdp-server: {folder} is not a directory owned by this "
                                  "user")
    assert mode(folder) == 0o755 and list(folder.iterdir()) == []


def test_the_embedded_services_dir_of_another_user_is_a_start_failure(tmp_path,
                                                                     someone_else) -> None:
    """A session's or the server extension's own service: refused before anything starts,
    as the ServiceStartFailed the launcher writes to its runtime file and a cell shows."""
    from jupyter_design_projects.embedded import start_embedded
    from jupyter_design_projects.errors import ServiceStartFailed

    folder = loose(tmp_path / "reference-service")
    with pytest.raises(ServiceStartFailed) as failed:
        start_embedded(folder)
    assert failed.value.reason == "cannot_start"
    assert "belongs to another user" in failed.value.log_tail
    assert mode(folder) == 0o755 and list(folder.iterdir()) == []
