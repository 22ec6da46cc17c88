"""The stored credential under contention and failure, by the Python API and by real
kernel processes against the reference service. Spec clauses: §11 (scope expansion: one
refresh across processes, the full scope list, contention reported), §5 (rotating refresh
tokens), and the threats of a readable credential file and a failing keyring."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.core.scopes import PROJECT_SCOPES
from jupyter_design_projects.errors import (
    AuthError,
    CredentialStoreError,
    ProjectsAuthFailed,
    ScopeExpansionFailed,
)
from jupyter_design_projects.session import Session
from jupyter_design_projects.transport.credentials import Credential
from tests.faults_client import faults
from tests.reliability.battery import Live, owners_view, settings_for, signed_in_file
from tests.reliability.kernels import Kernel
from tests.sign_in_page import pasted_code
from tests.worker_processes import copied_credentials

KERNELS = 8


def narrow_copy(service, directory) -> str:
    """A copy of the service's first credential (no project scopes yet)."""
    path = copied_credentials(service, directory)
    assert not set(PROJECT_SCOPES) & set(json.loads(path.read_text())["scopes"])
    return str(path)


def job_settings(service, credentials_file: str) -> dict:
    return {"api_base_url": service.base_url, "org_uuid": service.org_uuid,
            "project_uuid": service.project_uuid, "credentials_file": credentials_file}


def test_eight_kernels_expanding_scopes_at_once_make_one_refresh__spec_s11(
        reference_service, tmp_path):
    service = reference_service
    shared = narrow_copy(service, tmp_path / "shared")
    kernels = [Kernel({"action": "expand", "barrier": True, "data_dir": str(tmp_path / f"k{i}"),
                       "settings": job_settings(service, shared)}, tmp_path / f"k{i}")
               for i in range(KERNELS)]
    try:
        for kernel in kernels:
            assert kernel.line(120)["step"] == "opened"
            assert kernel.line(60)["step"] == "loaded"
        for kernel in kernels:
            kernel.go()
        outcomes = [kernel.line(120) for kernel in kernels]
    finally:
        for kernel in kernels:
            kernel.close()
    assert [o["step"] for o in outcomes] == ["done"] * KERNELS, outcomes
    assert faults(service).counts().get("POST /v1/oauth/token") == 1
    assert all(o["result"]["notice"] for o in outcomes)  # each kernel tells its person once
    stored = json.loads(Path(shared).read_text())
    assert set(PROJECT_SCOPES) <= set(stored["scopes"])


def test_lock_held_by_another_process_is_a_clear_try_again__spec_s11(
        reference_service, tmp_path, caplog, capsys):
    service = reference_service
    path = narrow_copy(service, tmp_path / "held")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import filelock, sys; lock = filelock.FileLock(sys.argv[1]); "
         "lock.acquire(); print('held', flush=True); sys.stdin.read(); lock.release()",
         path + ".lock"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"held"
        with Session(settings_for(service, path), data_dir=tmp_path / "client") as session:
            live = Live(service, session, tmp_path / "held" / "credentials.json", caplog, capsys)
            error = live.fails(session.projects.info(), timeout=60)
            # spec §12: wrapped as a Projects failure, the credential error as its cause
            assert isinstance(error, ProjectsAuthFailed) and error.reason == "lock_contended"
            assert isinstance(error.__cause__, ScopeExpansionFailed)
            assert faults(service).counts().get("POST /v1/oauth/token", 0) == 0
            holder.stdin.close()
            holder.wait(30)
            assert session.run(session.projects.info())["notice"]  # it works once free
            live.check(error=error)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(30)
        holder.stdout.close()


def test_a_credential_file_others_can_read_is_refused_with_the_fix__threat_leaked_token(
        live):
    os.chmod(live.credentials_file, 0o644)
    fresh = Session(live.session.settings, data_dir=live.session.data_dir / "again")
    live.sessions.append(fresh)
    try:
        error = live.fails(fresh.projects.info())
    finally:
        fresh.close()
        os.chmod(live.credentials_file, 0o600)
    # the Projects call needs the scopes first: the store's refusal is its detail
    assert isinstance(error, ProjectsAuthFailed) and error.reason == "no_token"
    assert isinstance(error.__cause__, ScopeExpansionFailed)
    assert "chmod 600" in error.__cause__.detail
    live.check(error=error)


