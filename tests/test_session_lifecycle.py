"""A Session opened with no service configured: the embedded reference service, both
pipelines through one client, sign-in, and a clean close."""

from __future__ import annotations

import logging
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


def test_login_embedded_signs_in_with_a_fresh_credential(session, caplog) -> None:
    before = session.run(session.credentials.access_token())
    caplog.set_level(logging.DEBUG)  # every logger, httpx's INFO request lines included
    session.login_embedded()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "/callback?" not in logged and "code=" not in logged  # the code is never logged
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
        for secret in s.secrets():
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


# ---------------------------------------------------------------- the server's service


def test_a_session_under_a_jupyter_server_uses_its_service_and_leaves_it_running(
        module_reference_service, tmp_path) -> None:
    from jupyter_design_projects import service_file

    path = tmp_path / "jdp-service-1.json"
    service_file.write_ready(path, module_reference_service)
    s = Session.open(Settings.resolve({"JDP_SERVICE_FILE": str(path)}), data_dir=tmp_path)
    try:
        info = s.run(s.projects.info())
    finally:
        s.close()

    assert s.settings.api_base_url == module_reference_service.base_url
    assert "embedded reference service, on this Jupyter server" in s.banner
    assert "127.0.0.1" not in s.banner  # words for a browser elsewhere
    assert info["project"]["name"] == "Team Handbook"
    assert module_reference_service.running  # the server's, not this session's, to stop


def test_the_environment_still_wins_over_the_servers_service(module_reference_service,
                                                             tmp_path) -> None:
    from jupyter_design_projects import service_file

    path = tmp_path / "jdp-service-1.json"
    service_file.write_ready(path, module_reference_service)
    own = "0b6f4f0e-3c2a-4d8e-9f10-7a1b2c3d4e5f"
    s = Session.open(Settings.resolve({"JDP_SERVICE_FILE": str(path),
                                       "CLAUDE_PROJECT_UUID": own}), data_dir=tmp_path)
    s.close()
    assert s.settings.project_uuid == own
    assert s.settings.org_uuid == module_reference_service.org_uuid


def test_start_opens_and_warms_in_the_background(module_reference_service, tmp_path) -> None:
    started = Session.start(Settings.resolve(module_reference_service.client_env()),
                            data_dir=tmp_path)
    s = started.result(timeout=60)
    try:
        assert "projects" in s.__dict__ and s.credentials.current() is not None
        assert s.run(s.projects.info())["project"]["name"] == "Team Handbook"
        assert s.design is s.design  # built once, whoever asks first
    finally:
        s.close()


def _start_thread_ends(deadline_s: float = 30.0) -> bool:
    import threading
    import time

    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if not any(t.name == "jdp-session-start" for t in threading.enumerate()):
            return True
        threading.Event().wait(0.02)
    return False


def test_start_warms_design_only_after_its_delay(module_reference_service, tmp_path,
                                                 monkeypatch) -> None:
    """The Design pipeline is not warmed while a first call may be running: not before
    the delay, and not at all once the session is closed (the wait ends at once)."""
    import jupyter_design_projects.session as module

    monkeypatch.setattr(module, "DESIGN_WARM_DELAY_S", 600.0)
    started = Session.start(Settings.resolve(module_reference_service.client_env()),
                            data_dir=tmp_path)
    s = started.result(timeout=60)
    assert s._design is None  # ready for a first %project call, Design not begun
    s.close()
    assert _start_thread_ends()
    assert s._design is None


def test_start_warms_design_after_its_delay(module_reference_service, tmp_path,
                                            monkeypatch) -> None:
    import jupyter_design_projects.session as module

    monkeypatch.setattr(module, "DESIGN_WARM_DELAY_S", 0.0)
    started = Session.start(Settings.resolve(module_reference_service.client_env()),
                            data_dir=tmp_path)
    s = started.result(timeout=60)
    try:
        assert _start_thread_ends()
        assert s._design is not None
    finally:
        s.close()


def test_start_hands_over_the_error_open_met(tmp_path) -> None:
    from jupyter_design_projects.errors import ServiceStartFailed

    started = Session.start(Settings.resolve({"JDP_SERVICE_FILE": str(tmp_path / "x.json")}),
                            data_dir=tmp_path)
    (tmp_path / "x.json").write_text("not json")
    with pytest.raises(ServiceStartFailed):
        started.result(timeout=120)


@pytest.mark.parametrize(("env", "full_tls"), [
    ({"JDP_API_BASE_URL": "http://127.0.0.1:8000"}, False),
    ({"JDP_API_BASE_URL": "https://api.example.com"}, True),
    ({"JDP_API_BASE_URL": "http://127.0.0.1:8000",
      "JDP_WEB_BASE_URL": "https://web.example.com"}, True),
    ({"JDP_API_BASE_URL": "http://localhost:8000",
      "JDP_OAUTH_TOKEN_URL": "https://auth.example.com/token"}, True),
])
def test_the_ca_file_is_loaded_only_when_a_url_is_https(env, full_tls) -> None:
    import ssl

    from jupyter_design_projects.session import tls_context

    context = tls_context(Settings.resolve(env))
    if full_tls:
        assert context is True
    else:  # loads no CA: it could verify nothing, so it would refuse every certificate
        assert isinstance(context, ssl.SSLContext)
        assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
        assert context.cert_store_stats()["x509_ca"] == 0


def test_jdp_data_dir_names_the_per_user_data_directory(tmp_path, monkeypatch):
    from jupyter_design_projects.session import DATA_DIR_ENV, user_data_dir

    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "demo"))
    assert user_data_dir() == tmp_path / "demo"
    monkeypatch.delenv(DATA_DIR_ENV)
    assert user_data_dir() != tmp_path / "demo"
