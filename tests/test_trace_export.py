"""The HTTP trace leaves the notebook: a session against the real reference service — a
sign-in, a scope expansion, a 401 refresh, Design MCP and REST, a plan token, the Projects
org API and the remote-session route — written as HAR holds every exchange and none of the
credentials the session held, in any spelling."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote, quote_plus

import jsonschema
import pytest
from haralyzer import HarParser

from jupyter_design_projects.core.redaction import REDACTED, Secret
from jupyter_design_projects.core.scopes import PROJECT_SCOPES, missing_project_scopes
from jupyter_design_projects.notebook.views.trace import TraceOutcome, write_har
from jupyter_design_projects.projects.api import REMOTE_SESSION_PATH
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
from tests.faults_client import faults
from tests.worker_processes import as_owner

SCHEMA = json.loads((Path(__file__).parent / "core" / "har_1_2.schema.json").read_text())


def spellings(value: str) -> set[str]:
    """Every form in which a credential could reach a file: raw, URL-encoded, JSON-escaped."""
    escaped = json.dumps(value)[1:-1]
    return {value, quote(value, safe=""), quote_plus(value), escaped,
            escaped.replace("/", "\\/")}


def settings_for(service, tmp_path, **extra) -> Settings:
    return Settings.resolve({}, {
        "api_base_url": service.base_url, "org_uuid": service.org_uuid,
        "project_uuid": service.project_uuid, "http_trace": True,
        "credentials_file": str(as_owner(service, tmp_path / "credentials.json")), **extra})


@pytest.fixture
def traced_session(reference_service, tmp_path):
    service = reference_service
    with Session(settings_for(service, tmp_path), data_dir=tmp_path / "data",
                 can_ask=lambda: True) as session:
        yield service, session


def leaks(text: str, secrets) -> list[str]:
    """Which of `secrets` (Secrets or strings) appear in `text`, named by position."""
    found = []
    for i, secret in enumerate(secrets):
        value = secret.reveal() if isinstance(secret, Secret) else secret
        if any(form in text for form in spellings(value)):
            found.append(f"secret #{i} ({len(value)} chars)")
    return found


def test_a_har_after_sign_in_scope_expansion_and_a_401_refresh_holds_no_credential(
        traced_session, tmp_path):
    service, session = traced_session
    faults(service).narrow_scopes(list(PROJECT_SCOPES))  # a sign-in without Projects
    session.login_embedded()                                   # sign-in: code + verifier
    faults(service).reset()
    assert missing_project_scopes(session.credentials.current().scopes)
    session.run(session.design.consent())                      # Design REST
    projects = session.design_call("list_projects").data       # Design MCP
    pid = next(p["id"] for p in projects if p["name"] == "Quarterly Review Deck")
    plan = session.design_call("finalize_plan", {"project_id": pid,
                                                 "writes": ["slides/99-trace.html"]},
                               approve=lambda request: "once").data
    assert "plan_token" in plan, plan
    plan_token = plan["plan_token"]
    written = session.design_call("write_files", {
        "project_id": pid, "plan_token": plan_token,
        "files": [{"path": "slides/99-trace.html", "data": "<p>traced</p>"}]})
    assert not written.is_error
    session.run(session.projects.call("project_info", {}))    # scope expansion + org API
    assert faults(service).expire_tokens() >= 1
    session.run(session.projects.call("project_info", {}))    # 401 → refresh → retry

    records = session.trace.records()
    actions = [r["action"] for r in records]
    statuses = [(r["action"], r["status"]) for r in records]
    assert any(a.startswith("oauth") for a in actions)         # token requests are traced
    assert "design initialize" in actions and "design list_projects" in actions
    assert any(a.startswith("design") and "consent" in a for a in actions)
    assert "detail" in actions                                   # the org API
    assert any(status == 401 for _, status in statuses)          # the rejected token …
    assert [a for a in actions if a.startswith("oauth")] == [
        "oauth login", "oauth refresh", "oauth refresh"], repr(statuses)

    held = [*session.credentials.known_secrets(), plan_token]
    # the plan token the trace saw in finalize_plan's answer: every redactor of the session
    # has it (the panel's failures, the Projects API's error bodies), not only the trace's
    assert plan_token in {s.reveal() for s in session.secrets()}
    assert len(held) >= 6  # code, verifier, two access and refresh tokens at least
    path = tmp_path / "session.har"
    write_har(session.trace, str(path))
    text = path.read_text()
    assert leaks(text, held) == []
    assert REDACTED in text
    document = json.loads(text)
    jsonschema.Draft7Validator(SCHEMA).validate(document)
    assert len(document["log"]["entries"]) == len(records)
    assert document == TraceOutcome(records).to_har()
    # the token requests' bodies are there, with their credential fields blanked
    oauth = [e for e in document["log"]["entries"] if e["_action"].startswith("oauth")]
    assert oauth and all(REDACTED in e["request"]["postData"]["text"] for e in oauth)
    # and a HAR library reads it
    (page,) = HarParser(document).pages
    assert len(page.entries) == len(records)


def test_the_remote_session_route_is_traced_and_its_token_redacted(reference_service,
                                                                   tmp_path):
    service = reference_service
    settings = settings_for(service, tmp_path, session_jwt=service.session_jwt)
    with Session(settings, data_dir=tmp_path / "data") as session:
        session.run(session.projects.call("project_info", {}))
        records = session.trace.records()
        path = tmp_path / "remote.har"
        write_har(session.trace, str(path))
    remote = [r for r in records if r["url"] == service.base_url + REMOTE_SESSION_PATH]
    assert [r["action"] for r in remote] == ["detail"]
    assert json.loads(remote[0]["request_body"]) == {"op": "detail"}
    assert remote[0]["request_headers"]["authorization"] == REDACTED
    jwt = service.session_jwt
    assert leaks(path.read_text(), [jwt]) == []


def test_real_connections_report_their_steps(traced_session):
    _, session = traced_session
    session.login_embedded()
    first = session.trace.records()[0]
    assert {"blocked", "connect", "send", "wait", "receive"} <= set(first["timings"])
    entry = TraceOutcome([first]).to_har()["log"]["entries"][0]
    assert entry["timings"]["connect"] >= 0 and entry["time"] > 0