def failing_keyring():
    """A keyring backend whose every call fails (a locked or broken secret service)."""
    from keyring.backend import KeyringBackend

    class FailingKeyring(KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def get_password(self, service, username):
            raise RuntimeError("secret service is locked")

        def set_password(self, service, username, password):
            raise RuntimeError("secret service is locked")

        def delete_password(self, service, username):
            raise RuntimeError("secret service is locked")

    return FailingKeyring()


def sign_in(session) -> None:
    """The sign-in a person does (open the page, paste CODE#STATE), by the public API."""
    url, attempt = session.login_begin()
    session.login_finish(attempt, code_on(url))


def code_on(url: str) -> Secret:
    return Secret(pasted_code(url))


def test_embedded_sign_in_failure_shows_no_code_in_a_verbose_traceback__threat_leaked_code(
        service, tmp_path, caplog, capsys):
    import keyring

    previous = keyring.get_keyring()
    keyring.set_keyring(failing_keyring())
    try:
        settings = settings_for(service, tmp_path / "unused.json")
        settings = type(settings)(**{**vars(settings), "credentials_file": ""})
        with Session(settings, data_dir=tmp_path / "client",
                     embedded=owners_view(service)) as session:
            live = Live(service, session, tmp_path / "none.json", caplog, capsys)
            with pytest.raises(CredentialStoreError) as caught:
                session.login_embedded()
            live.check(error=caught.value)
    finally:
        keyring.set_keyring(previous)


def test_a_failing_keyring_says_so_and_never_loses_the_token__threat_lost_credential(
        service, tmp_path, caplog, capsys):
    import keyring

    previous = keyring.get_keyring()
    keyring.set_keyring(failing_keyring())
    try:
        settings = settings_for(service, tmp_path / "unused.json")
        settings = type(settings)(**{**vars(settings), "credentials_file": ""})
        with Session(settings, data_dir=tmp_path / "client",
                     embedded=owners_view(service)) as session:
            live = Live(service, session, tmp_path / "none.json", caplog, capsys)
            with pytest.raises(CredentialStoreError) as caught:
                sign_in(session)
            assert caught.value.store.startswith("keyring")
            # the sign-in itself succeeded: this session still holds and uses the token
            assert session.credentials.current() is not None
            info = session.run(session.projects.info())
            assert info["docs"]
            live.check(error=caught.value, outcome=info)
    finally:
        keyring.set_keyring(previous)


def test_no_keyring_falls_back_to_a_private_file__threat_lost_credential(
        service, tmp_path, caplog, capsys):
    import keyring

    assert type(keyring.get_keyring()).__module__.startswith("keyring.backends.")
    settings = settings_for(service, tmp_path / "unused.json")
    settings = type(settings)(**{**vars(settings), "credentials_file": ""})
    with Session(settings, data_dir=tmp_path / "client",
                 embedded=owners_view(service)) as session:
        session.login_embedded()
        stored = tmp_path / "client" / "credentials.json"
        if stored.exists():  # the headless default: no keyring, the 0600 fallback file
            assert oct(stored.stat().st_mode & 0o777) == "0o600"
            Credential.from_json(json.loads(stored.read_text()))
        info = session.run(session.projects.info())
        assert info["docs"]
        Live(service, session, stored, caplog, capsys).check(info)


def test_a_rotated_refresh_token_used_twice_is_a_clear_auth_error__spec_s5_rotation(
        service, tmp_path, caplog, capsys):
    first = signed_in_file(service, tmp_path / "a")
    second = tmp_path / "b" / "credentials.json"
    second.parent.mkdir()
    shutil.copyfile(first, second)
    os.chmod(second, 0o600)
    with Session(settings_for(service, first), data_dir=tmp_path / "a") as a, \
            Session(settings_for(service, second), data_dir=tmp_path / "b") as b:
        live = Live(service, a, first, caplog, capsys)
        live.sessions.append(b)
        a.run(a.credentials.access_token())
        b.run(b.credentials.access_token())
        b_stored = second.read_text()
        faults(service).expire_tokens()
        before = faults(service).counts()
        a.run(a.design.consent())  # a 401, then a refresh that rotates the shared token
        assert faults(service).counts()["POST /v1/oauth/token"] == \
            before.get("POST /v1/oauth/token", 0) + 1
        error = live.fails(b.design.consent())  # b refreshes with the spent one
        assert isinstance(error, AuthError) and error.reason == "refresh_failed"
        assert "invalid_grant" in str(error)
        # b tried once with the spent refresh token and gave up: no second try, no loop
        assert faults(service).counts()["POST /v1/oauth/token"] == \
            before.get("POST /v1/oauth/token", 0) + 2
        # b's file is left as it was (nothing corrupted, nothing half-written), and a's
        # holds a's rotated credential
        assert second.read_text() == b_stored
        assert Credential.from_json(json.loads(first.read_text())).refresh_token != \
            Credential.from_json(json.loads(b_stored)).refresh_token
        live.check(error=error)
