"""A Session opened with no service configured: the embedded reference service, both
pipelines through one client, sign-in, and a clean close."""

from __future__ import annotations

import stat

import pytest

from jupyter_design_projects.core.redaction import REDACTED
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings


@pytest.fixture
def session(tmp_path):
    s = Session.open(Settings.resolve({}), data_dir=tmp_path / "data")
    try:
        yield s
    finally:
        s.close()


def test_no_service_configured_starts_the_offline_reference_service(session) -> None:
    assert session.embedded is not None
    assert "offline reference service" in session.banner
    assert session.settings.api_base_url == session.embedded.base_url
    assert session.settings.project_uuid == session.embedded.project_uuid


def test_first_projects_call_expands_scopes_and_says_so_once(session) -> None:
    first = session.run(session.projects.info())
    second = session.run(session.projects.info())
    assert first.get("notice")
    assert "notice" not in second
    assert first["project"]["name"] == "Team Handbook"


def test_design_and_projects_share_the_one_client(session) -> None:
    session.run(session.projects.info())
    outcome = session.run(session.design.list())
    assert not outcome.is_error
    assert session.design is not None and session.projects is not None
    assert session.http is session._client


def test_the_session_temp_dir_is_private_and_removed_on_close(tmp_path) -> None:
    s = Session.open(Settings.resolve({}), data_dir=tmp_path / "data")
    temp = s.temp_dir
    assert stat.S_IMODE(temp.stat().st_mode) == 0o700
    service = s.embedded
    s.close()
    assert not temp.exists()
    assert not service.running


def test_login_embedded_signs_in_with_a_fresh_credential(session) -> None:
    before = session.run(session.credentials.access_token())
    session.login_embedded()
    after = session.credentials.current()
    assert after is not None and after.access_token != before
    assert "user:projects:read" in after.scopes
    info = session.run(session.projects.info())
    assert info["project"]["name"] == "Team Handbook"


def test_trace_records_are_redacted(tmp_path) -> None:
    s = Session.open(Settings.resolve({}, {"http_trace": True}), data_dir=tmp_path / "data")
    try:
        s.run(s.projects.info())
        records = s.trace.records()
        assert records
        text = repr(records)
        for secret in s._secrets():
            assert secret.reveal() not in text
        assert any(REDACTED in repr(r) for r in records)
    finally:
        s.close()


def test_the_sync_facade_hands_each_card_to_approve_and_writes(tmp_path) -> None:
    s = Session.open(Settings.resolve({}), data_dir=tmp_path / "data", can_ask=lambda: True)
    try:
        projects = s.design_call("list_projects", {}, approve=lambda request: "once")
        deck = next(p["id"] for p in projects.data if p["name"] == "Quarterly Review Deck")
        seen = []

        def approve(request):
            seen.append(request.kind)
            return "project" if request.allows_durable else "once"

        files = [{"path": "slides/09-script.html", "data": "<h1>From a script</h1>"}]
        written = s.design_call("write_files", {"project_id": deck, "files": files},
                                approve=approve)
        assert not written.is_error, written.data
        assert "grant" in seen
        read = s.design_call("read_file", {"project_id": deck, "path": "slides/09-script.html"})
        assert "From a script" in read.data
    finally:
        s.close()


def test_the_sync_facade_without_approve_writes_nothing(tmp_path) -> None:
    s = Session.open(Settings.resolve({}), data_dir=tmp_path / "data", can_ask=lambda: True)
    try:
        s.run(s.design.consent())
        projects = s.design_call("list_projects")
        deck = next(p["id"] for p in projects.data if p["name"] == "Quarterly Review Deck")
        files = [{"path": "slides/10-denied.html", "data": "<h1>No</h1>"}]
        outcome = s.design_call("write_files", {"project_id": deck, "files": files})
        assert outcome.is_error
        listing = s.design_call("list_files", {"project_id": deck, "path": "slides"})
        assert all(f["path"] != "slides/10-denied.html" for f in listing.data)
    finally:
        s.close()
