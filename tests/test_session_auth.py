"""The Python equivalent of `%design auth` on a `Session` against the real reference
service: `auth_status()`, `refresh_now()` and `sign_out()` (the file deleted, the next call
not signed in, its remedy worded as the Python sign-in)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_design_projects.errors import AuthError


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
