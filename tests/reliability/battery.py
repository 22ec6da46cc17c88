"""The reliability battery's helpers: a live Session against the reference service (`Live`),
the magics in a shell (`LiveShell`), a Session on a scripted loopback server (`Scripted`),
and the service's own state read from its database (`ServiceState`). The fixtures that
make them are in conftest.py (test modules import helpers from here: `conftest` is not a
unique module name in this suite)."""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.errors import JdpError
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import FIRST_PARTY_CLIENT_ID, Settings
from tests.faults_client import FaultsClient, faults
from tests.reliability.hostile import LoopbackServer
from tests.reliability.leaks import LeakScan
from tests.worker_processes import as_owner

DB_FILE = "service.sqlite3"
FULL_SCOPES = ["user:profile", "user:inference", "user:mcp_servers", "user:file_upload",
               "user:design:read", "user:design:write", "user:projects:read",
               "user:projects:write"]


# ---------------------------------------------------------------- the service's own state


class ServiceState:
    """The reference service's database, read directly: what is really stored."""

    def __init__(self, service: EmbeddedService) -> None:
        self.path = Path(service.data_dir) / DB_FILE

    def _rows(self, sql: str, args: tuple = ()) -> list[sqlite3.Row]:
        conn = sqlite3.connect(self.path, timeout=30)
        try:
            conn.row_factory = sqlite3.Row
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    def docs(self, project_uuid: str) -> dict[str, str]:
        return {r["file_name"]: r["content"] for r in self._rows(
            "SELECT file_name, content FROM docs WHERE project_uuid = ?", (project_uuid,))}

    def design_files(self, project_id: str) -> dict[str, bytes]:
        return {r["path"]: bytes(r["content"]) for r in self._rows(
            "SELECT path, content FROM design_files WHERE project_id = ?", (project_id,))}

    def grants(self) -> set[str]:
        return {r["project_id"] for r in self._rows("SELECT project_id FROM design_grants")}

    def integrity(self) -> str:
        return self._rows("PRAGMA integrity_check")[0][0]


# ---------------------------------------------------------------- a live case


def settings_for(service: EmbeddedService, credentials_file: Path, *,
                 remote_session: bool = False, **overrides: Any) -> Settings:
    # the service's owner: its secret beside the credential file (embedded.owner_secret_for)
    values: dict[str, Any] = {
        "api_base_url": service.base_url, "org_uuid": service.org_uuid,
        "project_uuid": service.project_uuid,
        "credentials_file": str(as_owner(service, credentials_file)), "http_trace": True}
    if remote_session:
        values["session_jwt"] = service.session_jwt
    values.update(overrides)
    return Settings.resolve({}, values)


def owners_view(service: EmbeddedService) -> EmbeddedService:
    """The service as another process of its owner sees it (its description: the session
    finds the owner secret in its data dir, and leaves the service running at close)."""
    return EmbeddedService.described(service.describe())


def signed_in_file(service: EmbeddedService, directory: Path) -> Path:
    """A credential of its own for this case, through the service's real sign-in page (the
    service's startup file is rotated by other cases)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "credentials.json"
    with Session(settings_for(service, path), data_dir=directory / "login") as session:
        session.login_embedded()
    return path


def file_tokens(path: Path) -> list[str]:
    try:
        stored = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return []
    return [stored.get("access_token") or "", stored.get("refresh_token") or ""]


class Live:
    """One case against the service: a Session, the faults switches, the service's state,
    and `check()`, the leak check that ends every case."""

    def __init__(self, service: EmbeddedService, session: Session, credentials_file: Path,
                 caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture) -> None:
        self.service = service
        self.session = session
        self.credentials_file = credentials_file
        self.faults: FaultsClient = faults(service)
        self.state = ServiceState(service)
        self._caplog = caplog
        self._capsys = capsys
        self.scan = LeakScan(lambda: self.tokens())
        #: every Session whose trace and tokens the check covers (the magics add theirs)
        self.sessions: list[Any] = [session]

    def __repr__(self) -> str:
        return "<Live>"

    def tokens(self) -> list[str]:
        out = file_tokens(self.credentials_file) + file_tokens(self.service.credentials_file)
        for session in self.sessions:
            out += [s.reveal() for s in session.credentials.known_secrets()]
        if self.service.session_jwt:
            out.append(self.service.session_jwt)
        return out

    def run(self, coro: Any, timeout: float = 120) -> Any:
        return self.session.run(coro, timeout=timeout)

    def fails(self, coro: Any, timeout: float = 120) -> JdpError:
        """The JdpError the call raised (anything else fails the case)."""
        with pytest.raises(JdpError) as caught:
            self.session.run(coro, timeout=timeout)
        return caught.value

    def docs(self) -> dict[str, str]:
        return self.state.docs(self.service.project_uuid)

    def check(self, outcome: Any = None, error: BaseException | None = None, **extra: Any
              ) -> None:
        captured = self._capsys.readouterr()
        traces = [session.trace.records() for session in self.sessions]
        self.scan.check(outcome=outcome, error=error, trace=traces,
                        records=self._caplog.records, output=captured.out + captured.err,
                        **extra)


class LiveShell:
    """The magics in an IPython shell against the service. `line`/`cell` return the
    outcome, or the JdpError behind the one-line UsageError the magic raised."""

    def __init__(self, shell: Any, magics: Any, live: Live) -> None:
        self.shell = shell
        self.magics = magics
        self.live = live
        self.errors: list[JdpError] = []

    def __repr__(self) -> str:
        return "<LiveShell>"

    def line(self, magic: str, line: str) -> Any:
        return self._run(lambda: self.shell.run_line_magic(magic, line))

    def cell(self, magic: str, line: str, body: str) -> Any:
        return self._run(lambda: self.shell.run_cell_magic(magic, line, body))

    def _run(self, call: Any) -> Any:
        from IPython.core.error import UsageError

        before = len(self.errors)
        try:
            return call()
        except UsageError as usage:
            assert "\n" not in str(usage)
            assert len(self.errors) == before + 1, "a UsageError not made from a JdpError"
            error = self.errors[-1]
            self.live.check(error=usage)
            return error


class Scripted:
    """A Session whose every endpoint is a scripted loopback server, signed in with a
    credential made up for the case (the tokens the leak check looks for)."""

    def __init__(self, tmp_path, script, caplog, capsys) -> None:
        self.server = LoopbackServer(script)
        self.access = "hostile-access-" + secrets.token_hex(16)
        self.refresh = "hostile-refresh-" + secrets.token_hex(16)
        path = tmp_path / "hostile-credentials.json"
        path.write_text(json.dumps({
            "access_token": self.access, "refresh_token": self.refresh,
            "expires_at": int((time.time() + 3600) * 1000), "scopes": FULL_SCOPES,
            "client_id": FIRST_PARTY_CLIENT_ID}))
        path.chmod(0o600)
        settings = Settings.resolve({}, {
            "api_base_url": self.server.base_url, "credentials_file": str(path),
            "org_uuid": "5a1f2c3d-0000-4000-8000-000000000001",
            "project_uuid": "5a1f2c3d-0000-4000-8000-000000000002", "http_trace": True})
        self.session = Session(settings, data_dir=tmp_path / "hostile")

        class _Service:  # what Live needs of a service
            base_url = self.server.base_url
            data_dir = tmp_path
            credentials_file = path
            session_jwt = None

        self.live = Live(_Service(), self.session, path, caplog, capsys)
        self.live.tokens = lambda: [self.access, self.refresh]  # type: ignore[method-assign]

    def close(self) -> None:
        self.session.close()
        self.server.close()
