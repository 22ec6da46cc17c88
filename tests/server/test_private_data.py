"""Private data everywhere (issue 22 item 10): under a data dir given by `--data-dir`
(the `jdp-server` CLI) or `JDP_DATA_DIR` (a session's embedded service), the reference
service's dir is 0700 — a loose existing one tightened — and every file in it 0600:
the SQLite database and its -wal and -shm files, the log, the credential and its lock.
Each run uses umask 022, the common default that would otherwise leave them 0644."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from jupyter_design_projects.server.database import Database
from jupyter_design_projects.server.private_files import private_dir, private_file
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.http import loopback_tls

FULL = ("user:profile user:inference user:mcp_servers user:file_upload user:design:read "
        "user:design:write user:projects:read user:projects:write")


@pytest.fixture
def loose_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def modes(root: Path) -> dict[str, int]:
    """Every path under `root` (itself included) → its permission bits."""
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for path in root.rglob("*"):
        found[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def assert_private(root: Path) -> dict[str, int]:
    found = modes(root)
    for name, mode in found.items():
        wanted = 0o700 if (root / name).is_dir() else 0o600
        assert mode == wanted, f"{name} is {oct(mode)}, not {oct(wanted)}"
    return found


@pytest.fixture
def run_cli() -> Iterator[Callable[[Path], tuple[subprocess.Popen, dict]]]:
    """Start `jdp-server --data-dir DIR` under umask 022 (a Python process of the test's:
    the fast tier leaves these tests out, tests/conftest.py SLOW_FIXTURES); `stop` ends
    it, and teardown ends any left running."""
    started: list[subprocess.Popen] = []

    def start(data_dir: Path) -> tuple[subprocess.Popen, dict]:
        process = subprocess.Popen(
            [sys.executable, "-m", "jupyter_design_projects.server", "--port", "0",
             "--data-dir", str(data_dir), "--seed", "demo"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, umask=0o022)
        started.append(process)
        assert process.stdout is not None
        return process, json.loads(process.stdout.readline())

    yield start
    for process in started:
        stop(process)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        process.wait(30)
    assert process.stdout is not None
    process.stdout.close()


def test_the_cli_data_dir_is_0700_and_every_file_in_it_0600(tmp_path, run_cli) -> None:
    data_dir = tmp_path / "new" / "service"  # neither exists yet
    _process, info = run_cli(data_dir)
    stored = json.loads(Path(info["credentials_file"]).read_text())
    answer = httpx.post(info["base_url"] + "/v1/oauth/token", json={  # a write: WAL
        "grant_type": "refresh_token", "refresh_token": stored["refresh_token"],
        "client_id": stored["client_id"], "scope": FULL}, verify=loopback_tls())
    assert answer.status_code == 200
    found = assert_private(data_dir)
    assert {"service.sqlite3", "service.sqlite3-wal", "service.sqlite3-shm",
            "client-credentials.json"} <= set(found)
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700  # a parent it made


def test_a_loose_existing_cli_data_dir_and_its_files_are_tightened(tmp_path, run_cli) -> None:
    data_dir = tmp_path / "service"
    first, _info = run_cli(data_dir)
    stop(first)
    data_dir.chmod(0o755)
    for name in ("service.sqlite3", "client-credentials.json"):
        (data_dir / name).chmod(0o644)
    (data_dir / "service.sqlite3-wal").touch(0o644)
    run_cli(data_dir)
    assert_private(data_dir)


def test_a_session_under_jdp_data_dir_keeps_everything_private(
        tmp_path, monkeypatch, loose_umask) -> None:
    root = tmp_path / "jdp"
    monkeypatch.setenv("JDP_DATA_DIR", str(root))
    with Session.open(Settings.resolve({})) as session:
        assert session.embedded is not None
        assert session.embedded.data_dir == (root / "reference-service").resolve()
        info = session.run(session.projects.info())  # scope expansion: the lock
        path = f"claude/private-{os.getpid()}.md"
        session.run(session.projects.write(path, content="shared with nobody"))  # journal
        assert info["docs"]
        found = assert_private(root)
    assert {"reference-service/service.sqlite3-wal", "reference-service/reference-service.log",
            "reference-service/client-credentials.json.lock",
            "journal.sqlite3"} <= set(found)


def test_sqlite_creates_its_side_files_with_the_databases_mode(tmp_path, loose_umask) -> None:
    db = Database(tmp_path / "x.sqlite3")
    with db.transaction() as conn:
        conn.execute("INSERT INTO service_meta VALUES ('k', 'v')")
    assert modes(tmp_path) == {".": stat.S_IMODE(tmp_path.stat().st_mode), "x.sqlite3": 0o600,
                               "x.sqlite3-wal": 0o600, "x.sqlite3-shm": 0o600}


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_the_modes_do_not_depend_on_the_umask(tmp_path, umask) -> None:
    previous = os.umask(umask)
    try:
        folder = private_dir(tmp_path / "a" / "b")
        file = private_file(folder / "f")
    finally:
        os.umask(previous)
    assert [stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "a", folder, file)] == [
        0o700, 0o700, 0o600]


def test_a_data_dir_that_is_not_a_directory_is_refused(tmp_path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(PermissionError):
        private_dir(tmp_path / "file")
