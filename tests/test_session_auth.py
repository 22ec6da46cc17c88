"""The Python equivalent of `%design auth` on a `Session` against the real reference
service: `auth_status()`, `refresh_now()` and `sign_out()` (the file deleted, the next call
not signed in, its remedy worded as the Python sign-in)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_design_projects.errors import AuthError
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
from tests.worker_processes import as_owner


@pytest.fixture
def session(shared_reference_service, tmp_path) -> Iterator[Session]:
    service = shared_reference_service
    settings = Settings.resolve({}, {
        "api_base_url": service.base_url, "org_uuid": service.org_uuid,
        "project_uuid": service.project_uuid,
        "credentials_file": str(as_owner(service, tmp_path / "credentials.json"))})
    with Session(settings, data_dir=tmp_path / "data") as opened:
        yield opened


def test_sign_in_refresh_now_and_sign_out_from_python(session) -> None:
    assert not session.auth_status(discover=False).signed_in
    session.login_embedded()
    status = session.auth_status()
    assert status.signed_in and [s.ok for s in status.discovery] == [True, True]
    stored = Path(session.settings.credentials_file)
    before = json.loads(stored.read_text())["access_token"]
    refreshed = session.refresh_now()
    after = json.loads(stored.read_text())["access_token"]
    assert after != before
    assert session.credentials.current().access_token.reveal() == after
    assert dict(refreshed.last_refresh.fields)["why"] == "asked"
    assert before not in json.dumps(refreshed.to_dict()) + repr(refreshed)
    gone = session.sign_out()
    assert not gone.signed_in and not stored.exists()
    failed = session.run(session.design.list())
    assert failed.is_error and isinstance(failed.error, AuthError)
    assert failed.error.reason == "no_token"
    assert "session.auth.login_begin()" in str(failed.error)
    with pytest.raises(AuthError) as nothing:
        session.refresh_now()
    assert nothing.value.reason == "no_token"
